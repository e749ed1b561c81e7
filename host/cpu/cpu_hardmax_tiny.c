/* Hardmax of contiguous rows of 2 or 3 elements on the CPU path, in one pass: each row's keys
 * compared, its one-hot written at once.
 *
 * Why: the fused Hardmax (cpu_hardmax.c) finds a block's winners as 8-byte indices, then writes
 * the one-hot from them: on rows of two float16 that is 8 bytes of index a row beside 4 of input
 * and 4 of output, two passes and a scatter, 0.12-0.18 of the read + write limit. Here a row's
 * winner never leaves the registers; with n a constant GCC vectorises the loop over rows, the
 * row's elements in lanes of interleaved loads. Keys are integers (host/keys.h): no float compare,
 * so the caller's MXCSR plays no part. Hardmax is ArgMax's first-index rule: a later element wins
 * only with a strictly larger key. Rows of 4 ran 3-4 times slower so than through the winners
 * (GCC's vector form of that loop), and stay there. */
#include "cpu_hardmax_tiny.h"

#include "cpu_kernels.h"
#include "keys.h"

/* Rows [0, rows) of N elements of x, their one-hot in y; ONE is 1.0's bits. The winner's place in
 * the keys' own type: an unsigned int beside float16 keys mixed lane widths, and float16 rows of 3
 * ran 0.46-0.57 of the limit so against 0.47-0.80. */
#define TINY_ROWS(name, T, KEY, ONE)                                                               \
    static inline void name(const T *restrict x, T *restrict y, uint64_t rows, const unsigned N)   \
    {                                                                                              \
        for (uint64_t r = 0; r < rows; r++) {                                                      \
            const T *row = x + r * N;                                                              \
            T best = KEY(row[0]);                                                                  \
            T at = 0;                                                                              \
            for (unsigned j = 1; j < N; j++) {                                                     \
                T k = KEY(row[j]);                                                                 \
                at = k > best ? (T)j : at;                                                         \
                best = k > best ? k : best;                                                        \
            }                                                                                      \
            for (unsigned j = 0; j < N; j++)                                                       \
                y[r * N + j] = (T)j == at ? (T)(ONE) : (T)0;                                       \
        }                                                                                          \
    }

TINY_ROWS(rows_f16, uint16_t, clmax_key_f16, 0x3C00u)
TINY_ROWS(rows_bf16, uint16_t, clmax_key_bf16, 0x3F80u)
TINY_ROWS(rows_f32, uint32_t, clmax_key_f32, 0x3F800000u)
TINY_ROWS(rows_f64, uint64_t, clmax_key_f64, 0x3FF0000000000000ull)

/* Each length its own loop, so that N is a constant there. */
#define BY_LENGTH(fn, T)                                                                           \
    do {                                                                                           \
        const T *xs = x;                                                                           \
        T *ys = y;                                                                                 \
        if (n == 2)                                                                                \
            fn(xs, ys, rows, 2);                                                                   \
        else                                                                                       \
            fn(xs, ys, rows, 3);                                                                   \
    } while (0)

int clmax_cpu_hardmax_tiny_fits(const clmax_problem *p)
{
    int floating = p->type == CLMAX_TYPE_FLOAT16 || p->type == CLMAX_TYPE_BFLOAT16 ||
                   p->type == CLMAX_TYPE_FLOAT32 || p->type == CLMAX_TYPE_FLOAT64;
    return floating && p->inner == 1 && p->n >= 2 && p->n <= CLMAX_HARDMAX_TINY_N;
}

CLMAX_CPU_CLONES void clmax_cpu_hardmax_tiny(const clmax_problem *p, uint64_t rows, const void *x,
                                             void *y)
{
    const uint64_t n = p->n;
    switch (p->type) {
    case CLMAX_TYPE_FLOAT16:
        BY_LENGTH(rows_f16, uint16_t);
        break;
    case CLMAX_TYPE_BFLOAT16:
        BY_LENGTH(rows_bf16, uint16_t);
        break;
    case CLMAX_TYPE_FLOAT32:
        BY_LENGTH(rows_f32, uint32_t);
        break;
    default:
        BY_LENGTH(rows_f64, uint64_t);
        break;
    }
}
CLMAX_CPU_HIDE(clmax_cpu_hardmax_tiny)
