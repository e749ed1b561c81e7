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

/* keys.h's float keys lane by lane (clmax_skey_bits, clmax_key_bits): the magnitude of the
 * elements u (T unsigned, ST signed, VU and VS their vectors; INF the infinity's bits), negated
 * where the sign bit xor M is set (M: 0 for ArgMax, all ones for ArgMin; an ST or a VS), every NaN
 * the largest key whatever its sign. SKEY: signed keys, NaN the largest ST, for signed compares;
 * UKEY: those with the sign bit flipped, for unsigned ones (NaN all ones). Macros, so that the
 * vectors stay in the caller's target (a function's vector arguments would follow the default
 * ABI). */
/* The parts both keys share, declared in the caller's statement expression: u read once. */
#define CLMAX_VFLOAT_PARTS_(VU, VS, T, u, INF, M)                                                  \
    const VU u_ = (VU)(u);                                                                         \
    const VS a_ = (VS)(u_ & (T)((T) ~(T)0 >> 1));        /* the magnitude */                       \
    const VS s_ = ((VS)u_ >> (8 * sizeof(T) - 1)) ^ (M); /* all ones: the key is -a_ */            \
    const VS n_ = a_ > (INF)                             /* NaN */
#define CLMAX_VFLOAT_SKEY(VU, VS, T, ST, u, INF, M)                                                \
    ({                                                                                             \
        CLMAX_VFLOAT_PARTS_(VU, VS, T, u, INF, M);                                                 \
        (((a_ ^ s_) - s_) & ~n_) | (n_ & (ST)((T) ~(T)0 >> 1));                                    \
    })
#define CLMAX_VFLOAT_UKEY(VU, VS, T, ST, u, INF, M)                                                \
    ({                                                                                             \
        CLMAX_VFLOAT_PARTS_(VU, VS, T, u, INF, M);                                                 \
        ((VU)((a_ ^ s_) - s_) ^ (T)((T)1 << (8 * sizeof(T) - 1))) | (VU)n_;                        \
    })

#endif
