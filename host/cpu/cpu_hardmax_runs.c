/* Hardmax on the CPU path for slices of many lanes on short axes, such as [B, 2, 65536]: a run of
 * RUN_LANES lanes of every row at a time, each lane's winner found and its one-hot built in a
 * buffer in the cache, then copied to the output (streamed out when the output is large).
 *
 * Why: the lanes code finds a block's winners as an 8-byte key and an 8-byte index a lane, then
 * the one-hot is written from them: float16 [B, 2, 65536] took 17.5 ms for 128 MiB where a read and
 * a write take 5 (0.30 of the limit). Writing the one-hot straight to memory with plain stores
 * (cpu_hardmax_tiny.c's loops) read every output line first: 19-35 ms. Here the winner never
 * leaves the registers, and the output is written once. Keys are integers (host/keys.h), so the
 * caller's MXCSR plays no part; Hardmax takes the first maximum, a later row winning only with a
 * strictly larger key. */
#include "cpu_hardmax_runs.h"

#include "cpu_kernels.h"
#include "keys.h"
#include "onehot.h"
#include "stream.h"

#define RUN_LANES 512    /* lanes a run: the buffer's row stride, a constant for the vectoriser */
#define RUN_N_MAX 8      /* rows a slice at most: each row's win is kept in a register */
#define RUN_ROW_BYTES 32 /* a lane's bytes along the axis at most: a buffer of 16 KiB */
#define RUN_BLOCK_LANES 4096 /* lanes a block of work, as cpu_hardmax.c's lane blocks */
/* Lanes a slice at least: 256 with up to 4 rows, 512 with more. In turns with the code before
 * (clmax-bench --sweep --size=128, 3 rounds), float16 and float32 [B, 8, 256] ran x0.83-0.86,
 * [B, 6..8, 512..1024] x1.20-1.74, [B, 2..4, 256..512] x0.96-1.10. */
#define RUN_LANES_MIN 256
#define RUN_LANES_MIN_LONG 512

/* A mask of all ones where c holds. */
#define ALL(T, c) ((T)((T)0 - (T)(c)))

/* A run of width lanes of a slice of n rows (n a constant; rows xs apart in x) into y (rows
 * RUN_LANES apart). Each row's win over the best before it is kept as a mask; the lane's one goes
 * to its last win (or row 0), found from the last row back. With n a constant both loops over
 * rows unroll, and GCC vectorises the loop over lanes with every mask in a register. Longer axes
 * (float16 [B, 12..16, 65536]) spilled them: 9-13 ms against 10.4-10.9 through the lanes code.
 * Each type's run_ is cloned for AVX2 (CLMAX_CPU_CLONES), keep_ inlined into it. */
#define RUN_FNS(sfx, T, KEY, ONE)                                                                  \
    static inline void keep_##sfx(const T *restrict x, uint64_t xs, T *restrict y,                 \
                                  const unsigned n, uint64_t width)                                \
    {                                                                                              \
        for (uint64_t l = 0; l < width; l++) {                                                     \
            T best = KEY(x[l]), w[RUN_N_MAX], later = 0;                                           \
            _Pragma("GCC unroll 8") for (unsigned k = 1; k < n; k++)                               \
            {                                                                                      \
                const T key = KEY(x[k * xs + l]);                                                  \
                w[k] = ALL(T, key > best);                                                         \
                best = (T)((key & w[k]) | (best & (T)~w[k]));                                      \
            }                                                                                      \
            _Pragma("GCC unroll 8") for (unsigned k = n - 1; k >= 1; k--)                          \
            {                                                                                      \
                y[k * RUN_LANES + l] = (T)((T)(ONE)&w[k] & (T)~later);                             \
                later |= w[k];                                                                     \
            }                                                                                      \
            y[l] = (T)((T)(ONE) & (T)~later);                                                      \
        }                                                                                          \
    }                                                                                              \
    CLMAX_CPU_CLONES static void run_##sfx(const T *x, uint64_t xs, T *y, uint64_t n,              \
                                           uint64_t width)                                         \
    {                                                                                              \
        switch (n) {                                                                               \
        case 2:                                                                                    \
            keep_##sfx(x, xs, y, 2, width);                                                        \
            break;                                                                                 \
        case 3:                                                                                    \
            keep_##sfx(x, xs, y, 3, width);                                                        \
            break;                                                                                 \
        case 4:                                                                                    \
            keep_##sfx(x, xs, y, 4, width);                                                        \
            break;                                                                                 \
        case 5:                                                                                    \
            keep_##sfx(x, xs, y, 5, width);                                                        \
            break;                                                                                 \
        case 6:                                                                                    \
            keep_##sfx(x, xs, y, 6, width);                                                        \
            break;                                                                                 \
        case 7:                                                                                    \
            keep_##sfx(x, xs, y, 7, width);                                                        \
            break;                                                                                 \
        default:                                                                                   \
            keep_##sfx(x, xs, y, RUN_N_MAX, width);                                                \
            break;                                                                                 \
        }                                                                                          \
    }

RUN_FNS(f16, uint16_t, clmax_key_f16, 0x3C00u)
RUN_FNS(bf16, uint16_t, clmax_key_bf16, 0x3F80u)
RUN_FNS(f32, uint32_t, clmax_key_f32, 0x3F800000u)
RUN_FNS(f64, uint64_t, clmax_key_f64, 0x3FF0000000000000ull)

int clmax_cpu_hardmax_runs_fit(const clmax_problem *p)
{
    if (!clmax_type_is_float(p->type) || p->n < 2 || p->n > RUN_N_MAX ||
        p->n * p->esize > RUN_ROW_BYTES)
        return 0;
    return p->inner >= (p->n <= 4 ? RUN_LANES_MIN : RUN_LANES_MIN_LONG);
}

uint64_t clmax_cpu_hardmax_runs_blocks(const clmax_problem *p)
{
    return p->outer * ((p->inner + RUN_BLOCK_LANES - 1) / RUN_BLOCK_LANES);
}

void clmax_cpu_hardmax_runs(const clmax_problem *p, uint64_t begin, uint64_t end, const void *x,
                            void *y, uint64_t call_bytes)
{
    _Alignas(64) char buf[RUN_ROW_BYTES * RUN_LANES];
    const uint64_t units = (p->inner + RUN_BLOCK_LANES - 1) / RUN_BLOCK_LANES;
    for (uint64_t b = begin; b < end; b++) {
        const uint64_t o = b / units, l0 = (b % units) * RUN_BLOCK_LANES;
        const uint64_t l1 = p->inner - l0 < RUN_BLOCK_LANES ? p->inner : l0 + RUN_BLOCK_LANES;
        for (uint64_t i0 = l0; i0 < l1; i0 += RUN_LANES) {
            const uint64_t width = l1 - i0 < RUN_LANES ? l1 - i0 : RUN_LANES;
            const uint64_t at = (o * p->n * p->inner + i0) * p->esize;
            const void *xa = (const char *)x + at;
            switch (p->type) {
            case CLMAX_TYPE_FLOAT16:
                run_f16(xa, p->inner, (uint16_t *)(void *)buf, p->n, width);
                break;
            case CLMAX_TYPE_BFLOAT16:
                run_bf16(xa, p->inner, (uint16_t *)(void *)buf, p->n, width);
                break;
            case CLMAX_TYPE_FLOAT32:
                run_f32(xa, p->inner, (uint32_t *)(void *)buf, p->n, width);
                break;
            default:
                run_f64(xa, p->inner, (uint64_t *)(void *)buf, p->n, width);
                break;
            }
            for (uint64_t k = 0; k < p->n; k++)
                clmax_onehot_put((char *)y + at + k * p->inner * p->esize,
                                 buf + k * RUN_LANES * p->esize, (size_t)(width * p->esize),
                                 call_bytes);
        }
    }
    clmax_stream_fence();
}
