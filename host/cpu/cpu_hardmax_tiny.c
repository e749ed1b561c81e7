/* Hardmax of contiguous rows of 2, 3, 4 and 8 elements on the CPU path, in one pass: each row's
 * keys compared, its one-hot written at once.
 *
 * Why: the fused Hardmax (cpu_hardmax.c) finds a block's winners as 8-byte indices, then writes
 * the one-hot from them: on rows of two float16 that is 8 bytes of index a row beside 4 of input
 * and 4 of output, two passes and a scatter, 0.12-0.18 of the read + write limit. Here a row's
 * winner never leaves the registers. Keys are integers (host/keys.h): no float compare,
 * so the caller's MXCSR plays no part. Hardmax is ArgMax's first-index rule: a later element wins
 * only with a strictly larger key. */
#include "cpu_hardmax_tiny.h"

#include "cpu_kernels.h"
#include "keys.h"

/* A mask of all ones where c holds. */
#define ALL(T, c) ((T)((T)0 - (T)(c)))
/* m: the better of keys k and l (l the later: it wins only by a larger key); w: l's win. */
#define MATCH(T, m, w, k, l) const T w = ALL(T, (l) > (k)), m = (T)(((l)&w) | ((k) & (T)~w))

/* Rows [0, rows) of 2, 3, 4 and 8 elements of x, their one-hot in y (ONE: 1.0's bits), in masks,
 * every row the same operations, which GCC vectorises over rows with interleaved loads and
 * stores: rows of 2 to 4 as tournaments of pairs, rows of 8 as a running best whose wins are kept
 * (the one goes to the last win). A loop over a row's elements with a running index ran float16
 * rows of 3 at 0.47-0.72 of the limit (the tournament 0.87-0.94) and lost its vector form at 4
 * (0.06-0.21); the running best kept none at 5 and 7 (0.14-0.32 against 0.49-0.87 through the
 * winners), which stay there. */
#define TINY_ROWS(sfx, T, KEY, ONE)                                                                \
    static inline void rows2_##sfx(const T *restrict x, T *restrict y, uint64_t rows)              \
    {                                                                                              \
        for (uint64_t r = 0; r < rows; r++) {                                                      \
            MATCH(T, m, a, KEY(x[2 * r]), KEY(x[2 * r + 1]));                                      \
            (void)m;                                                                               \
            y[2 * r] = (T)((T)(ONE) & (T)~a);                                                      \
            y[2 * r + 1] = (T)((T)(ONE)&a);                                                        \
        }                                                                                          \
    }                                                                                              \
    static inline void rows3_##sfx(const T *restrict x, T *restrict y, uint64_t rows)              \
    {                                                                                              \
        for (uint64_t r = 0; r < rows; r++) {                                                      \
            MATCH(T, m01, a, KEY(x[3 * r]), KEY(x[3 * r + 1]));                                    \
            const T c = ALL(T, KEY(x[3 * r + 2]) > m01);                                           \
            y[3 * r] = (T)((T)(ONE) & (T)~c & (T)~a);                                              \
            y[3 * r + 1] = (T)((T)(ONE) & (T)~c & a);                                              \
            y[3 * r + 2] = (T)((T)(ONE)&c);                                                        \
        }                                                                                          \
    }                                                                                              \
    static inline void rows4_##sfx(const T *restrict x, T *restrict y, uint64_t rows)              \
    {                                                                                              \
        for (uint64_t r = 0; r < rows; r++) {                                                      \
            MATCH(T, m01, a, KEY(x[4 * r]), KEY(x[4 * r + 1]));                                    \
            MATCH(T, m23, b, KEY(x[4 * r + 2]), KEY(x[4 * r + 3]));                                \
            const T c = ALL(T, m23 > m01);                                                         \
            y[4 * r] = (T)((T)(ONE) & (T)~c & (T)~a);                                              \
            y[4 * r + 1] = (T)((T)(ONE) & (T)~c & a);                                              \
            y[4 * r + 2] = (T)((T)(ONE)&c & (T)~b);                                                \
            y[4 * r + 3] = (T)((T)(ONE)&c & b);                                                    \
        }                                                                                          \
    }                                                                                              \
    static inline void rows8_##sfx(const T *restrict x, T *restrict y, uint64_t rows)              \
    {                                                                                              \
        for (uint64_t r = 0; r < rows; r++) {                                                      \
            T w[8], best = KEY(x[8 * r]), later = 0;                                               \
            for (unsigned j = 1; j < 8; j++) {                                                     \
                const T k = KEY(x[8 * r + j]);                                                     \
                w[j] = ALL(T, k > best);                                                           \
                best = (T)((k & w[j]) | (best & (T)~w[j]));                                        \
            }                                                                                      \
            for (unsigned j = 7; j >= 1; j--) {                                                    \
                y[8 * r + j] = (T)((T)(ONE)&w[j] & (T)~later);                                     \
                later |= w[j];                                                                     \
            }                                                                                      \
            y[8 * r] = (T)((T)(ONE) & (T)~later);                                                  \
        }                                                                                          \
    }

TINY_ROWS(f16, uint16_t, clmax_key_f16, 0x3C00u)
TINY_ROWS(bf16, uint16_t, clmax_key_bf16, 0x3F80u)
TINY_ROWS(f32, uint32_t, clmax_key_f32, 0x3F800000u)
TINY_ROWS(f64, uint64_t, clmax_key_f64, 0x3FF0000000000000ull)

/* Rows of n of type sfx, here: inlined into each clone of the caller, in its vector width. */
#define BY_LENGTH(sfx)                                                                             \
    do {                                                                                           \
        if (p->n == 2)                                                                             \
            rows2_##sfx(x, y, rows);                                                               \
        else if (p->n == 3)                                                                        \
            rows3_##sfx(x, y, rows);                                                               \
        else if (p->n == 4)                                                                        \
            rows4_##sfx(x, y, rows);                                                               \
        else                                                                                       \
            rows8_##sfx(x, y, rows);                                                               \
    } while (0)

int clmax_cpu_hardmax_tiny_fits(const clmax_problem *p)
{
    int floating = p->type == CLMAX_TYPE_FLOAT16 || p->type == CLMAX_TYPE_BFLOAT16 ||
                   p->type == CLMAX_TYPE_FLOAT32 || p->type == CLMAX_TYPE_FLOAT64;
    return floating && p->inner == 1 && ((p->n >= 2 && p->n <= 4) || p->n == 8);
}

CLMAX_CPU_CLONES void clmax_cpu_hardmax_tiny(const clmax_problem *p, uint64_t rows, const void *x,
                                             void *y)
{
    switch (p->type) {
    case CLMAX_TYPE_FLOAT16:
        BY_LENGTH(f16);
        break;
    case CLMAX_TYPE_BFLOAT16:
        BY_LENGTH(bf16);
        break;
    case CLMAX_TYPE_FLOAT32:
        BY_LENGTH(f32);
        break;
    default:
        BY_LENGTH(f64);
        break;
    }
}
CLMAX_CPU_HIDE(clmax_cpu_hardmax_tiny)
