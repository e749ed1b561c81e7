/* The 256-bit GCC vector types the CPU path's AVX2 code (cpu_short_simd.c, cpu_transposed.c)
 * works in: elements of every width, unsigned and signed, lane by lane; and keys.h's float keys
 * in that form. */
#ifndef CLMAX_CPU_VEC_H
#define CLMAX_CPU_VEC_H

#include <stdint.h>

typedef uint8_t vu8 __attribute__((vector_size(32)));
typedef int8_t vs8 __attribute__((vector_size(32)));
typedef uint16_t vu16 __attribute__((vector_size(32)));
typedef int16_t vs16 __attribute__((vector_size(32)));
typedef uint32_t vu32 __attribute__((vector_size(32)));
typedef int32_t vs32 __attribute__((vector_size(32)));
typedef uint64_t vu64 __attribute__((vector_size(32)));
typedef int64_t vs64 __attribute__((vector_size(32)));

/* keys.h's float key (clmax_key_bits16/32/64), lane by lane, of the elements u (VU, VS: the
 * unsigned and signed vectors of T's width; INF: the infinity's bits): both zeros become +0; sign
 * set -> ~u, else u with the sign set; NaN -> all ones. A macro, so that the vectors stay in the
 * caller's target (a function's vector arguments would follow the default ABI). */
#define CLMAX_VFLOAT_KEY(VU, VS, T, u, INF)                                                        \
    ({                                                                                             \
        const T sign_ = (T)((T)1 << (8 * sizeof(T) - 1));                                          \
        const VU a_ = (u) & (T)(sign_ - 1);                                                        \
        const VU v_ = (u) & (VU)(a_ != 0);                                                         \
        (VU)(v_ ^ ((VU)((VS)v_ >> (8 * sizeof(T) - 1)) | sign_)) | (VU)((VS)a_ > (INF));           \
    })

/* ArgMin's key from ArgMax's: the order reversed, the NaN key (all ones) kept largest. */
#define CLMAX_VMIN_FLOAT_KEY(VU, T, k) (~(VU)(k) | (VU)((VU)(k) == (T) ~(T)0))
/* The same where the operator is known at run time: m all ones (ArgMin) or 0 (ArgMax, k kept). */
#define CLMAX_VFLOAT_KEY_FOR(VU, T, k, m)                                                          \
    ({                                                                                             \
        const VU k_ = (k);                                                                         \
        (VU)((k_ ^ (m)) | ((m) & (VU)(k_ == (T) ~(T)0)));                                          \
    })

#endif
