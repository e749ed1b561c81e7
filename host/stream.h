/* Non-temporal ("streaming") stores, for the host's large outputs: written once and not read back
 * here, so a plain store, which first reads each line it writes, would cost a third more traffic
 * than the read + write the work needs. Used by the CPU path's winners (cpu/cpu_short.h) and by
 * Hardmax's one-hot output (onehot.c). A thread that streamed calls clmax_stream_fence() before
 * its work is joined, so that the bytes are visible to the thread that joins it. */
#ifndef CLMAX_STREAM_H
#define CLMAX_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Outputs of at least this many bytes are streamed out where a code has a streamed way: smaller
 * ones are left to plain stores, which keep them in the cache for a caller that reads them next;
 * every code's own measurements (docs/TUNING.md) found its gain from here. */
#define CLMAX_STREAM_MIN (8u << 20)

#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define CLMAX_HAVE_STREAM 1

static inline void clmax_stream_fence(void)
{
    _mm_sfence();
}

/* Copies bytes from src (in the cache) to dst, the 16-byte aligned body of dst streamed. */
static inline void clmax_stream_copy(void *dst, const void *src, size_t bytes)
{
    char *d = dst;
    const char *s = src;
    size_t head = (size_t)(-(uintptr_t)d & 15u);
    if (head > bytes) head = bytes;
    memcpy(d, s, head);
    size_t b = head;
    for (; b + 16 <= bytes; b += 16)
        _mm_stream_si128((__m128i *)(void *)(d + b),
                         _mm_loadu_si128((const __m128i *)(const void *)(s + b)));
    memcpy(d + b, s + b, bytes - b);
}

/* Streams bytes (a multiple of 16) from src to dst, which is 16-byte aligned: a vector of a
 * result, written where the caller has aligned its stores. */
static inline void clmax_stream_aligned(void *dst, const void *src, size_t bytes)
{
    for (size_t b = 0; b < bytes; b += 16)
        _mm_stream_si128((__m128i *)(void *)((char *)dst + b),
                         _mm_loadu_si128((const __m128i *)(const void *)((const char *)src + b)));
}

/* Fills [dst, dst + bytes) with the 8-byte word repeated, the 16-byte aligned body streamed a
 * line at a time. word is one element repeated and dst is aligned to the element, so every
 * element-aligned spot starts the pattern afresh: the head's bytes and the vectors agree. */
static inline void clmax_stream_fill(void *dst, size_t bytes, uint64_t word)
{
    char *p = dst;
    unsigned char w[8];
    memcpy(w, &word, 8);
    size_t head = (size_t)(-(uintptr_t)p & 15u);
    if (head > bytes) head = bytes;
    for (size_t b = 0; b < head; b++)
        p[b] = (char)w[b % 8];
    size_t body = (bytes - head) & ~(size_t)63;
    const __m128i z = _mm_set1_epi64x((long long)word);
    for (size_t b = head; b < head + body; b += 64) {
        _mm_stream_si128((__m128i *)(void *)(p + b), z);
        _mm_stream_si128((__m128i *)(void *)(p + b + 16), z);
        _mm_stream_si128((__m128i *)(void *)(p + b + 32), z);
        _mm_stream_si128((__m128i *)(void *)(p + b + 48), z);
    }
    for (size_t b = head + body; b < bytes; b++)
        p[b] = (char)w[(b - head) % 8];
}

/* Streams buf [0, len) to at on, in whole 64-byte lines of the destination only; returns the
 * bytes of the last part-line, which it moves to buf's front for the caller's next piece (a
 * part-line streamed costs a whole line's write). The caller writes what is left in the end. */
static inline size_t clmax_stream_lines(char *at, char *buf, size_t len)
{
    size_t keep = (size_t)((uintptr_t)(at + len) % 64);
    if (keep > len) keep = len;
    clmax_stream_copy(at, buf, len - keep);
    memmove(buf, buf + len - keep, keep);
    return keep;
}

/* Zeroes [dst, dst + bytes), the 16-byte aligned body streamed. */
static inline void clmax_stream_zero(void *dst, size_t bytes)
{
    clmax_stream_fill(dst, bytes, 0);
}
#else
static inline void clmax_stream_fence(void) {}
static inline void clmax_stream_copy(void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
}
static inline void clmax_stream_fill(void *dst, size_t bytes, uint64_t word)
{
    unsigned char w[8];
    memcpy(w, &word, 8);
    for (size_t b = 0; b < bytes; b++)
        ((unsigned char *)dst)[b] = w[b % 8];
}
static inline void clmax_stream_zero(void *dst, size_t bytes)
{
    memset(dst, 0, bytes);
}
static inline size_t clmax_stream_lines(char *at, char *buf, size_t len)
{
    memcpy(at, buf, len);
    return 0;
}
static inline void clmax_stream_aligned(void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
}
#endif

#endif
