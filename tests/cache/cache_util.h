/* Helpers of the program cache tests (test_cache_damage.c, test_cache_folder.c): fresh cache
 * folders, runs of ArgMax on OpenCL checked against the CPU path, and entries read, checked and
 * forged in the store's format (host/store.h). */
#ifndef CLMAX_TESTS_CACHE_UTIL_H
#define CLMAX_TESTS_CACHE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "common.h"

#define ENTRY_HEAD 32 /* magic and version, K, B */

/* A fresh folder under /tmp (mkdtemp, 0700), removed by cache_cleanup. */
const char *cache_tmpdir(void);
/* A fresh folder made the cache through CLMAX_CACHE_DIR (CLMAX_CACHE_MAX_BYTES unset), which keeps
 * every program built (CLMAX_CACHE_BINARIES=always). */
const char *cache_fresh(void);
/* Removes every folder cache_tmpdir made: the suites' .fini, and at exit. */
void cache_cleanup(void);

/* An OpenCL context with options o (NULL: defaults); skips without a device unless
 * CLMAX_REQUIRE_OPENCL=1. */
clmax_context *cache_open(const clmax_context_options *o);
/* ArgMax of a small input of type (4 rows of 37, along the rows) on ctx into y; no checks. */
clmax_status cache_argmax(clmax_context *ctx, clmax_type type, int64_t y[4]);
/* ArgMax of a small input of type (float32 or int32) on ctx, compared bit for bit with the CPU
 * path. */
void cache_check(clmax_context *ctx, clmax_type type);
/* Opens a context, checks type's ArgMax, checks that it has no warning, destroys it. */
void cache_run(clmax_type type);
/* cache_run with the cache in dir, until a second run keeps no new program: a run whose feature
 * probe came to no answer (a probe child timed out under load: host/opencl/cl_features.c) builds
 * its program without the feature, and the next run, asking again, builds and keeps another, so
 * an entry seeded so is not the one later runs read. */
void cache_seed(const char *dir, clmax_type type);

/* The names of the program entries (*.bin; not the feature probes' answers, nor the builds'
 * costs) in dir, sorted, into names[max][80]; returns how many. */
int cache_entries(const char *dir, char (*names)[80], int max);
/* The names of the entries in dir that count what a program's builds have cost (host/opencl/
 * cl_cache.c), into names (at most max); their number. */
int cache_rent_entries(const char *dir, char (*names)[80], int max);
/* The path of the entry in dir whose key text's last line is last (a feature probe's answer,
 * e.g. "feature=builds_kept"); fails unless there is exactly one. */
void cache_feature_entry(const char *dir, const char *last, char *path, size_t size);
/* dir's only entry's path into path (fails the test unless there is exactly one). */
void cache_one_entry(const char *dir, char *path, size_t size);
/* The path of the entry in dir that is not named skip (fails unless there is exactly one). */
void cache_other_entry(const char *dir, const char *skip, char *path, size_t size);
/* Whether dir holds nothing but the names listed (NULL-ended) and the feature probes' answers;
 * logs what else it holds. */
int dir_holds_only(const char *dir, const char *const *names);

unsigned char *file_read(const char *path, size_t *size);
/* Replaces path's content with data (a new 0600 file renamed into place). */
void file_replace(const char *path, const void *data, size_t size);
/* Writes data at offset into the existing file (no truncation). */
void file_patch(const char *path, size_t offset, const void *data, size_t size);
void file_set_mtime(const char *path, time_t when);
struct stat file_lstat(const char *path);

/* Fails the test unless data is a whole valid entry (magic, version 1, sizes, checksum). Returns
 * its key text (pointing into data) and its length. */
const char *entry_check(const unsigned char *data, size_t size, size_t *key_len);
/* A valid entry of this key text and body (malloc'd, *size bytes). */
unsigned char *entry_forge(const char *key, size_t key_len, const void *body, size_t body_len,
                           size_t *size);
/* Recomputes the checksum at the end of an entry of size bytes (after a patch of its header). */
void entry_reseal(unsigned char *data, size_t size);
uint64_t get_u64(const unsigned char *p);
void put_u64(unsigned char *p, uint64_t v);

/* An open descriptor on the entry at path, kept by the caller across a run so that its inode
 * number cannot be reused: after the run, entry_replaced tells whether path is another file. */
int entry_hold(const char *path);
/* Fails unless path is now a valid entry of the user's own (0600-like: no group or other write),
 * another file than the one held by fd, with the key text key (NULL: any). Closes fd. */
void entry_replaced(const char *path, int fd, const char *key, size_t key_len);
/* Fails unless the next context loads the entry at path rather than rewriting it: the same
 * inode and content, and a modification time moved to now. */
void entry_loaded_next(const char *path, clmax_type type);

#endif
