/* Slices [n, inner] with 2 to DEAL_INNER lanes and a short axis (n <= 256), such as RGB pixels or
 * [B, 7, 3]: a group of slices is dealt into one buffer row-stream per lane (lane l's elements,
 * slice after slice), each stream is reduced as short contiguous rows by the row code, and the
 * winners are interleaved back into the output.
 *
 * Why: the lanes code pays a call, its state and its tails per slice, far more than a slice of a
 * few dozen elements is worth (0.03-0.05 of the memory limit), and a scan that keeps a running pair
 * per lane cannot be vectorised across 3 lanes. Dealing is a loop with a constant stride, which
 * the compiler vectorises with shuffles, and the rows then run in the short rows' vector code. */
#include "cpu_short.h"

#include <string.h>

#define DEAL_BYTES 16384 /* input bytes dealt at a time: the buffer stays in the L1 cache */
#define DEAL_SLACK 64    /* bytes past the streams the row code's vector loads may read */
#define DEAL_OUT 2048    /* winners of a group, kept lane by lane before they are interleaved */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(CLMAX_NO_CLONES)
#define DEAL_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define DEAL_CLONES
#endif

/* Lane l of `count` rows of I elements of type T into dst + l * count, for every l < I; I is a
 * constant in each instance, so the loads are an interleaved group the compiler vectorises. */
#define DEAL_FN(T, I)                                                                              \
    DEAL_CLONES static void deal_##T##_##I(const void *sv, uint64_t count, void *dv)               \
    {                                                                                              \
        const T *s = sv;                                                                           \
        T *d = dv;                                                                                 \
        for (uint64_t e = 0; e < count; e++)                                                       \
            for (uint64_t l = 0; l < (I); l++)                                                     \
                d[l * count + e] = s[e * (I) + l];                                                 \
    }
/* Groups of 5 to 7 lanes stay scalar in that form (the compiler vectorises interleaved groups
 * of 2, 3 and 4 only), and ran at 0.11-0.25 of the limit. So each row is first copied whole into
 * a slot of 8 elements (one load and one store of 8 elements, reading past the row into the next),
 * then the slots are dealt whole as a group of 8, which is vectorised (with a gap, 6 and 7 were
 * not), and the lanes under I copied out. A group's last row is copied by its own I elements:
 * its 8 could read past the input. */
#define PAD_ROWS 64
#define DEAL_PAD_FN(T, I)                                                                          \
    DEAL_CLONES static void deal_##T##_##I(const void *sv, uint64_t count, void *dv)               \
    {                                                                                              \
        const T *s = sv;                                                                           \
        T *d = dv;                                                                                 \
        T pad[PAD_ROWS * 8], tr[8][PAD_ROWS];                                                      \
        for (uint64_t e0 = 0; e0 < count; e0 += PAD_ROWS) {                                        \
            const uint64_t m = count - e0 < PAD_ROWS ? count - e0 : PAD_ROWS;                      \
            const uint64_t whole = e0 + m < count ? m : m - 1;                                     \
            for (uint64_t e = 0; e < whole; e++)                                                   \
                memcpy(pad + e * 8, s + (e0 + e) * (I), 8 * sizeof(T));                            \
            if (whole < m) {                                                                       \
                memset(pad + whole * 8, 0, 8 * sizeof(T));                                         \
                memcpy(pad + whole * 8, s + (e0 + whole) * (I), (I) * sizeof(T));                  \
            }                                                                                      \
            for (uint64_t e = 0; e < m; e++)                                                       \
                for (uint64_t l = 0; l < 8; l++)                                                   \
                    tr[l][e] = pad[e * 8 + l];                                                     \
            for (uint64_t l = 0; l < (I); l++)                                                     \
                memcpy(d + l * count + e0, tr[l], m * sizeof(T));                                  \
        }                                                                                          \
    }
/* 8-byte elements are dealt in rows under 32 bytes (clmax_cpu_deal_fits): 3 lanes at most. */
#define DEAL_TYPE(T)                                                                               \
    DEAL_FN(T, 2) DEAL_FN(T, 3) DEAL_FN(T, 4) DEAL_PAD_FN(T, 5) DEAL_PAD_FN(T, 6) DEAL_PAD_FN(T, 7)
DEAL_TYPE(uint8_t)
DEAL_TYPE(uint16_t)
DEAL_TYPE(uint32_t)
DEAL_FN(uint64_t, 2)
DEAL_FN(uint64_t, 3)

/* With stream, the winners go out with non-temporal stores (clmax_cpu_put, cpu_short.h; the
 * caller fences): on [B, 7, 3] uint8 the int64 winners are more bytes than the input. */
#if defined(__x86_64__) && defined(__SSE2__)
#define STORE_STREAM(p, v) _mm_stream_si64((long long *)(p), (long long)(v))
#else
#define STORE_STREAM(p, v) (*(p) = (v))
#endif

/* The inverse for the winners: `count` winners of each of I lanes (lane l's at w + l * count)
 * into out as rows of I; again an interleaved group of constant size. */
#define UNDEAL_FN(I)                                                                               \
    DEAL_CLONES static void undeal_##I(const int64_t *w, uint64_t count, int64_t *out, int stream) \
    {                                                                                              \
        if (stream)                                                                                \
            for (uint64_t r = 0; r < count; r++)                                                   \
                for (uint64_t l = 0; l < (I); l++)                                                 \
                    STORE_STREAM(out + r * (I) + l, w[l * count + r]);                             \
        else                                                                                       \
            for (uint64_t r = 0; r < count; r++)                                                   \
                for (uint64_t l = 0; l < (I); l++)                                                 \
                    out[r * (I) + l] = w[l * count + r];                                           \
    }
UNDEAL_FN(2)
UNDEAL_FN(3)
UNDEAL_FN(4)
UNDEAL_FN(5)
UNDEAL_FN(6)
UNDEAL_FN(7)

typedef void (*deal_fn)(const void *s, uint64_t count, void *d);
typedef void (*undeal_fn)(const int64_t *w, uint64_t count, int64_t *out, int stream);
static const undeal_fn undeal[DEAL_INNER + 1] = {NULL,     NULL,     undeal_2, undeal_3,
                                                 undeal_4, undeal_5, undeal_6, undeal_7};

static deal_fn pick_deal(size_t esize, uint64_t inner)
{
#define DEAL_ROW(T)                                                                                \
    {                                                                                              \
        NULL, NULL, deal_##T##_2, deal_##T##_3, deal_##T##_4, deal_##T##_5, deal_##T##_6,          \
            deal_##T##_7                                                                           \
    }
    static const deal_fn table[4][DEAL_INNER + 1] = {
        DEAL_ROW(uint8_t),
        DEAL_ROW(uint16_t),
        DEAL_ROW(uint32_t),
        {NULL, NULL, deal_uint64_t_2, deal_uint64_t_3, NULL, NULL, NULL, NULL}};
#undef DEAL_ROW
    int w = esize == 1 ? 0 : esize == 2 ? 1 : esize == 4 ? 2 : 3;
    return table[w][inner];
}

int clmax_cpu_deal_fits(size_t esize, uint64_t n, uint64_t inner)
{
    /* Rows of lanes under a vector, and rows of at most 1 KiB, 512 bytes for 8-byte types: wider
     * lanes and longer 8-byte rows ran as fast or faster in the lanes code (docs/TUNING.md).
     */
    if (inner * esize >= 32 || n * esize > (esize == 8 ? 512 : 1024)) return 0;
    return inner >= 2 && inner <= DEAL_INNER && n >= 2 && n <= CLMAX_SHORT_MAX_N &&
           (esize == 1 || esize == 2 || esize == 4 || esize == 8) &&
           n * inner * esize <= DEAL_BYTES;
}

void clmax_cpu_deal_slices(const void *x, uint64_t slices, uint64_t n, uint64_t inner, size_t esize,
                           int last, int stream, clmax_short_simd_fn simd, clmax_short_rows_fn rows,
                           int64_t *out)
{
    _Alignas(64) unsigned char buf[DEAL_BYTES + DEAL_SLACK];
    int64_t win[DEAL_OUT];
    memset(buf + DEAL_BYTES, 0, DEAL_SLACK); /* the row code's loads past the end read zeros */
    const deal_fn deal = pick_deal(esize, inner);
    const uint64_t slice_bytes = n * inner * esize;
    uint64_t group = DEAL_BYTES / slice_bytes;
    if (group * inner > DEAL_OUT) group = DEAL_OUT / inner;
    const unsigned char *s = x;
    for (uint64_t g0 = 0; g0 < slices; g0 += group) {
        const uint64_t g = slices - g0 < group ? slices - g0 : group;
        /* the next group's lines, while this one is dealt: the hardware prefetcher alone lags */
        const unsigned char *next = s + (g0 + g) * slice_bytes;
        const uint64_t ahead = g0 + g < slices ? (slices - g0 - g < g ? slices - g0 - g : g) : 0;
        for (uint64_t c = 0; c < ahead * slice_bytes; c += 64)
            __builtin_prefetch(next + c);
        deal(s + g0 * slice_bytes, g * n, buf);
        /* stream l: g rows of n elements, from buf + l * g * n elements; its winners at win + l*g;
         * the vector code may read on into the next streams or the zeroed slack */
        const uint64_t readable = (DEAL_BYTES + DEAL_SLACK) / esize;
        for (uint64_t l = 0; l < inner; l++) {
            const unsigned char *st = buf + l * g * n * esize;
            int64_t *w = win + l * g;
            uint64_t done = 0;
            if (simd != NULL) done = simd(st, g, n, last, w, readable - l * g * n);
            if (done < g) rows(st + done * n * esize, g - done, n, last, w + done);
        }
        undeal[inner](win, g, out + g0 * inner, stream);
    }
}
