/* The on-disk program binary cache: a built program's binary is kept in a file named by a hash of
 * everything that determines it (kernel sources, build options, platform, device, driver and clmax
 * versions), so a new process loads it instead of compiling. The full key is stored in the file
 * and compared on load; writes go to a temporary file renamed into place, so readers never see a
 * partial entry. A missing, broken or stale entry is ignored and rebuilt. Best effort throughout:
 * a cache that cannot be read or written only costs a build.
 *
 * CLMAX_CACHE_DIR=<dir> moves the cache, CLMAX_CACHE_DIR=off disables it; the default is
 * $XDG_CACHE_HOME/clmax, else $HOME/.cache/clmax. */
#include "cl_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "clmax program cache 1\n"
#define MAX_BINARY (256u << 20)

static int cache_dir(char *out, size_t size)
{
    const char *d = getenv("CLMAX_CACHE_DIR");
    if (d != NULL && d[0] != '\0') {
        if (strcmp(d, "off") == 0 || strcmp(d, "0") == 0) return 0;
        return snprintf(out, size, "%s", d) < (int)size;
    }
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg != NULL && xdg[0] == '/') return snprintf(out, size, "%s/clmax", xdg) < (int)size;
    const char *home = getenv("HOME");
    if (home != NULL && home[0] == '/')
        return snprintf(out, size, "%s/.cache/clmax", home) < (int)size;
    return 0;
}

/* mkdir -p, for the cache folder (private to the user). */
static int make_dirs(const char *path)
{
    char tmp[1024];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) return -1;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return (mkdir(tmp, 0700) == 0 || errno == EEXIST) ? 0 : -1;
}

static uint64_t fnv1a(const char *s, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

static void append_info(char *key, size_t size, const char *label, const char *value)
{
    size_t len = strlen(key);
    if (len < size) snprintf(key + len, size - len, "%s=%s\n", label, value);
}

int clmax_cl_cache_key(clmax_cl *cl, size_t nsources, const char *const *sources,
                       const size_t *lengths, const char *options, clmax_cl_cache_entry *e)
{
    char info[256];
    e->key[0] = '\0';
    append_info(e->key, sizeof e->key, "clmax", clmax_version_string());
    append_info(e->key, sizeof e->key, "options", options);
    CL(GetPlatformInfo)(cl->platform, CL_PLATFORM_NAME, sizeof info - 1, info, NULL);
    info[sizeof info - 1] = '\0';
    append_info(e->key, sizeof e->key, "platform", info);
    CL(GetPlatformInfo)(cl->platform, CL_PLATFORM_VERSION, sizeof info - 1, info, NULL);
    append_info(e->key, sizeof e->key, "platform version", info);
    CL(GetDeviceInfo)(cl->device, CL_DEVICE_NAME, sizeof info - 1, info, NULL);
    append_info(e->key, sizeof e->key, "device", info);
    CL(GetDeviceInfo)(cl->device, CL_DRIVER_VERSION, sizeof info - 1, info, NULL);
    append_info(e->key, sizeof e->key, "driver", info);
    CL(GetDeviceInfo)(cl->device, CL_DEVICE_VERSION, sizeof info - 1, info, NULL);
    append_info(e->key, sizeof e->key, "device version", info);
    /* The hash of the sources one after another: every byte the program is built from. */
    uint64_t hs = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < nsources; i++)
        hs = fnv1a(sources[i], lengths[i], hs);
    snprintf(info, sizeof info, "%016llx", (unsigned long long)hs);
    append_info(e->key, sizeof e->key, "source", info);

    char dir[900];
    if (!cache_dir(dir, sizeof dir)) return 0;
    uint64_t h1 = fnv1a(e->key, strlen(e->key), 0xCBF29CE484222325ull);
    uint64_t h2 = fnv1a(e->key, strlen(e->key), 0x84222325CBF29CE4ull);
    return snprintf(e->path, sizeof e->path, "%s/%016llx%016llx.bin", dir, (unsigned long long)h1,
                    (unsigned long long)h2) < (int)sizeof e->path;
}

unsigned char *clmax_cl_cache_load(const clmax_cl_cache_entry *e, size_t *size)
{
    FILE *f = fopen(e->path, "rb");
    if (f == NULL) return NULL;
    unsigned char *bin = NULL;
    size_t klen = strlen(e->key), mlen = strlen(MAGIC);
    char *head = malloc(mlen + klen + 1);
    uint64_t n = 0;
    if (head == NULL || fread(head, 1, mlen + klen, f) != mlen + klen ||
        memcmp(head, MAGIC, mlen) != 0 || memcmp(head + mlen, e->key, klen) != 0 ||
        fread(&n, sizeof n, 1, f) != 1 || n == 0 || n > MAX_BINARY)
        goto done;
    bin = malloc((size_t)n);
    if (bin == NULL) goto done;
    if (fread(bin, 1, (size_t)n, f) != n || fgetc(f) != EOF) {
        free(bin);
        bin = NULL;
        goto done;
    }
    *size = (size_t)n;
done:
    free(head);
    fclose(f);
    return bin;
}

void clmax_cl_cache_store(const clmax_cl_cache_entry *e, const unsigned char *bin, size_t size)
{
    char dir[1024], tmp[1100];
    snprintf(dir, sizeof dir, "%s", e->path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL) return;
    *slash = '\0';
    if (make_dirs(dir) != 0) return;
    if (snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", e->path) >= (int)sizeof tmp) return;
    int fd = mkstemp(tmp);
    if (fd < 0) return;
    FILE *f = fdopen(fd, "wb");
    if (f == NULL) {
        close(fd);
        unlink(tmp);
        return;
    }
    uint64_t n = size;
    int ok = fwrite(MAGIC, 1, strlen(MAGIC), f) == strlen(MAGIC) &&
             fwrite(e->key, 1, strlen(e->key), f) == strlen(e->key) &&
             fwrite(&n, sizeof n, 1, f) == 1 && fwrite(bin, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, e->path) != 0) unlink(tmp);
}
