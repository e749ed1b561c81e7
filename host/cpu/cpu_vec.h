/* The 256-bit GCC vector types the CPU path's AVX2 code (cpu_short_simd.c, cpu_transposed.c)
 * works in: elements of every width, unsigned and signed, lane by lane. */
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

#endif
