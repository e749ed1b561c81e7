/* The on-disk program cache: a built program's binary is kept in the context's store (host/store.c,
 * which checks every entry before it is handed to the driver), named by everything the binary
 * depends on: the platform and device (the entry's scope); the clmax, platform, driver and device
 * versions and a hash of every byte of kernel source (its generation: another one is stale); and
 * the build options. The answers of the feature probes (cl_features.c) are kept the same way. A
 * missing or refused entry only costs a build. */
#include "cl_cache.h"
#include "clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void append_info(char *out, size_t size, const char *label, const char *value)
{
    size_t len = strlen(out);
    if (len < size) snprintf(out + len, size - len, "%s=%s;", label, value);
}

static void append_platform(char *out, size_t size, cl_platform_id p, cl_platform_info what,
                            const char *label)
{
    char info[256] = "";
    CL(GetPlatformInfo)(p, what, sizeof info - 1, info, NULL);
    info[sizeof info - 1] = '\0';
    append_info(out, size, label, info);
}

static void append_device(char *out, size_t size, cl_device_id d, cl_device_info what,
                          const char *label)
{
    char info[256] = "";
    CL(GetDeviceInfo)(d, what, sizeof info - 1, info, NULL);
    info[sizeof info - 1] = '\0';
    append_info(out, size, label, info);
}

int clmax_cl_cache_name(clmax_cl *cl, size_t nsources, const char *const *hashes, const char *key,
                        clmax_cl_cache_entry *e)
{
    if (cl->store == NULL || cl->store->dir[0] == '\0') return 0;
    e->scope[0] = e->generation[0] = '\0';
    append_platform(e->scope, sizeof e->scope, cl->platform, CL_PLATFORM_NAME, "platform");
    append_device(e->scope, sizeof e->scope, cl->device, CL_DEVICE_NAME, "device");
    append_info(e->generation, sizeof e->generation, "clmax", clmax_version_string());
    append_platform(e->generation, sizeof e->generation, cl->platform, CL_PLATFORM_VERSION,
                    "platform version");
    append_device(e->generation, sizeof e->generation, cl->device, CL_DRIVER_VERSION, "driver");
    append_device(e->generation, sizeof e->generation, cl->device, CL_DEVICE_VERSION,
                  "device version");
    for (size_t i = 0; i < nsources; i++) /* every file the program is built from, in order */
        append_info(e->generation, sizeof e->generation, "source", hashes[i]);
    return snprintf(e->key, sizeof e->key, "%s", key) < (int)sizeof e->key;
}

static clmax_store_name name_of(const clmax_cl_cache_entry *e)
{
    clmax_store_name n = {e->scope, e->generation, e->key};
    return n;
}

unsigned char *clmax_cl_cache_load(clmax_cl *cl, const clmax_cl_cache_entry *e, size_t *size)
{
    clmax_store_name n = name_of(e);
    return clmax_store_load(cl->store, &n, size);
}

void clmax_cl_cache_save_bytes(clmax_cl *cl, const clmax_cl_cache_entry *e, const void *bytes,
                               size_t size)
{
    clmax_store_name n = name_of(e);
    clmax_store_save(cl->store, &n, bytes, size);
}

void clmax_cl_cache_save(clmax_cl *cl, const clmax_cl_cache_entry *e, cl_program prog)
{
    size_t size = 0;
    if (CL(GetProgramInfo)(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
        size == 0)
        return;
    unsigned char *bin = malloc(size);
    if (bin == NULL) return;
    if (CL(GetProgramInfo)(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS)
        clmax_cl_cache_save_bytes(cl, e, bin, size);
    free(bin);
}

/* Whether the driver keeps its own builds, so that a later process's build of the same source
 * and options is a lookup: then the store keeps a binary only once the program's builds have
 * cost more than it (clmax_cl_cache_worth_keeping below). PoCL's kernel cache is such, and
 * there a binary cost more than the build it saves: clGetProgramInfo(CL_PROGRAM_BINARIES)
 * generates every kernel's work-group code of the program, 2-4 s a family against 0.4-1.4 s for
 * the build, and a first call paid it (8.2-8.9 s, where 3.3-4.0 s without it).
 * Learned from the driver, not assumed from its name, once per driver (a fact of the store): the
 * program just built is built again, and a second build four or more times as fast as the first
 * says the driver kept it (PoCL: 0.4-1.4 s, then 0.05-0.08). Where it is not, the first build may
 * itself have been the driver's (an earlier process's, the store being new), so the question is
 * asked again of a build that cannot have been: the program under a define no build has used,
 * built twice. Small sources separate less well (PoCL's lookup alone takes 0.04-0.06 s; rusticl
 * builds a tiny kernel again 7 times as fast, a family 1.5-2 times). CLMAX_CACHE_BINARIES=always
 * keeps binaries whatever the driver does. 1 kept, 0 not, -1 not known yet. */
#define BUILDS_KEPT_FACT "feature=builds_kept" /* kept beside the feature probes' answers */

int clmax_cl_builds_kept(clmax_cl *cl)
{
    if (cl->store->binaries_always) return 0;
    if (cl->builds_kept != -1) return cl->builds_kept;
    size_t size = 0;
    unsigned char *fact = clmax_cl_fact_load(cl, BUILDS_KEPT_FACT, &size);
    if (fact != NULL && size == 1 && fact[0] <= 1) cl->builds_kept = fact[0];
    free(fact);
    return cl->builds_kept;
}

/* Seconds to build family f under options, or a negative number if it failed. */
static double timed_build(clmax_cl *cl, int f, const char *options)
{
    const char *texts[CLMAX_CL_FAMILY_FILES];
    size_t lens[CLMAX_CL_FAMILY_FILES];
    cl_uint nfiles;
    if (clmax_cl_family_sources(f, texts, lens, &nfiles) != CLMAX_OK) return -1;
    double t0 = clmax_seconds();
    cl_int err;
    cl_program prog = CL(CreateProgramWithSource)(cl->context, nfiles, texts, lens, &err);
    if (prog == NULL) return -1;
    err = clmax_cl_build(prog, cl->device, options);
    double t = clmax_seconds() - t0;
    CL(ReleaseProgram)(prog);
    return err == CL_SUCCESS ? t : -1;
}

int clmax_cl_learn_builds_kept(clmax_cl *cl, int f, const char *options, double seconds)
{
    double again = timed_build(cl, f, options);
    if (again >= 0 && 4 * again > seconds) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        char fresh[sizeof((clmax_cl_program *)0)->options + 64];
        snprintf(fresh, sizeof fresh, "%s -DCLMAX_BUILD_PROBE=%lld%09ld%ld", options,
                 (long long)now.tv_sec, now.tv_nsec, (long)getpid());
        seconds = timed_build(cl, f, fresh);
        again = seconds < 0 ? -1 : timed_build(cl, f, fresh);
    }
    if (again < 0) return 0; /* not known: binaries kept, as without the probe */
    unsigned char kept = 4 * again <= seconds;
    cl->builds_kept = kept;
    clmax_cl_fact_save(cl, BUILDS_KEPT_FACT, &kept, 1);
    return kept;
}

/* Where the driver keeps its builds, each process that needs a program pays the driver's lookup
 * (PoCL: 0.05-0.08 s a program, where a kept binary loads in 0.02-0.03), and the binary once costs
 * 2-4 s. So the binary is bought as skis are after renting: the store keeps, beside the program,
 * what its builds have cost so far in every process (the first build included), and once that
 * reaches RENT_LIMIT seconds (PoCL: a first build of 0.4-1.4 s, then 10-25 lookups) the binary is
 * kept too. A caller that needs a program a few times never pays for its binary. */
#define RENT_LIMIT 2.0

int clmax_cl_cache_worth_keeping(clmax_cl *cl, const clmax_cl_cache_entry *e, double seconds)
{
    clmax_cl_cache_entry rent = *e;
    if (snprintf(rent.key, sizeof rent.key, "rent;%s", e->key) >= (int)sizeof rent.key) return 1;
    double paid = 0;
    size_t size = 0;
    unsigned char *bytes = clmax_cl_cache_load(cl, &rent, &size);
    if (bytes != NULL && size == sizeof paid) memcpy(&paid, bytes, sizeof paid);
    free(bytes);
    if (!(paid >= 0 && paid < RENT_LIMIT)) paid = 0; /* NaN or out of range: start again */
    paid += seconds;
    if (paid >= RENT_LIMIT) return 1;
    clmax_cl_cache_save_bytes(cl, &rent, &paid, sizeof paid);
    return 0;
}

unsigned char *clmax_cl_fact_load(clmax_cl *cl, const char *key, size_t *size)
{
    clmax_cl_cache_entry e;
    if (!clmax_cl_cache_name(cl, 0, NULL, key, &e)) return NULL;
    return clmax_cl_cache_load(cl, &e, size);
}

void clmax_cl_fact_save(clmax_cl *cl, const char *key, const void *bytes, size_t size)
{
    clmax_cl_cache_entry e;
    if (clmax_cl_cache_name(cl, 0, NULL, key, &e)) clmax_cl_cache_save_bytes(cl, &e, bytes, size);
}

unsigned char *clmax_cl_load_fact(clmax_context *ctx, const char *key, size_t *size)
{
    return clmax_cl_fact_load(ctx->cl, key, size);
}

void clmax_cl_save_fact(clmax_context *ctx, const char *key, const void *bytes, size_t size)
{
    clmax_cl_fact_save(ctx->cl, key, bytes, size);
}
