/* The kernels of each type (cpu_kernels.h), picked once per call by cpu_backend.c. */
#include "cpu_kernels.h"

#if FLOAT_LANES
#if CLMAX_LANES_512
#define FP_LANES_FN(name) (wide ? clmax_cpu_lanes_fp512_##name : clmax_cpu_lanes_fp_##name)
#else
#define FP_LANES_FN(name) clmax_cpu_lanes_fp_##name
#endif
#endif

#if CLMAX_LANES_512
#define LANES_FN(name) (wide ? clmax_cpu_lanes512_##name : clmax_cpu_lanes_##name)
#else
#define LANES_FN(name) clmax_cpu_lanes_##name
#endif

type_fns clmax_cpu_kernels(clmax_type t, int min, int wide)
{
    (void)wide;
#define FNS(name)                                                                                  \
    return min ? (type_fns){clmax_cpu_row_##name##_min, LANES_FN(name##_min),                      \
                            clmax_cpu_short_rows_##name##_min, clmax_cpu_slices_##name##_min,      \
                            NULL}                                                                  \
               : (type_fns)                                                                        \
    {                                                                                              \
        clmax_cpu_row_##name, LANES_FN(name), clmax_cpu_short_rows_##name,                         \
            clmax_cpu_slices_##name, NULL                                                          \
    }
    switch (t) {
    case CLMAX_TYPE_UINT8:
        FNS(u8);
    case CLMAX_TYPE_INT8:
        FNS(i8);
    case CLMAX_TYPE_UINT16:
        FNS(u16);
    case CLMAX_TYPE_INT16:
        FNS(i16);
    case CLMAX_TYPE_FLOAT16:
        FNS(f16);
    case CLMAX_TYPE_BFLOAT16:
        FNS(bf16);
    case CLMAX_TYPE_UINT32:
        FNS(u32);
    case CLMAX_TYPE_INT32:
        FNS(i32);
    case CLMAX_TYPE_FLOAT32:
#if FLOAT_LANES
        if (min)
            return (type_fns){clmax_cpu_row_f32_min, FP_LANES_FN(f32_min),
                              clmax_cpu_short_rows_f32_min, clmax_cpu_slices_f32_min, NULL};
        return (type_fns){clmax_cpu_row_f32, FP_LANES_FN(f32), clmax_cpu_short_rows_f32,
                          clmax_cpu_slices_f32, NULL};
#else
        FNS(f32);
#endif
    case CLMAX_TYPE_UINT64:
        FNS(u64);
    case CLMAX_TYPE_INT64:
        FNS(i64);
    case CLMAX_TYPE_FLOAT64:
#if FLOAT_LANES
        if (min)
            return (type_fns){clmax_cpu_row_f64_min, FP_LANES_FN(f64_min),
                              clmax_cpu_short_rows_f64_min, clmax_cpu_slices_f64_min, NULL};
        return (type_fns){clmax_cpu_row_f64, FP_LANES_FN(f64), clmax_cpu_short_rows_f64,
                          clmax_cpu_slices_f64, NULL};
#else
        FNS(f64);
#endif
    }
#undef FNS
    return (type_fns){NULL, NULL, NULL, NULL, NULL};
}
