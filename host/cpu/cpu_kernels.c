/* The kernels of each type (cpu_kernels.h), picked once per call by cpu_backend.c. */
#include "cpu_kernels.h"

#if CLMAX_LANES_512
#define LANES_FN(name) (wide ? clmax_cpu_lanes512_##name : clmax_cpu_lanes_##name)
#else
#define LANES_FN(name) clmax_cpu_lanes_##name
#endif

/* float32 and float64: the float lanes where they are built, else the key lanes. */
#if FLOAT_LANES && CLMAX_LANES_512
#define FP_LANES_FN(name) (wide ? clmax_cpu_lanes_fp512_##name : clmax_cpu_lanes_fp_##name)
#elif FLOAT_LANES
#define FP_LANES_FN(name) clmax_cpu_lanes_fp_##name
#else
#define FP_LANES_FN(name) LANES_FN(name)
#endif

type_fns clmax_cpu_kernels(clmax_type t, int min, int wide)
{
    (void)wide;
#define FNS_OF(name, LANES)                                                                        \
    return min ? (type_fns){clmax_cpu_row_##name##_min,        LANES(name##_min),                  \
                            clmax_cpu_short_rows_##name##_min, clmax_cpu_slices_##name##_min,      \
                            clmax_cpu_stacked_##name##_min,    NULL}                               \
               : (type_fns)                                                                        \
    {                                                                                              \
        clmax_cpu_row_##name, LANES(name), clmax_cpu_short_rows_##name, clmax_cpu_slices_##name,   \
            clmax_cpu_stacked_##name, NULL                                                         \
    }
#define FNS(name) FNS_OF(name, LANES_FN)
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
        FNS_OF(f32, FP_LANES_FN);
    case CLMAX_TYPE_UINT64:
        FNS(u64);
    case CLMAX_TYPE_INT64:
        FNS(i64);
    case CLMAX_TYPE_FLOAT64:
        FNS_OF(f64, FP_LANES_FN);
    }
#undef FNS
#undef FNS_OF
    return (type_fns){NULL, NULL, NULL, NULL, NULL, NULL};
}
