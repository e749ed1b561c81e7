/* Context options: their defaults and the CLMAX_* environment, shared by clmax_context_create
 * (host/context.c) and clmax_context_create_from_cl (host/opencl/cl_enqueue.c). */
#include "options.h"
#include "status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

void clmax_context_options_init(clmax_context_options *options)
{
    if (options == NULL) return;
    memset(options, 0, sizeof *options);
    options->backend = CLMAX_BACKEND_AUTO;
    options->strategy = CLMAX_STRATEGY_AUTO;
}

int clmax_online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > 256 ? 256 : (int)n);
}

static const char *env(const clmax_context_options *o, const char *name)
{
    if (o->ignore_environment) return NULL;
    const char *v = getenv(name);
    return (v != NULL && v[0] != '\0') ? v : NULL;
}

/* The index in names (a NULL-terminated list) of the value v, ignoring case, or -1. */
static int choice(const char *v, const char *const *names)
{
    for (int i = 0; names[i] != NULL; i++)
        if (strcasecmp(v, names[i]) == 0) return i;
    return -1;
}

clmax_status clmax_parse_env(const clmax_context_options *o, clmax_backend *backend,
                             uint64_t *chunk, clmax_strategy *strategy, clmax_plan_as *plan_as,
                             int *avx512, clmax_auto_path *auto_path)
{
    /* In the order of each enum's values. */
    static const char *const backends[] = {"auto", "opencl", "cpu", NULL};
    static const char *const strategies[] = {"auto", "rows", "strided", "split", NULL};
    static const char *const plans[] = {"auto", "cpu", "gpu", NULL};
    static const char *const isa[] = {"auto", "off", "full", NULL};
    static const char *const paths[] = {"model", "cpu", "opencl", NULL};
    const char *v;
    int i;
    if (backend != NULL && *backend == CLMAX_BACKEND_AUTO &&
        (v = env(o, "CLMAX_BACKEND")) != NULL) {
        if ((i = choice(v, backends)) < 0)
            return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT,
                              "CLMAX_BACKEND=%s: expected auto, opencl or cpu", v);
        *backend = (clmax_backend)i;
    }
    if (*chunk == 0 && (v = env(o, "CLMAX_MAX_CHUNK_BYTES")) != NULL) {
        char *end;
        errno = 0;
        unsigned long long c = strtoull(v, &end, 10);
        if (errno != 0 || *end != '\0' || c == 0 || v[0] == '-')
            return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT,
                              "CLMAX_MAX_CHUNK_BYTES=%s: expected a positive byte count", v);
        *chunk = c;
    }
    if (*strategy == CLMAX_STRATEGY_AUTO && (v = env(o, "CLMAX_STRATEGY")) != NULL) {
        if ((i = choice(v, strategies)) < 0)
            return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT,
                              "CLMAX_STRATEGY=%s: expected auto, rows, strided or split", v);
        *strategy = (clmax_strategy)i;
    }
    *plan_as = CLMAX_PLAN_AS_DEVICE;
    if ((v = env(o, "CLMAX_PLAN")) != NULL) {
        if ((i = choice(v, plans)) < 0)
            return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT,
                              "CLMAX_PLAN=%s: expected auto, cpu or gpu", v);
        *plan_as = (clmax_plan_as)i;
    }
    *avx512 = 0;
    if ((v = env(o, "CLMAX_CPU_AVX512")) != NULL) {
        if ((i = choice(v, isa)) < 0)
            return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT,
                              "CLMAX_CPU_AVX512=%s: expected auto, off or full", v);
        *avx512 = i;
    }
    if (auto_path != NULL) {
        *auto_path = CLMAX_AUTO_PATH_MODEL;
        if ((v = env(o, "CLMAX_AUTO_PATH")) != NULL) {
            if ((i = choice(v, paths)) < 0)
                return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT,
                                  "CLMAX_AUTO_PATH=%s: expected model, cpu or opencl", v);
            *auto_path = (clmax_auto_path)i;
        }
    }
    return CLMAX_OK;
}

const char *clmax_device_selector(const clmax_context_options *o)
{
    return o->device != NULL ? o->device : env(o, "CLMAX_DEVICE");
}

clmax_status clmax_cache_settings_of(const clmax_context_options *o, clmax_cache_settings *c)
{
    c->binaries_always = 0;
    const char *b = env(o, "CLMAX_CACHE_BINARIES");
    if (b != NULL && strcasecmp(b, "auto") != 0) {
        if (strcasecmp(b, "always") != 0)
            return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT,
                              "CLMAX_CACHE_BINARIES=%s: expected auto or always", b);
        c->binaries_always = 1;
    }
    c->max_bytes = o->cache_max_bytes ? o->cache_max_bytes : CLMAX_STORE_DEFAULT_MAX_BYTES;
    const char *v = o->cache_max_bytes ? NULL : env(o, "CLMAX_CACHE_MAX_BYTES");
    if (v == NULL) return CLMAX_OK;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    int shift = 0;
    if (end != v && *end != '\0' && end[1] == '\0') {
        switch (*end++) {
        case 'K':
        case 'k':
            shift = 10;
            break;
        case 'M':
        case 'm':
            shift = 20;
            break;
        case 'G':
        case 'g':
            shift = 30;
            break;
        default:
            shift = -1;
        }
    }
    if (errno != 0 || *end != '\0' || n == 0 || v[0] == '-' || end == v || shift < 0 ||
        n > (UINT64_MAX >> shift))
        return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT,
                          "CLMAX_CACHE_MAX_BYTES=%s: expected a positive byte count, optionally "
                          "with K, M or G",
                          v);
    c->max_bytes = (uint64_t)n << shift;
    return CLMAX_OK;
}

void clmax_open_store(clmax_context *ctx, const clmax_context_options *o,
                      const clmax_cache_settings *c)
{
    char dir[sizeof ctx->store.dir + 16];
    const char *d = o->cache_dir != NULL ? o->cache_dir : env(o, "CLMAX_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    dir[0] = '\0';
    if (d != NULL) {
        if (strcasecmp(d, "off") != 0 && strcmp(d, "0") != 0) snprintf(dir, sizeof dir, "%s", d);
    } else if (xdg != NULL && xdg[0] == '/') {
        snprintf(dir, sizeof dir, "%s/clmax", xdg);
    } else if (home != NULL && home[0] == '/') {
        snprintf(dir, sizeof dir, "%s/.cache/clmax", home);
    }
    clmax_store_open(&ctx->store, dir, c->max_bytes);
    ctx->store.binaries_always = c->binaries_always;
    size_t len = strlen(ctx->warnings);
    snprintf(ctx->warnings + len, sizeof ctx->warnings - len, "%s", ctx->store.warning);
}
