/* Helpers of the program cache tests; see cache_util.h. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "cache_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"

#define MAX_DIRS 8
static char g_dirs[MAX_DIRS][64];
static int g_ndirs;

const char *cache_tmpdir(void)
{
    /* A test that skips (no OpenCL device selected) ends without its suite's .fini. */
    static int registered;
    if (!registered) registered = atexit(cache_cleanup) == 0;
    cr_assert_lt(g_ndirs, MAX_DIRS);
    char *d = g_dirs[g_ndirs];
    snprintf(d, sizeof g_dirs[0], "/tmp/clmax-cache-test.XXXXXX");
    cr_assert_not_null(mkdtemp(d), "mkdtemp: %s", strerror(errno));
    g_ndirs++;
    return d;
}

const char *cache_fresh(void)
{
    const char *d = cache_tmpdir();
    setenv("CLMAX_CACHE_DIR", d, 1);
    unsetenv("CLMAX_CACHE_MAX_BYTES");
    setenv("CLMAX_CACHE_BINARIES", "always", 1); /* programs kept whatever the driver keeps */
    return d;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

void cache_cleanup(void)
{
    for (int i = 0; i < g_ndirs; i++) {
        chmod(g_dirs[i], 0700); /* a test may have left it refused */
        nftw(g_dirs[i], remove_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    g_ndirs = 0;
}

clmax_context *cache_open(const clmax_context_options *o)
{
    return test_context_open(CLMAX_BACKEND_OPENCL, o);
}

/* 4 rows of 37 with ties and extremes, the same every time. */
static void make_input(clmax_type type, void *x, clmax_tensor_desc *desc)
{
    const int64_t dims[2] = {4, 37};
    test_rng rng;
    rng_seed(&rng, 25);
    *desc = test_desc(type, 2, dims);
    fill_tensor(type, x, 4 * 37, FILL_MIXED, &rng);
}

clmax_status cache_argmax(clmax_context *ctx, clmax_type type, int64_t y[4])
{
    uint64_t x[4 * 37];
    clmax_tensor_desc desc;
    make_input(type, x, &desc);
    clmax_argmax_attrs attrs;
    clmax_argmax_attrs_init(&attrs, 13);
    attrs.axis = 1;
    memset(y, 0xA5, 4 * sizeof *y);
    return clmax_argmax(ctx, &desc, x, &attrs, y);
}

void cache_check(clmax_context *ctx, clmax_type type)
{
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.backend = CLMAX_BACKEND_CPU;
    clmax_context *cpu = NULL;
    cr_assert_eq(clmax_context_create(&o, &cpu), CLMAX_OK, "CPU context: %s", clmax_last_error());
    int64_t want[4], got[4];
    cr_assert_eq(cache_argmax(cpu, type, want), CLMAX_OK, "%s", clmax_last_error());
    clmax_context_destroy(cpu);
    clmax_status st = cache_argmax(ctx, type, got);
    cr_assert_eq(st, CLMAX_OK, "ArgMax %s on OpenCL: %s", test_type_str(type), clmax_last_error());
    cr_assert_arr_eq(got, want, sizeof got, "ArgMax %s on OpenCL differs from the CPU path",
                     test_type_str(type));
}

void cache_run(clmax_type type)
{
    clmax_context *ctx = cache_open(NULL);
    cr_expect_str_eq(clmax_context_warnings(ctx), "", "a context with a usable cache warns");
    cache_check(ctx, type);
    clmax_context_destroy(ctx);
}

/* <16hex>-<16hex>-<32hex>.bin */
static int is_entry_name(const char *s)
{
    static const int seg[3] = {16, 16, 32};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < seg[i]; j++, s++)
            if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'))) return 0;
        if (*s++ != (i < 2 ? '-' : '.')) return 0;
    }
    return strcmp(s, "bin") == 0;
}

/* Whether the key text of the entry name in dir holds needle. */
static int key_holds(const char *dir, const char *name, const char *needle)
{
    char path[1100], head[ENTRY_HEAD + 4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    if (n <= ENTRY_HEAD) return 0;
    head[n] = '\0';
    uint64_t k = get_u64((const unsigned char *)head + 16);
    if (k > n - ENTRY_HEAD) return 0;
    head[ENTRY_HEAD + k] = '\0';
    return strstr(head + ENTRY_HEAD, needle) != NULL;
}

/* Not a program: a feature probe's answer (host/opencl/cl_features.c; its key text's last line
 * starts with "feature="), or what a program's builds have cost ("rent;", cl_cache.c). */
static int is_fact_entry(const char *dir, const char *name)
{
    return key_holds(dir, name, "\nfeature=") || key_holds(dir, name, "\nrent;");
}

static int by_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The names of dir's entries that are programs (rents 0) or builds' costs (rents 1), into names;
 * returns how many. */
static int list_entries(const char *dir, char (*names)[80], int max, int rents)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "opendir %s: %s", dir, strerror(errno));
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!is_entry_name(e->d_name)) continue;
        if (rents ? !key_holds(dir, e->d_name, "\nrent;") : is_fact_entry(dir, e->d_name)) continue;
        cr_assert_lt(n, max, "more than %d entries in %s", max, dir);
        snprintf(names[n++], 80, "%.79s", e->d_name);
    }
    closedir(d);
    return n;
}

int cache_entries(const char *dir, char (*names)[80], int max)
{
    int n = list_entries(dir, names, max, 0);
    qsort(names, (size_t)n, 80, by_name);
    return n;
}

int cache_rent_entries(const char *dir, char (*names)[80], int max)
{
    return list_entries(dir, names, max, 1);
}

void cache_seed(const char *dir, clmax_type type)
{
    for (int tries = 1;; tries++) {
        char names[8][80];
        cache_run(type);
        int kept = cache_entries(dir, names, 8);
        cache_run(type);
        if (cache_entries(dir, names, 8) == kept) return;
        /* Not cr_log_warn: Criterion turns a logged warning into a failing exit status. */
        fprintf(stderr, "%s seeded again: a run after the first kept a new program\n", dir);
        cr_assert_lt(tries, 3, "runs in %s keep new programs %d times over", dir, tries);
        nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
        cr_assert_eq(mkdir(dir, 0700), 0, "mkdir %s: %s", dir, strerror(errno));
    }
}

void cache_feature_entry(const char *dir, const char *last, char *path, size_t size)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "opendir %s: %s", dir, strerror(errno));
    int found = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!is_entry_name(e->d_name)) continue;
        char p[1100];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        size_t n, k;
        unsigned char *data = file_read(p, &n);
        const char *key = entry_check(data, n, &k);
        size_t m = strlen(last); /* the key text ends in "\n" last "\n" */
        if (k > m + 1 && key[k - m - 2] == '\n' && memcmp(key + k - m - 1, last, m) == 0 &&
            key[k - 1] == '\n') {
            found++;
            snprintf(path, size, "%s", p);
        }
        free(data);
    }
    closedir(d);
    cr_assert_eq(found, 1, "%d entries for %s in %s, expected one", found, last, dir);
}

void cache_one_entry(const char *dir, char *path, size_t size)
{
    char names[8][80];
    int n = cache_entries(dir, names, 8);
    cr_assert_eq(n, 1, "%d entries in %s, expected one", n, dir);
    snprintf(path, size, "%s/%s", dir, names[0]);
}

void cache_other_entry(const char *dir, const char *skip, char *path, size_t size)
{
    char names[8][80], p[1100];
    int n = cache_entries(dir, names, 8), found = 0;
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        if (strcmp(p, skip) == 0) continue;
        found++;
        snprintf(path, size, "%s", p);
    }
    cr_assert_eq(found, 1, "%d entries in %s besides %s, expected one", found, dir, skip);
}

int dir_holds_only(const char *dir, const char *const *names)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "opendir %s: %s", dir, strerror(errno));
    int only = 1;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        int listed = 0;
        for (const char *const *n = names; n && *n; n++)
            listed |= strcmp(*n, e->d_name) == 0;
        listed |= is_entry_name(e->d_name) && is_fact_entry(dir, e->d_name);
        if (!listed) cr_log_error("%s holds %s", dir, e->d_name);
        only &= listed;
    }
    closedir(d);
    return only;
}

unsigned char *file_read(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "open %s: %s", path, strerror(errno));
    struct stat st;
    cr_assert_eq(fstat(fileno(f), &st), 0);
    unsigned char *data = test_malloc((size_t)st.st_size);
    cr_assert_eq(fread(data, 1, (size_t)st.st_size, f), (size_t)st.st_size, "read %s", path);
    fclose(f);
    *size = (size_t)st.st_size;
    return data;
}

void file_replace(const char *path, const void *data, size_t size)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.forged", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert_geq(fd, 0, "create %s: %s", tmp, strerror(errno));
    cr_assert_eq(write(fd, data, size), (ssize_t)size, "write %s", tmp);
    close(fd);
    cr_assert_eq(rename(tmp, path), 0, "rename to %s: %s", path, strerror(errno));
}

void file_patch(const char *path, size_t offset, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY);
    cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
    cr_assert_eq(pwrite(fd, data, size, (off_t)offset), (ssize_t)size, "write %s", path);
    close(fd);
}

void file_set_mtime(const char *path, time_t when)
{
    struct timespec t[2] = {{when, 0}, {when, 0}};
    cr_assert_eq(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW), 0, "utimensat %s: %s", path,
                 strerror(errno));
}

struct stat file_lstat(const char *path)
{
    struct stat st;
    cr_assert_eq(lstat(path, &st), 0, "lstat %s: %s", path, strerror(errno));
    return st;
}

uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> 8 * i);
}

const char *entry_check(const unsigned char *data, size_t size, size_t *key_len)
{
    cr_assert_geq(size, ENTRY_HEAD + 8, "an entry of %zu bytes", size);
    cr_assert_arr_eq(data, "clmax store\n\1\0\0\0", 16, "magic or format version");
    uint64_t k = get_u64(data + 16), b = get_u64(data + 24);
    cr_assert(k < size && b < size && ENTRY_HEAD + k + b + 8 == size,
              "size fields K %llu B %llu in an entry of %zu bytes", (unsigned long long)k,
              (unsigned long long)b, size);
    cr_assert_eq(get_u64(data + size - 8), clmax_store_checksum(data, size - 8), "checksum");
    *key_len = (size_t)k;
    return (const char *)data + ENTRY_HEAD;
}

unsigned char *entry_forge(const char *key, size_t key_len, const void *body, size_t body_len,
                           size_t *size)
{
    *size = ENTRY_HEAD + key_len + body_len + 8;
    unsigned char *e = test_malloc(*size);
    memcpy(e, "clmax store\n\1\0\0\0", 16);
    put_u64(e + 16, key_len);
    put_u64(e + 24, body_len);
    memcpy(e + ENTRY_HEAD, key, key_len);
    memcpy(e + ENTRY_HEAD + key_len, body, body_len);
    entry_reseal(e, *size);
    return e;
}

void entry_reseal(unsigned char *data, size_t size)
{
    put_u64(data + size - 8, clmax_store_checksum(data, size - 8));
}

int entry_hold(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
    return fd;
}

void entry_replaced(const char *path, int fd, const char *key, size_t key_len)
{
    struct stat old, now = file_lstat(path);
    cr_assert_eq(fstat(fd, &old), 0);
    close(fd);
    cr_assert(S_ISREG(now.st_mode), "%s is not a regular file (mode %o)", path, now.st_mode);
    cr_assert_neq(now.st_ino, old.st_ino, "%s was not replaced by a new file", path);
    cr_assert_eq(now.st_uid, geteuid(), "%s is owned by %d", path, (int)now.st_uid);
    cr_assert_eq(now.st_mode & 022, 0, "%s has mode %o", path, now.st_mode & 0777);
    size_t size, len;
    unsigned char *data = file_read(path, &size);
    const char *k = entry_check(data, size, &len);
    if (key != NULL)
        cr_assert(len == key_len && memcmp(k, key, len) == 0, "%s has another key text: %.*s", path,
                  (int)len, k);
    free(data);
}

void entry_loaded_next(const char *path, clmax_type type)
{
    time_t before = time(NULL);
    file_set_mtime(path, before - 3600);
    struct stat old = file_lstat(path);
    size_t size0, size1;
    unsigned char *data0 = file_read(path, &size0);
    cache_run(type);
    struct stat now = file_lstat(path);
    cr_assert_eq(now.st_ino, old.st_ino, "%s was rewritten instead of loaded", path);
    cr_assert_geq(now.st_mtime, before - 1, "%s loaded without its time of use updated", path);
    unsigned char *data1 = file_read(path, &size1);
    cr_assert(size0 == size1 && memcmp(data0, data1, size0) == 0, "%s changed when loaded", path);
    free(data0);
    free(data1);
}
