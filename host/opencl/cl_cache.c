/* The on-disk program cache: a built program's binary is kept in the context's store (host/store.c,
 * which checks every entry before it is handed to the driver), named by everything the binary
 * depends on: the platform and device (the entry's scope); the clmax, platform, driver and device
 * versions and a hash of every byte of kernel source (its generation: another one is stale); and
 * the build options. The answers of the feature probes (cl_features.c) are kept the same way. A
 * missing or refused entry only costs a build. */
#include "cl_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

unsigned char *clmax_cl_load_fact(clmax_context *ctx, const char *key, size_t *size)
{
    clmax_cl_cache_entry e;
    if (!clmax_cl_cache_name(ctx->cl, 0, NULL, key, &e)) return NULL;
    return clmax_cl_cache_load(ctx->cl, &e, size);
}

void clmax_cl_save_fact(clmax_context *ctx, const char *key, const void *bytes, size_t size)
{
    clmax_cl_cache_entry e;
    if (clmax_cl_cache_name(ctx->cl, 0, NULL, key, &e))
        clmax_cl_cache_save_bytes(ctx->cl, &e, bytes, size);
}
