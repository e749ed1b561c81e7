/* Context options: their defaults and the CLMAX_* environment (host/options.c), read by both ways
 * of making a context (host/context.c, host/opencl/cl_enqueue.c). */
#ifndef CLMAX_OPTIONS_H
#define CLMAX_OPTIONS_H

#include "backend.h"
#include "plan.h"

/* Applies the CLMAX_* environment (unless o->ignore_environment) to the settings left at their
 * defaults; backend may be NULL where the backend is not chosen from the environment. *plan_as
 * and *avx512 have no option: CLMAX_PLAN_AS_DEVICE and 0 unless CLMAX_PLAN and CLMAX_CPU_AVX512
 * say otherwise (*avx512: 0 auto, 1 off, 2 full); *auto_path (NULL: not asked) is
 * CLMAX_AUTO_PATH_MODEL unless CLMAX_AUTO_PATH says otherwise. */
clmax_status clmax_parse_env(const clmax_context_options *o, clmax_backend *backend,
                             uint64_t *chunk, clmax_strategy *strategy, clmax_plan_as *plan_as,
                             int *avx512, clmax_auto_path *auto_path);

/* The program cache's settings. */
typedef struct clmax_cache_settings {
    uint64_t max_bytes;  /* o->cache_max_bytes, else CLMAX_CACHE_MAX_BYTES, else
                            CLMAX_STORE_DEFAULT_MAX_BYTES */
    int binaries_always; /* CLMAX_CACHE_BINARIES=always (no option): see store.h */
} clmax_cache_settings;

/* Reads them. Fails on a malformed CLMAX_CACHE_MAX_BYTES or CLMAX_CACHE_BINARIES. */
clmax_status clmax_cache_settings_of(const clmax_context_options *o, clmax_cache_settings *c);

/* Opens ctx->store in the cache folder (o->cache_dir, else CLMAX_CACHE_DIR, else
 * $XDG_CACHE_HOME/clmax, else ~/.cache/clmax; "off": none) with the settings c, and adds the
 * store's warning, if any, to ctx->warnings. */
void clmax_open_store(clmax_context *ctx, const clmax_context_options *o,
                      const clmax_cache_settings *c);

/* The device selector: o->device, else CLMAX_DEVICE (unless o->ignore_environment), else NULL. */
const char *clmax_device_selector(const clmax_context_options *o);

/* The default of num_threads: the cores online, 1 to 256. */
int clmax_online_cores(void);

#endif
