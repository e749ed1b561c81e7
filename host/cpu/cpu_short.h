/* The CPU path's vector code for short contiguous rows (host/cpu/cpu_short_simd.c), and what it
 * shares with the rest of the CPU path. */
#ifndef CLMAX_CPU_SHORT_H
#define CLMAX_CPU_SHORT_H

#include "clmax.h"
#include "stream.h"

#include <stddef.h>
#include <stdint.h>

/* The longest rows the vector code below takes: 256 elements keep a row's equality bits within
 * eight 64-bit words, and 1024 of one byte (a bit each) within sixteen. CLMAX_SHORT_MAX(esize):
 * for a type. */
#define CLMAX_SHORT_MAX_N 256
#define CLMAX_SHORT_MAX(esize) ((esize) == 1 ? 4 * CLMAX_SHORT_MAX_N : CLMAX_SHORT_MAX_N)

/* ArgMax (or ArgMin with min) of rows [0, done) of x, rows of n <= CLMAX_SHORT_MAX(size)
 * elements, into out; returns done <= rows. Only rows whose vector loads stay within `readable`
 * elements from x are done; the caller finishes the rest. */
typedef uint64_t (*clmax_short_simd_fn)(const void *x, uint64_t rows, uint64_t n, int last,
                                        int64_t *out, uint64_t readable);

/* The function for a type on this CPU, or NULL when the CPU (or the compiler) has no vector code
 * for it. */
clmax_short_simd_fn clmax_cpu_short_simd(clmax_type type, int min);

/* The scalar code for the same rows (any n up to 2048), for every type (cpu_rows.c). */
typedef void (*clmax_short_rows_fn)(const void *x, uint64_t rows, uint64_t n, int last,
                                    int64_t *out);

/* Slices [n, inner] of few lanes, dealt into rows (host/cpu/cpu_deal.c): whether a slice shape
 * runs there, and the winners of `slices` whole slices from x into out (slices * inner). */
#define DEAL_INNER 7
int clmax_cpu_deal_fits(size_t esize, uint64_t n, uint64_t inner);
void clmax_cpu_deal_slices(const void *x, uint64_t slices, uint64_t n, uint64_t inner, size_t esize,
                           int last, int stream, clmax_short_simd_fn simd, clmax_short_rows_fn rows,
                           int64_t *out);

/* Winners built in a buffer and streamed out go a quarter as many at a time as plain ones
 * (CLMAX_PUT_STREAMED): the reads and the streamed writes then run side by side, not in turns.
 * In turns on this machine (2 rounds, 256 MiB, [B, 2..32, 2..16]): uint8 x1.09 (median, up to
 * x1.24), float16 x1.06, float32 x1.05, float64 x1.01; plain stores in quarters ran up to 12%
 * slower (float32 [B, 16, 4]). */
#define CLMAX_PUT_STREAMED(chunk) ((chunk) / 4)

/* Winners to the output: with non-temporal stores when stream is set (a large output of short
 * axes, written once and not read here; stream.h), else plain. A thread that streamed calls
 * clmax_stream_fence() before its work is joined. The 8-byte aligned head and tail go out as one
 * index each, streamed too. */
static inline void clmax_cpu_put(int64_t *dst, const int64_t *src, uint64_t count, int stream)
{
#if defined(CLMAX_HAVE_STREAM) && defined(__x86_64__) /* _mm_stream_si64 */
    if (stream) {
        uint64_t i = 0;
        if ((uintptr_t)dst % 16 != 0 && count > 0) _mm_stream_si64((long long *)dst, src[0]), i = 1;
        for (; i + 2 <= count; i += 2)
            _mm_stream_si128((__m128i *)(void *)(dst + i),
                             _mm_loadu_si128((const __m128i *)(const void *)(src + i)));
        if (i < count) _mm_stream_si64((long long *)(dst + i), (long long)src[i]);
        return;
    }
#endif
    (void)stream;
    for (uint64_t i = 0; i < count; i++)
        dst[i] = src[i];
}

/* Software prefetch for code that reads its input as one stream: clmax_cpu_pf(&next, at) asks for
 * the lines up to CLMAX_PF_AHEAD bytes past `at` not yet asked for, each once, so that a loop that
 * calls it every step, of any size, spreads its prefetches over its work (a burst of them stalls
 * once the line fill buffers are full). The hardware prefetcher alone lags on some machines: a
 * VM's Xeon ran float64 [B, 32000, 2] at 0.20 of the limit without, 0.53 with. The stream starts
 * at clmax_cpu_pf_start(x): its first lines are left to the hardware. The cursor is an address,
 * not a pointer, as it runs past the input's end (a prefetch there is harmless). */
#define CLMAX_PF_AHEAD 4096
static inline uintptr_t clmax_cpu_pf_start(const void *x)
{
    return (uintptr_t)x + CLMAX_PF_AHEAD / 2;
}
static inline void clmax_cpu_pf(uintptr_t *next, const void *at)
{
    const uintptr_t to = (uintptr_t)at + CLMAX_PF_AHEAD;
    for (; *next < to; *next += 64)
        __builtin_prefetch((const void *)*next);
}

/* The x86 MXCSR mode in which the CPU's float compares order values as the integer keys do:
 * denormals-are-zero off, and the invalid-operation and denormal-operand exceptions masked (a NaN
 * or a denormal met by a compare or a max must not trap). Code that compares floats checks
 * (mxcsr & CLMAX_FLOAT_MODE_BITS) == CLMAX_FLOAT_MODE_OK; the exception flags its compares raise
 * stay until the public call returns, which puts the caller's MXCSR back (host/fpenv.h). */
#define CLMAX_FLOAT_MODE_BITS 0x1C0u /* DAZ (0x40), IM (0x80), DM (0x100) */
#define CLMAX_FLOAT_MODE_OK 0x180u

#endif
