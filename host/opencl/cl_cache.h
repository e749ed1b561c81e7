/* The on-disk program cache: built program binaries kept in the context's store (see cl_cache.c).
 */
#ifndef CLMAX_CL_CACHE_H
#define CLMAX_CL_CACHE_H

#include "cl_internal.h"

/* What names one program's entry in the store (see store.h). */
typedef struct clmax_cl_cache_entry {
    char scope[640];       /* platform and device names */
    char generation[1024]; /* clmax, platform, driver and device versions, the sources' hashes */
    char key[704];         /* the build options (or a feature probe's name) */
} clmax_cl_cache_entry;

/* Fills e for what is built from the nsources kernel files whose build-time hashes are hashes
 * (in the order they are compiled) and named by key (a program's build options); returns 0 when
 * cl's store is not in use. */
int clmax_cl_cache_name(clmax_cl *cl, size_t nsources, const char *const *hashes, const char *key,
                        clmax_cl_cache_entry *e);
/* The cached binary (malloc'd, *size bytes), or NULL when there is no valid entry. */
unsigned char *clmax_cl_cache_load(clmax_cl *cl, const clmax_cl_cache_entry *e, size_t *size);
/* Keeps size bytes as e's entry; failures only cost a later build. */
void clmax_cl_cache_save_bytes(clmax_cl *cl, const clmax_cl_cache_entry *e, const void *bytes,
                               size_t size);
/* Keeps prog's binary as e's entry. */
void clmax_cl_cache_save(clmax_cl *cl, const clmax_cl_cache_entry *e, cl_program prog);
/* Whether cl's driver keeps its own builds (then a binary is kept only once worth keeping, below):
 * 1, 0, or -1 not known yet (see cl_cache.c); 0 with CLMAX_CACHE_BINARIES=always. */
int clmax_cl_builds_kept(clmax_cl *cl);
/* Finds it out (and keeps it in the store) once family f under options was built, in seconds. */
int clmax_cl_learn_builds_kept(clmax_cl *cl, int f, const char *options, double seconds);
/* Whether e's binary is worth keeping where the driver keeps its builds, now that it was built
 * (again) in seconds: once its builds, in this process and earlier ones, cost more than a binary
 * does (see cl_cache.c). Keeps the sum in cl's store. */
int clmax_cl_cache_worth_keeping(clmax_cl *cl, const clmax_cl_cache_entry *e, double seconds);
/* The backend's load_fact and save_fact (backend.h): a measured fact of the device, such as the
 * cost profile of host/calibrate.c, named by key in the device's scope and generation. */
unsigned char *clmax_cl_load_fact(clmax_context *ctx, const char *key, size_t *size);
void clmax_cl_save_fact(clmax_context *ctx, const char *key, const void *bytes, size_t size);
/* The same, for the backend's own facts (builds_kept above). */
unsigned char *clmax_cl_fact_load(clmax_cl *cl, const char *key, size_t *size);
void clmax_cl_fact_save(clmax_cl *cl, const char *key, const void *bytes, size_t size);

#endif
