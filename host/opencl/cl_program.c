/* Programs: each kernel family (a file of kernels/, embedded at build time) compiled with the
 * common definitions as a program of its own, specialised per type, tie rule, output (indices or
 * Hardmax) and work-group size with -D defines, built on first use of one of its kernels and kept
 * in the context and the store. ArgMin and int32 indices are flags of the launch (KEY_MIN and
 * OUT32 in kernels/common.cl), not programs of their own. A program of every kernel was 12
 * kernels' code generation on a cold call that launches one. */
#include "cl_cache.h"
#include "clock.h"
#include "cl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct clmax_kernel_source {
    const char *name;
    const char *source;
    size_t length;
    const char *hash; /* of the file, at build time (cmake/embed_kernels.cmake) */
};
extern const struct clmax_kernel_source clmax_kernel_sources[];

/* The families: the files each program holds, in order (the common definitions first, then the
 * CPU devices' vector helpers where the family uses them, then the family's kernels). */
static const char *const family_files[CLMAX_CL_NFAMILIES][CLMAX_CL_FAMILY_FILES] = {
    [CLMAX_CL_FAMILY_ROWS_CPU] = {"common", "vec", "rows_cpu"},
    [CLMAX_CL_FAMILY_ROWS_GPU] = {"common", "rows_gpu"},
    [CLMAX_CL_FAMILY_ROWS_SHORT] = {"common", "vec", "rows_short", "slices_short"},
    [CLMAX_CL_FAMILY_STRIDED] = {"common", "vec", "strided"},
    [CLMAX_CL_FAMILY_COMBINE] = {"common", "combine"},
    [CLMAX_CL_FAMILY_UTIL] = {"common", "util"},
};

/* Each kernel's name and family: the table the launches, the prebuild and the store all use. */
static const struct {
    const char *name;
    int family;
} kernel_table[CLMAX_CL_NKERNELS] = {
    [CLMAX_CL_ROWS_VEC] = {"reduce_rows_vec", CLMAX_CL_FAMILY_ROWS_CPU},
    [CLMAX_CL_ROWS_WI] = {"reduce_rows_wi", CLMAX_CL_FAMILY_ROWS_GPU},
    [CLMAX_CL_ROWS_WG] = {"reduce_rows_wg", CLMAX_CL_FAMILY_ROWS_GPU},
    [CLMAX_CL_ROWS_SHORT] = {"reduce_rows_short", CLMAX_CL_FAMILY_ROWS_SHORT},
    [CLMAX_CL_ROWS_PAIRS] = {"reduce_rows_pairs", CLMAX_CL_FAMILY_ROWS_SHORT},
    [CLMAX_CL_SLICES_SHORT] = {"reduce_slices_short", CLMAX_CL_FAMILY_ROWS_SHORT},
    [CLMAX_CL_STRIDED] = {"reduce_strided", CLMAX_CL_FAMILY_STRIDED},
    [CLMAX_CL_STRIDED_BLK] = {"reduce_strided_blk", CLMAX_CL_FAMILY_STRIDED},
    [CLMAX_CL_STRIDED_WIDE] = {"reduce_strided_wide", CLMAX_CL_FAMILY_STRIDED},
    [CLMAX_CL_COMBINE] = {"combine", CLMAX_CL_FAMILY_COMBINE},
    [CLMAX_CL_COMBINE_WG] = {"combine_wg", CLMAX_CL_FAMILY_COMBINE},
    [CLMAX_CL_FILL_ZERO] = {"fill_zero", CLMAX_CL_FAMILY_UTIL},
    [CLMAX_CL_NARROW_MERGE] = {"narrow_merge", CLMAX_CL_FAMILY_UTIL},
    [CLMAX_CL_GATHER_VALUES] = {"gather_values", CLMAX_CL_FAMILY_UTIL},
};

static const struct clmax_kernel_source *find_source(const char *name)
{
    for (const struct clmax_kernel_source *s = clmax_kernel_sources; s->name != NULL; s++)
        if (strcmp(s->name, name) == 0) return s;
    return NULL;
}

static void type_defines(clmax_type t, const char **raw, const char **key, const char **fn)
{
    *key = "uint";
    switch (t) {
    case CLMAX_TYPE_UINT8:
        *raw = "uchar", *fn = "key_u8";
        break;
    case CLMAX_TYPE_INT8:
        *raw = "uchar", *fn = "key_i8";
        break;
    case CLMAX_TYPE_UINT16:
        *raw = "ushort", *fn = "key_u16";
        break;
    case CLMAX_TYPE_INT16:
        *raw = "ushort", *fn = "key_i16";
        break;
    case CLMAX_TYPE_FLOAT16:
        *raw = "ushort", *fn = "key_f16";
        break;
    case CLMAX_TYPE_BFLOAT16:
        *raw = "ushort", *fn = "key_bf16";
        break;
    case CLMAX_TYPE_UINT32:
        *raw = "uint", *fn = "key_u32";
        break;
    case CLMAX_TYPE_INT32:
        *raw = "uint", *fn = "key_i32";
        break;
    case CLMAX_TYPE_FLOAT32:
        *raw = "uint", *fn = "key_f32";
        break;
    case CLMAX_TYPE_UINT64:
        *raw = "ulong", *key = "ulong", *fn = "key_u64";
        break;
    case CLMAX_TYPE_INT64:
        *raw = "ulong", *key = "ulong", *fn = "key_i64";
        break;
    default:
        *raw = "ulong", *key = "ulong", *fn = "key_f64";
        break;
    }
}

static void release_one(clmax_cl_program *p)
{
    for (int i = 0; i < CLMAX_CL_NKERNELS; i++)
        if (p->kernel[i]) CL(ReleaseKernel)(p->kernel[i]);
    for (int f = 0; f < CLMAX_CL_NFAMILIES; f++)
        if (p->family[f]) CL(ReleaseProgram)(p->family[f]);
    memset(p, 0, sizeof *p);
}

void clmax_cl_release_programs(clmax_cl *cl)
{
    for (int i = 0; i < cl->nprograms; i++) {
        release_one(cl->programs[i]);
        free(cl->programs[i]);
    }
    free(cl->programs);
    cl->programs = NULL;
    cl->nprograms = cl->cap_programs = 0;
}

static clmax_status build_failure(clmax_cl *cl, cl_program prog, cl_int err, const char *options)
{
    size_t len = 0;
    CL(GetProgramBuildInfo)(prog, cl->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
    char *log = malloc(len + 1);
    if (log != NULL) {
        log[0] = '\0';
        CL(GetProgramBuildInfo)(prog, cl->device, CL_PROGRAM_BUILD_LOG, len, log, NULL);
        log[len] = '\0';
    }
    clmax_status st = clmax_fail(
        CLMAX_ERROR_BUILD, "clBuildProgram failed with %s (%d), options \"%s\"; log:\n%s",
        clmax_cl_error_name(err), (int)err, options, log ? log : "(unavailable)");
    free(log);
    return st;
}

/* The program built from a valid cache entry, or NULL (a stale or broken entry is ignored). */
static cl_program program_from_cache(clmax_cl *cl, const clmax_cl_cache_entry *ce,
                                     const char *options)
{
    size_t size = 0;
    unsigned char *bin = clmax_cl_cache_load(cl, ce, &size);
    if (bin == NULL) return NULL;
    const unsigned char *bp = bin;
    cl_int status = CL_SUCCESS, err;
    cl_program prog =
        CL(CreateProgramWithBinary)(cl->context, 1, &cl->device, &size, &bp, &status, &err);
    free(bin);
    if (prog == NULL) return NULL;
    if (err != CL_SUCCESS || status != CL_SUCCESS ||
        clmax_cl_build(prog, cl->device, options) != CL_SUCCESS) {
        CL(ReleaseProgram)(prog);
        return NULL;
    }
    return prog;
}

static unsigned long one_bits(clmax_type t)
{
    switch (t) {
    case CLMAX_TYPE_FLOAT16:
        return 0x3C00ul;
    case CLMAX_TYPE_BFLOAT16:
        return 0x3F80ul;
    case CLMAX_TYPE_FLOAT32:
        return 0x3F800000ul;
    default:
        return 0x3FF0000000000000ul;
    }
}

clmax_status clmax_cl_get_program(clmax_cl *cl, clmax_type type, int last, size_t wg,
                                  clmax_out_mode mode, clmax_cl_program **out)
{
    const char *raw, *key, *fn;
    type_defines(type, &raw, &key, &fn);
    size_t es = clmax_type_size(type);
    const char *all = es == 1   ? "0xFFu"
                      : es == 2 ? "0xFFFFu"
                      : es == 4 ? "0xFFFFFFFFu"
                                : "0xFFFFFFFFFFFFFFFFul";
    clmax_cl_info(cl); /* the probes (loops, features), if no plan has run them yet */
    if (cl->loops_wrong)
        return clmax_fail(CLMAX_ERROR_OPENCL,
                          "the device's loops gave a wrong answer (a generator stepped in a loop "
                          "ended in no state it can reach, or stopped within a few thousand "
                          "steps): it is not used");
    int prefetch = cl->info.native_cpu && cl->features[CLMAX_CL_PREFETCH];
    int nt = cl->info.is_cpu ? 1 + (cl->info.native_cpu && cl->features[CLMAX_CL_NT_STORE]) : 0;
    char options[sizeof((clmax_cl_program *)0)->options];
    int n = snprintf(
        options, sizeof options,
        "-DRAW_T=%s -DKEY_T=%s -DKEY64=%d -DKEYFN=%s -DLAST=%d -DWG=%zu -DOUT_MODE=%d -DLB=%d "
        "-DKEY_ALL=%s -DVW=%d -DSR=%d -DSHORT_N=%d -DPF_BYTES=%d -DNT=%d -DES=%zu %s %s",
        raw, key, strcmp(key, "ulong") == 0, fn, last ? 1 : 0, wg,
        mode == CLMAX_OUT_HARDMAX ? 2 : 0, (int)clmax_lane_block(es), all, clmax_vector_width(es),
        CLMAX_SHORT_ROWS, CLMAX_SHORT_N, prefetch ? CLMAX_CPU_PREFETCH : 0, nt, es,
        prefetch ? clmax_cl_feature_options(cl, CLMAX_CL_PREFETCH) : "",
        nt == 2 ? clmax_cl_feature_options(cl, CLMAX_CL_NT_STORE) : "");
    if (mode == CLMAX_OUT_HARDMAX)
        snprintf(options + n, sizeof options - (size_t)n, " -DONE_BITS=0x%lXul", one_bits(type));
    for (int i = 0; i < cl->nprograms; i++) {
        if (strcmp(cl->programs[i]->options, options) == 0) {
            *out = cl->programs[i];
            return CLMAX_OK;
        }
    }
    if (cl->nprograms == cl->cap_programs) {
        int cap = cl->cap_programs ? 2 * cl->cap_programs : 16;
        clmax_cl_program **grown = realloc(cl->programs, (size_t)cap * sizeof *grown);
        if (grown == NULL) return clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "program cache");
        cl->programs = grown;
        cl->cap_programs = cap;
    }

    clmax_cl_program *kept = calloc(1, sizeof *kept);
    if (kept == NULL) return clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "program cache");
    snprintf(kept->options, sizeof kept->options, "%s", options);
    cl->programs[cl->nprograms++] = kept;
    *out = kept;
    return CLMAX_OK;
}

/* Family f's files: their texts, lengths and (hashes non-NULL) build-time hashes. */
static clmax_status family_sources(int f, const char **texts, size_t *lens, const char **hashes,
                                   cl_uint *nfiles)
{
    *nfiles = 0;
    for (int i = 0; i < CLMAX_CL_FAMILY_FILES && family_files[f][i] != NULL; i++) {
        const struct clmax_kernel_source *src = find_source(family_files[f][i]);
        if (src == NULL)
            return clmax_fail(CLMAX_ERROR_INTERNAL, "kernel source %s.cl not embedded",
                              family_files[f][i]);
        texts[i] = src->source;
        lens[i] = src->length;
        if (hashes != NULL) hashes[i] = src->hash;
        ++*nfiles;
    }
    return CLMAX_OK;
}

clmax_status clmax_cl_family_sources(int f, const char **texts, size_t *lens, cl_uint *nfiles)
{
    return family_sources(f, texts, lens, NULL, nfiles);
}

/* Builds family f of p (from the store where it holds it) and makes its kernels. */
static clmax_status build_family(clmax_cl *cl, clmax_cl_program *p, int f)
{
    const char *texts[CLMAX_CL_FAMILY_FILES], *hashes[CLMAX_CL_FAMILY_FILES];
    size_t lens[CLMAX_CL_FAMILY_FILES];
    cl_uint nfiles;
    clmax_status st = family_sources(f, texts, lens, hashes, &nfiles);
    if (st != CLMAX_OK) return st;
    cl_int err;
    clmax_cl_cache_entry ce;
    int cached = clmax_cl_cache_name(cl, nfiles, hashes, p->options, &ce);
    int kept = cached ? clmax_cl_builds_kept(cl) : 0;
    /* a binary may be kept even where the driver keeps its builds (clmax_cl_cache_worth_keeping) */
    cl_program prog = cached ? program_from_cache(cl, &ce, p->options) : NULL;
    if (prog == NULL) {
        double t0 = clmax_seconds();
        prog = CL(CreateProgramWithSource)(cl->context, nfiles, texts, lens, &err);
        if (prog == NULL) return clmax_cl_fail("clCreateProgramWithSource", err);
        err = clmax_cl_build(prog, cl->device, p->options);
        if (err != CL_SUCCESS) {
            st = build_failure(cl, prog, err, p->options);
            CL(ReleaseProgram)(prog);
            return st;
        }
        double seconds = clmax_seconds() - t0;
        if (cached && kept == -1) kept = clmax_cl_learn_builds_kept(cl, f, p->options, seconds);
        if (cached && (kept == 0 || clmax_cl_cache_worth_keeping(cl, &ce, seconds)))
            clmax_cl_cache_save(cl, &ce, prog);
        cl->ncompiled++;
    }
    cl_kernel made[CLMAX_CL_NKERNELS] = {NULL};
    for (int i = 0; i < CLMAX_CL_NKERNELS && st == CLMAX_OK; i++) {
        if (kernel_table[i].family != f) continue;
        made[i] = CL(CreateKernel)(prog, kernel_table[i].name, &err);
        if (made[i] == NULL) st = clmax_cl_fail("clCreateKernel", err);
    }
    if (st != CLMAX_OK) {
        for (int i = 0; i < CLMAX_CL_NKERNELS; i++)
            if (made[i]) CL(ReleaseKernel)(made[i]);
        CL(ReleaseProgram)(prog);
        return st;
    }
    for (int i = 0; i < CLMAX_CL_NKERNELS; i++)
        if (made[i]) p->kernel[i] = made[i];
    p->family[f] = prog;
    return CLMAX_OK;
}

clmax_status clmax_cl_kernel(clmax_cl *cl, clmax_cl_program *p, clmax_cl_kernel_id id,
                             cl_kernel *out)
{
    int f = kernel_table[id].family;
    clmax_status st = p->family[f] != NULL ? CLMAX_OK : build_family(cl, p, f);
    *out = st == CLMAX_OK ? p->kernel[id] : NULL;
    return st;
}

clmax_status clmax_cl_family(clmax_cl *cl, clmax_cl_program *p, int f, int *how)
{
    *how = 0;
    if (p->family[f] != NULL) return CLMAX_OK;
    size_t before = cl->ncompiled;
    clmax_status st = build_family(cl, p, f);
    *how = cl->ncompiled != before ? 1 : 2;
    return st;
}
