/* The checked on-disk store: what clmax keeps between processes (built program binaries today;
 * any other per-device fact later goes through it too), in one folder of the user's own.
 *
 * Trust: the folder is used only when it is owned by the user and not writable by group or
 * others (as OpenSSH treats ~/.ssh); an entry only when it is a regular file of the user's own,
 * not writable by group or others, opened without following a symlink or blocking, of exactly
 * the size its header gives, whose checksum matches and whose stored key is the one asked for.
 * Anything else at an entry's name is removed and the caller builds the entry anew.
 *
 * Entry file <scope>-<generation>-<key>.bin (16, 16 and 32 hex digits: hashes of the three
 * strings below), all integers little-endian:
 *   0   "clmax store\n" and the format version (u32, 1)
 *   16  key bytes K (u64), body bytes B (u64)
 *   32  the key text (scope, generation and key, each ended by a newline), then the body
 *   32+K+B  checksum (u64) of every byte before it (clmax_store_checksum)
 * Writers write a temporary file (<entry>.tmp.<pid>.<n>) and rename it into place, so a reader
 * sees a whole entry or none. */
#ifndef CLMAX_STORE_H
#define CLMAX_STORE_H

#include <stddef.h>
#include <stdint.h>

#define CLMAX_STORE_DEFAULT_MAX_BYTES (256ull << 20)
/* How long an entry of another generation (another clmax, driver or kernel source) of the same
 * scope is kept after its last use: two installed copies of clmax in use on one device keep
 * theirs, an upgrade's old entries go a day later. */
#define CLMAX_STORE_STALE_SECONDS (24 * 3600)

typedef struct clmax_store {
    char dir[1024];      /* the folder; "" when the store is not used */
    uint64_t max_bytes;  /* the entries' total size is kept under this */
    char warning[640];   /* why a store that was asked for is not used; "" otherwise */
    int binaries_always; /* keep program binaries even where the driver keeps its own builds
                            (CLMAX_CACHE_BINARIES=always; host/opencl/cl_cache.c) */
} clmax_store;

/* What names an entry: scope (what it is for, e.g. the platform and device names), generation
 * (what makes it stale, e.g. the clmax, driver and source versions) and key (the rest, e.g. the
 * build options). */
typedef struct clmax_store_name {
    const char *scope, *generation, *key;
} clmax_store_name;

/* Makes the folder dir (created 0700 with its parents when missing) the store's, if it is owned
 * by the user and not writable by group or others; dir NULL or "" leaves the store off without a
 * warning. Otherwise s->dir is "" and s->warning says why. */
void clmax_store_open(clmax_store *s, const char *dir, uint64_t max_bytes);

/* The body of the entry named n (malloc'd, *size bytes), or NULL when there is no valid one; an
 * invalid one is removed. A valid entry's modification time is set to now (its last use). */
unsigned char *clmax_store_load(const clmax_store *s, const clmax_store_name *n, size_t *size);

/* Writes the entry named n atomically, then prunes the folder: entries of n's scope with another
 * generation unused for CLMAX_STORE_STALE_SECONDS, the least recently used entries beyond
 * s->max_bytes, and temporary files left for an hour. Failures only cost the entry. */
void clmax_store_save(const clmax_store *s, const clmax_store_name *n, const void *body,
                      size_t size);

/* The entries' checksum: a 64-bit hash of the bytes. */
uint64_t clmax_store_checksum(const void *data, size_t size);

#endif
