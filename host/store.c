/* The checked on-disk store (see store.h): every check happens on an open descriptor (the folder's,
 * then the entry's, opened relative to it), so what is checked is what is read. */
#include "store.h"

#include <dirent.h>
#include <stdatomic.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "clmax store\n"
#define VERSION 1u
#define HEAD 32u
#define MAX_ENTRY (512ull << 20)
#define TMP_STALE_SECONDS 3600

/* ---- the checksum ---------------------------------------------------------------------------- */

static uint64_t rotl(uint64_t v, int r)
{
    return (v << r) | (v >> (64 - r));
}

static uint64_t load_le64(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8); /* one load where the byte order already matches */
#else
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
#endif
    return v;
}

static void store_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Final mix: every input bit reaches every output bit. */
static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 33);
}

/* Four independent lanes over 32-byte blocks, so that a 1 MB entry hashes in well under a
 * millisecond; each step (xor, odd multiply, rotate) is a bijection of the lane, so any change of
 * one word changes its lane. Against damage only: tampering is kept out by the ownership checks. */
uint64_t clmax_store_checksum(const void *data, size_t size)
{
    const unsigned char *p = data;
    const uint64_t k1 = 0x9E3779B97F4A7C15ull, k2 = 0xD6E8FEB86659FD93ull;
    uint64_t lane[4] = {k1, k2, ~k1, ~k2};
    size_t i = 0;
    for (; i + 32 <= size; i += 32)
        for (int l = 0; l < 4; l++)
            lane[l] = rotl((lane[l] ^ load_le64(p + i + 8 * l)) * k1, 29) * k2;
    unsigned char tail[32] = {0};
    memcpy(tail, p + i, size - i);
    for (int l = 0; l < 4; l++)
        lane[l] = rotl((lane[l] ^ load_le64(tail + 8 * l)) * k1, 29) * k2;
    uint64_t h = (uint64_t)size * k2;
    for (int l = 0; l < 4; l++)
        h = mix(h ^ lane[l]);
    return h;
}

/* ---- the folder ------------------------------------------------------------------------------ */

/* mkdir -p with mode 0700 for what it creates. */
static int make_dirs(const char *path)
{
    char tmp[sizeof((clmax_store *)0)->dir];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) return -1;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return (mkdir(tmp, 0700) == 0 || errno == EEXIST) ? 0 : -1;
}

/* Why the folder behind fd must not be trusted, or NULL. */
static const char *folder_flaw(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0) return "cannot be examined";
    if (!S_ISDIR(st.st_mode)) return "is not a folder";
    if (st.st_uid != geteuid()) return "is not owned by you";
    if (st.st_mode & (S_IWGRP | S_IWOTH)) return "is writable by group or others";
    return NULL;
}

/* The store's folder, opened and checked again (it may have changed since clmax_store_open), or
 * -1. */
static int open_folder(const clmax_store *s)
{
    if (s == NULL || s->dir[0] == '\0') return -1;
    int fd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 && folder_flaw(fd) != NULL) {
        close(fd);
        fd = -1;
    }
    return fd;
}

void clmax_store_open(clmax_store *s, const char *dir, uint64_t max_bytes)
{
    memset(s, 0, sizeof *s);
    s->max_bytes = max_bytes ? max_bytes : CLMAX_STORE_DEFAULT_MAX_BYTES;
    if (dir == NULL || dir[0] == '\0') return;
    const char *flaw = NULL;
    int fd = -1;
    if (strlen(dir) >= sizeof s->dir)
        flaw = "has too long a path";
    else if (make_dirs(dir) != 0)
        flaw = strerror(errno);
    else if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        flaw = strerror(errno);
    else
        flaw = folder_flaw(fd);
    if (fd >= 0) close(fd);
    if (flaw != NULL) {
        snprintf(s->warning, sizeof s->warning,
                 "program cache not used: folder %.500s %s; it must be a folder of your own "
                 "that group and others cannot write\n",
                 dir, flaw);
        return;
    }
    snprintf(s->dir, sizeof s->dir, "%s", dir);
}

/* ---- entries --------------------------------------------------------------------------------- */

typedef struct entry_text {
    char file[16 + 1 + 16 + 1 + 32 + 4 + 1];
    char *key; /* scope, generation and key, each ended by a newline (malloc'd) */
    size_t key_len;
} entry_text;

static uint64_t hash_str(const char *s, uint64_t seed)
{
    return clmax_store_checksum(s, strlen(s)) ^ mix(seed);
}

static int entry_text_make(const clmax_store_name *n, entry_text *t)
{
    size_t ls = strlen(n->scope), lg = strlen(n->generation), lk = strlen(n->key);
    t->key_len = ls + lg + lk + 3;
    t->key = malloc(t->key_len + 1);
    if (t->key == NULL) return -1;
    snprintf(t->key, t->key_len + 1, "%s\n%s\n%s\n", n->scope, n->generation, n->key);
    snprintf(t->file, sizeof t->file, "%016llx-%016llx-%016llx%016llx.bin",
             (unsigned long long)hash_str(n->scope, 1),
             (unsigned long long)hash_str(n->generation, 2),
             (unsigned long long)hash_str(t->key, 3), (unsigned long long)hash_str(t->key, 4));
    return 0;
}

/* Reads exactly size bytes. */
static int read_all(int fd, unsigned char *p, size_t size)
{
    while (size > 0) {
        ssize_t r = read(fd, p, size);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        size -= (size_t)r;
    }
    return 0;
}

static int write_all(int fd, const unsigned char *p, size_t size)
{
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        size -= (size_t)w;
    }
    return 0;
}

/* The body of a whole, valid entry of key text t in buf (size bytes), or NULL. */
static const unsigned char *entry_body(const unsigned char *buf, size_t size, const entry_text *t,
                                       size_t *body)
{
    if (size < HEAD + 8 || memcmp(buf, MAGIC, 12) != 0) return NULL;
    uint64_t version = load_le64(buf + 8) >> 32; /* the u32 at 12 */
    uint64_t k = load_le64(buf + 16), b = load_le64(buf + 24);
    if (version != VERSION || k > size || b > size || HEAD + k + b + 8 != size) return NULL;
    if (load_le64(buf + size - 8) != clmax_store_checksum(buf, size - 8)) return NULL;
    if (k != t->key_len || memcmp(buf + HEAD, t->key, t->key_len) != 0) return NULL;
    *body = (size_t)b;
    return buf + HEAD + k;
}

/* Removes name from the folder if it is still the file st describes (another process may have
 * renamed a fresh entry into place since it was opened). */
static void remove_if_same(int dirfd, const char *name, const struct stat *st)
{
    struct stat now;
    if (fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st->st_dev &&
        now.st_ino == st->st_ino)
        unlinkat(dirfd, name, 0);
}

unsigned char *clmax_store_load(const clmax_store *s, const clmax_store_name *n, size_t *size)
{
    int dirfd = open_folder(s);
    if (dirfd < 0) return NULL;
    entry_text t;
    if (entry_text_make(n, &t) != 0) {
        close(dirfd);
        return NULL;
    }
    unsigned char *buf = NULL, *out = NULL;
    struct stat st;
    int fd = openat(dirfd, t.file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        /* A symlink (ELOOP) is not an entry: removed, so that a good one can take its place. */
        if (errno == ELOOP && fstatat(dirfd, t.file, &st, AT_SYMLINK_NOFOLLOW) == 0)
            remove_if_same(dirfd, t.file, &st);
        goto done;
    }
    size_t body = 0;
    const unsigned char *b = NULL;
    int examined = fstat(fd, &st) == 0;
    if (examined && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
        !(st.st_mode & (S_IWGRP | S_IWOTH)) && st.st_size > 0 &&
        (uint64_t)st.st_size <= MAX_ENTRY) {
        buf = malloc((size_t)st.st_size);
        if (buf == NULL) goto closed; /* no memory: the entry may well be good */
        if (read_all(fd, buf, (size_t)st.st_size) == 0)
            b = entry_body(buf, (size_t)st.st_size, &t, &body);
    }
    int bad = b == NULL || body == 0;
    if (!bad && (out = malloc(body)) != NULL) {
        memcpy(out, b, body);
        *size = body;
        futimens(fd, NULL); /* its last use, for pruning the least recently used */
    }
    if (bad && examined) remove_if_same(dirfd, t.file, &st);
closed:
    close(fd);
done:
    free(buf);
    free(t.key);
    close(dirfd);
    return out;
}

/* ---- pruning --------------------------------------------------------------------------------- */

typedef struct kept {
    char name[sizeof((entry_text *)0)->file];
    uint64_t bytes;
    struct timespec used;
} kept;

static int is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return 0;
    return 1;
}

/* Whether name is an entry's file name. */
static int is_entry(const char *name)
{
    return strlen(name) == 70 && is_hex(name, 16) && name[16] == '-' && is_hex(name + 17, 16) &&
           name[33] == '-' && is_hex(name + 34, 32) && strcmp(name + 66, ".bin") == 0;
}

static int older_first(const void *a, const void *b)
{
    const kept *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec) return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec) return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return 0;
}

/* Entry names are unique; removal re-checks each file, so a concurrent pruner or writer can only
 * make this one remove less, or remove an entry that is then rebuilt: never leave a broken one. */
static void prune(const clmax_store *s, int dirfd, const char *written)
{
    int fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        if (fd >= 0) close(fd);
        return;
    }
    time_t now = time(NULL);
    kept *list = NULL;
    size_t count = 0, cap = 0;
    uint64_t total = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        const char *name = e->d_name;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        const char *tmp = strstr(name, ".bin.tmp.");
        if (tmp != NULL && tmp == name + 66) {
            if (now - st.st_mtime > TMP_STALE_SECONDS) remove_if_same(dirfd, name, &st);
            continue;
        }
        if (strlen(name) == 36 && is_hex(name, 32) && strcmp(name + 32, ".bin") == 0) {
            /* clmax before the store kept unchecked entries under these names. */
            if (now - st.st_mtime > CLMAX_STORE_STALE_SECONDS) remove_if_same(dirfd, name, &st);
            continue;
        }
        if (!is_entry(name)) continue;
        if (strcmp(name, written) != 0 && memcmp(name, written, 16) == 0 &&
            memcmp(name + 17, written + 17, 16) != 0 &&
            now - st.st_mtime > CLMAX_STORE_STALE_SECONDS) {
            remove_if_same(dirfd, name, &st); /* another generation of this scope, unused */
            continue;
        }
        total += (uint64_t)st.st_size;
        if (strcmp(name, written) == 0) continue; /* never the entry just written */
        if (count == cap) {
            size_t c = cap ? 2 * cap : 64;
            kept *grown = realloc(list, c * sizeof *grown);
            if (grown == NULL) break;
            list = grown;
            cap = c;
        }
        snprintf(list[count].name, sizeof list[count].name, "%s", name);
        list[count].bytes = (uint64_t)st.st_size;
        list[count].used = st.st_mtim;
        count++;
    }
    closedir(d);
    if (total > s->max_bytes) {
        qsort(list, count, sizeof *list, older_first);
        for (size_t i = 0; i < count && total > s->max_bytes; i++) {
            if (unlinkat(dirfd, list[i].name, 0) == 0) total -= list[i].bytes;
        }
    }
    free(list);
}

void clmax_store_save(const clmax_store *s, const clmax_store_name *n, const void *body,
                      size_t size)
{
    static atomic_uint counter; /* temporary names unique within the process */
    if (size == 0 || size > MAX_ENTRY) return;
    int dirfd = open_folder(s);
    if (dirfd < 0) return;
    entry_text t;
    if (entry_text_make(n, &t) != 0) {
        close(dirfd);
        return;
    }
    size_t total = HEAD + t.key_len + size + 8;
    unsigned char *buf = malloc(total);
    char tmp[sizeof t.file + 48];
    int fd = -1;
    if (buf == NULL) goto done;
    memcpy(buf, MAGIC, 12);
    store_le(buf + 12, VERSION, 4);
    store_le(buf + 16, t.key_len, 8);
    store_le(buf + 24, size, 8);
    memcpy(buf + HEAD, t.key, t.key_len);
    memcpy(buf + HEAD + t.key_len, body, size);
    store_le(buf + total - 8, clmax_store_checksum(buf, total - 8), 8);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u", t.file, (long)getpid(),
             atomic_fetch_add(&counter, 1u));
    fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) goto done;
    int ok = write_all(fd, buf, total) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || renameat(dirfd, tmp, dirfd, t.file) != 0) {
        unlinkat(dirfd, tmp, 0);
        goto done;
    }
    prune(s, dirfd, t.file);
done:
    free(buf);
    free(t.key);
    close(dirfd);
}
