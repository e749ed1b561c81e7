/* Programs: the kernel files (kernels/, embedded at build time) compiled together as one
 * program, specialised per type, tie rule and work-group size with -D defines, built on first use
 * and cached in the context. */
#include "cl_cache.h"
#include "cl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct clmax_kernel_source {
    const char *name;
    const char *source;
    size_t length;
};
extern const struct clmax_kernel_source clmax_kernel_sources[];

/* The files of a program, in order: the common definitions, the CPU devices' vector helpers, then
 * the kernel families. */
static const char *const program_files[] = {"common",     "vec",     "rows_cpu", "rows_gpu",
                                            "rows_short", "strided", "combine",  "util"};
#define NFILES (sizeof program_files / sizeof program_files[0])

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
    if (p->rows_wi) CL(ReleaseKernel)(p->rows_wi);
    if (p->rows_wg) CL(ReleaseKernel)(p->rows_wg);
    if (p->strided) CL(ReleaseKernel)(p->strided);
    if (p->combine) CL(ReleaseKernel)(p->combine);
    if (p->combine_wg) CL(ReleaseKernel)(p->combine_wg);
    if (p->rows_vec) CL(ReleaseKernel)(p->rows_vec);
    if (p->strided_blk) CL(ReleaseKernel)(p->strided_blk);
    if (p->rows_short) CL(ReleaseKernel)(p->rows_short);
    if (p->fill_zero) CL(ReleaseKernel)(p->fill_zero);
    if (p->narrow_merge) CL(ReleaseKernel)(p->narrow_merge);
    if (p->strided_wide) CL(ReleaseKernel)(p->strided_wide);
    if (p->gather_values) CL(ReleaseKernel)(p->gather_values);
    if (p->program) CL(ReleaseProgram)(p->program);
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

clmax_status clmax_cl_get_program(clmax_cl *cl, clmax_type type, int last, int min, size_t wg,
                                  clmax_out_mode mode, const clmax_cl_program **out)
{
    const char *raw, *key, *fn;
    type_defines(type, &raw, &key, &fn);
    int is_float = type == CLMAX_TYPE_FLOAT16 || type == CLMAX_TYPE_BFLOAT16 ||
                   type == CLMAX_TYPE_FLOAT32 || type == CLMAX_TYPE_FLOAT64;
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
        "-DMIN=%d -DISFLOAT=%d -DKEY_ALL=%s -DVW=%d -DSR=%d -DSHORT_N=%d -DPF_BYTES=%d -DNT=%d "
        "-DES=%zu %s %s",
        raw, key, strcmp(key, "ulong") == 0, fn, last ? 1 : 0, wg, (int)mode,
        (int)clmax_lane_block(es), min ? 1 : 0, is_float, all,
        es <= 2   ? 16
        : es == 4 ? 8
                  : 4,
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

    const char *texts[NFILES];
    size_t lens[NFILES];
    for (size_t i = 0; i < NFILES; i++) {
        const struct clmax_kernel_source *src = find_source(program_files[i]);
        if (src == NULL)
            return clmax_fail(CLMAX_ERROR_INTERNAL, "kernel source %s.cl not embedded",
                              program_files[i]);
        texts[i] = src->source;
        lens[i] = src->length;
    }
    clmax_cl_program p;
    memset(&p, 0, sizeof p);
    snprintf(p.options, sizeof p.options, "%s", options);
    cl_int err;
    clmax_status st = CLMAX_OK;
    clmax_cl_cache_entry ce;
    int cached = clmax_cl_cache_name(cl, NFILES, texts, lens, options, &ce);
    if (cached) p.program = program_from_cache(cl, &ce, options);
    if (p.program == NULL) {
        p.program = CL(CreateProgramWithSource)(cl->context, NFILES, texts, lens, &err);
        if (p.program == NULL) {
            st = clmax_cl_fail("clCreateProgramWithSource", err);
            goto fail;
        }
        err = clmax_cl_build(p.program, cl->device, options);
        if (err != CL_SUCCESS) {
            st = build_failure(cl, p.program, err, options);
            goto fail;
        }
        if (cached) clmax_cl_cache_save(cl, &ce, p.program);
        cl->ncompiled++;
    }
    struct {
        const char *name;
        cl_kernel *k;
    } ks[] = {{"reduce_rows_wi", &p.rows_wi},       {"reduce_rows_wg", &p.rows_wg},
              {"reduce_strided", &p.strided},       {"combine", &p.combine},
              {"reduce_rows_vec", &p.rows_vec},     {"reduce_strided_blk", &p.strided_blk},
              {"reduce_rows_short", &p.rows_short}, {"fill_zero", &p.fill_zero},
              {"narrow_merge", &p.narrow_merge},    {"reduce_strided_wide", &p.strided_wide},
              {"combine_wg", &p.combine_wg},        {"gather_values", &p.gather_values}};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        *ks[i].k = CL(CreateKernel)(p.program, ks[i].name, &err);
        if (*ks[i].k == NULL) {
            st = clmax_cl_fail("clCreateKernel", err);
            goto fail;
        }
    }
    clmax_cl_program *kept = malloc(sizeof *kept);
    if (kept == NULL) {
        st = clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "program cache");
        goto fail;
    }
    *kept = p;
    cl->programs[cl->nprograms++] = kept;
    *out = kept;
    return CLMAX_OK;
fail:
    release_one(&p);
    return st;
}
