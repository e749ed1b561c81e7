/* Hardmax on the CPU path in one pass over slices of 2, 3 or 4 rows of one or at least 16 lanes,
 * and contiguous rows of 8: each lane's keys compared, its one-hot written at once.
 *
 * Why: the fused Hardmax (cpu_hardmax.c) finds a block's winners as 8-byte indices, then writes
 * the one-hot from them: on rows of two float16 that is 8 bytes of index a row beside 4 of input
 * and 4 of output, two passes and a scatter, 0.12-0.18 of the read + write limit. Here a lane's
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

/* Contiguous rows [0, rows) of 8 elements of x, their one-hot in y (ONE: 1.0's bits): a running
 * best whose wins are kept as masks, the one going to the last win; GCC vectorises it over rows
 * with interleaved loads and stores. It kept no vector form at 5 and 7 (0.14-0.32 of the limit
 * against 0.49-0.87 through the winners), which stay there (two-byte ones: cpu_hardmax_near.c). */
#define TINY_ROWS8(sfx, T, KEY, ONE)                                                               \
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

/* Slices [0, rows) of [n, inner], n = 2, 3, 4, of x, their one-hot in y: tournaments of pairs in
 * masks, lane by lane, every lane the same operations. GCC vectorises the loop over a slice's
 * lanes (unit stride), or with inner the constant 1, over rows with interleaved loads and stores.
 * For rows, a loop over a row's elements with a running index ran float16 rows of 3 at 0.47-0.72
 * of the limit (the tournament 0.87-0.94) and lost its vector form at 4 (0.06-0.21). */
#define TINY_LANES(sfx, T, KEY, ONE)                                                               \
    static inline void lanes2_##sfx(const T *restrict x, T *restrict y, uint64_t rows,             \
                                    uint64_t inner)                                                \
    {                                                                                              \
        for (uint64_t r = 0; r < rows; r++) {                                                      \
            const T *restrict a = x + 2 * r * inner;                                               \
            T *restrict b = y + 2 * r * inner;                                                     \
            for (uint64_t l = 0; l < inner; l++) {                                                 \
                MATCH(T, m, w, KEY(a[l]), KEY(a[inner + l]));                                      \
                (void)m;                                                                           \
                b[l] = (T)((T)(ONE) & (T)~w);                                                      \
                b[inner + l] = (T)((T)(ONE)&w);                                                    \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static inline void lanes3_##sfx(const T *restrict x, T *restrict y, uint64_t rows,             \
                                    uint64_t inner)                                                \
    {                                                                                              \
        for (uint64_t r = 0; r < rows; r++) {                                                      \
            const T *restrict a = x + 3 * r * inner;                                               \
            T *restrict b = y + 3 * r * inner;                                                     \
            for (uint64_t l = 0; l < inner; l++) {                                                 \
                MATCH(T, m01, w, KEY(a[l]), KEY(a[inner + l]));                                    \
                const T c = ALL(T, KEY(a[2 * inner + l]) > m01);                                   \
                b[l] = (T)((T)(ONE) & (T)~c & (T)~w);                                              \
                b[inner + l] = (T)((T)(ONE) & (T)~c & w);                                          \
                b[2 * inner + l] = (T)((T)(ONE)&c);                                                \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static inline void lanes4_##sfx(const T *restrict x, T *restrict y, uint64_t rows,             \
                                    uint64_t inner)                                                \
    {                                                                                              \
        for (uint64_t r = 0; r < rows; r++) {                                                      \
            const T *restrict a = x + 4 * r * inner;                                               \
            T *restrict b = y + 4 * r * inner;                                                     \
            for (uint64_t l = 0; l < inner; l++) {                                                 \
                MATCH(T, m01, v, KEY(a[l]), KEY(a[inner + l]));                                    \
                MATCH(T, m23, w, KEY(a[2 * inner + l]), KEY(a[3 * inner + l]));                    \
                const T c = ALL(T, m23 > m01);                                                     \
                b[l] = (T)((T)(ONE) & (T)~c & (T)~v);                                              \
                b[inner + l] = (T)((T)(ONE) & (T)~c & v);                                          \
                b[2 * inner + l] = (T)((T)(ONE)&c & (T)~w);                                        \
                b[3 * inner + l] = (T)((T)(ONE)&c & w);                                            \
            }                                                                                      \
        }                                                                                          \
    }

TINY_LANES(f16, uint16_t, clmax_key_f16, 0x3C00u)
TINY_LANES(bf16, uint16_t, clmax_key_bf16, 0x3F80u)
TINY_LANES(f32, uint32_t, clmax_key_f32, 0x3F800000u)
TINY_LANES(f64, uint64_t, clmax_key_f64, 0x3FF0000000000000ull)

TINY_ROWS8(f16, uint16_t, clmax_key_f16, 0x3C00u)
TINY_ROWS8(bf16, uint16_t, clmax_key_bf16, 0x3F80u)
TINY_ROWS8(f32, uint32_t, clmax_key_f32, 0x3F800000u)
TINY_ROWS8(f64, uint64_t, clmax_key_f64, 0x3FF0000000000000ull)

/* Lanes a slice at least for TINY_LANES: with 3 and 7 its loop over a slice's lanes is too short
 * (float32 [B, 3..4, 3..7] 0.43-0.54 of the limit through the winners, 0.29-0.33 so); from 16 on
 * it ran at 0.73-1.17 against 0.10-0.73. 8 to 15 were not measured. */
#define TINY_LANES_MIN 16

/* Slices of type sfx, here: inlined into each clone of the caller, in its vector width; contiguous
 * rows with inner the constant 1. */
#define BY_LENGTH(sfx)                                                                             \
    do {                                                                                           \
        const uint64_t in = p->inner;                                                              \
        if (p->n == 8)                                                                             \
            rows8_##sfx(x, y, rows);                                                               \
        else if (p->n == 2)                                                                        \
            in == 1 ? lanes2_##sfx(x, y, rows, 1) : lanes2_##sfx(x, y, rows, in);                  \
        else if (p->n == 3)                                                                        \
            in == 1 ? lanes3_##sfx(x, y, rows, 1) : lanes3_##sfx(x, y, rows, in);                  \
        else                                                                                       \
            in == 1 ? lanes4_##sfx(x, y, rows, 1) : lanes4_##sfx(x, y, rows, in);                  \
    } while (0)

int clmax_cpu_hardmax_tiny_fits(const clmax_problem *p)
{
    if (!clmax_type_is_float(p->type) || p->n < 2) return 0;
    return p->inner == 1 ? p->n <= 4 || p->n == 8 : p->n <= 4 && p->inner >= TINY_LANES_MIN;
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
