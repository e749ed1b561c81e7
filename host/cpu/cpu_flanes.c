/* float32 and float64 lanes (flanes_*, lanes_fp_*, lanes_fp512_*, from cpu_flanes.inc) by the CPU's
 * own float compares, in the MXCSR mode where those order values as the keys do (cpu_short.h:
 * denormals by value, no trap). A compare finds +0 and -0 equal, as the keys do; NaN is the one
 * value it orders differently, so a NaN anywhere in the lanes' rows (an unordered pair) sends them
 * back to the key scan, lanes_*. Skipping the integer key of every element matters because it made
 * the loop compute-bound. */
#include "cpu_kernels.h"
#include "cpu_short.h"
#include "keys.h"

#include <string.h>

#if FLOAT_LANES
#include <xmmintrin.h>
#define FLANE_UPDATE(k, jr)                                                                        \
    do {                                                                                           \
        int up_ = last ? GE(k, b) : GT(k, b);                                                      \
        b = up_ ? (k) : b;                                                                         \
        i = up_ ? (jr) : i;                                                                        \
    } while (0)
/* The float lanes, then the key scan if they met a NaN or the float mode is not the default. */
#define LANES_FP(flanes, lanes)                                                                    \
    do {                                                                                           \
        const unsigned csr = _mm_getcsr();                                                         \
        if ((csr & CLMAX_FLOAT_MODE_BITS) == CLMAX_FLOAT_MODE_OK) {                                \
            /* the flags it raises stay until the call returns (host/fpenv.h) */                   \
            if (flanes(LANES_ARGS)) return;                                                        \
        }                                                                                          \
        lanes(LANES_ARGS);                                                                         \
    } while (0)

#define GT(a, b) ((a) > (b))
#define GE(a, b) ((a) >= (b))
#define CLMAX_T_NAME f32
#define CLMAX_T_FLT float
#define CLMAX_T_RAW uint32_t
#define CLMAX_T_KEY clmax_key_f32
#include "cpu_flanes.inc"
#define CLMAX_T_NAME f64
#define CLMAX_T_FLT double
#define CLMAX_T_RAW uint64_t
#define CLMAX_T_KEY clmax_key_f64
#include "cpu_flanes.inc"
#undef GT
#undef GE
#define GT(a, b) ((a) < (b))
#define GE(a, b) ((a) <= (b))
#define CLMAX_T_NAME f32_min
#define CLMAX_T_FLT float
#define CLMAX_T_RAW uint32_t
#define CLMAX_T_KEY clmax_mkey_f32
#include "cpu_flanes.inc"
#define CLMAX_T_NAME f64_min
#define CLMAX_T_FLT double
#define CLMAX_T_RAW uint64_t
#define CLMAX_T_KEY clmax_mkey_f64
#include "cpu_flanes.inc"
#undef GT
#undef GE
#endif
