/* The on-disk program binary cache (see cl_cache.c). */
#ifndef CLMAX_CL_CACHE_H
#define CLMAX_CL_CACHE_H

#include "cl_internal.h"

typedef struct clmax_cl_cache_entry {
    char key[2048]; /* everything the binary depends on, stored in the file and compared */
    char path[1024];
} clmax_cl_cache_entry;

/* Fills e for a program built from the nsources strings of sources (lengths in lengths, in the
 * order they are compiled); returns 0 when the cache is disabled or has no usable folder. */
int clmax_cl_cache_key(clmax_cl *cl, size_t nsources, const char *const *sources,
                       const size_t *lengths, const char *options, clmax_cl_cache_entry *e);
/* The cached binary (malloc'd, *size bytes), or NULL when there is no valid entry. */
unsigned char *clmax_cl_cache_load(const clmax_cl_cache_entry *e, size_t *size);
/* Writes the entry atomically; failures are ignored. */
void clmax_cl_cache_store(const clmax_cl_cache_entry *e, const unsigned char *bin, size_t size);

#endif
