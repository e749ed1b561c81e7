/* The CPU path's practical limit: a multi-threaded streaming read (and read+write) over the same
 * bytes, with threads created per call as the CPU path creates them. Threads take 1 MiB blocks
 * from a shared counter, as the CPU path takes its units, so a core that another process steals
 * for a while does not hold the whole run back. */
#include "bench.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define MAX_PROBE_THREADS 256
#define PROBE_BLOCK (1u << 20) /* bytes per unit of work; a multiple of 64 */
#define COPY_XOR 0x5A5A5A5A5A5A5A5Aull
/* Both loops prefetch `pf` bytes ahead, one prefetch per 64 bytes (pf 0: none), as the library's
 * CPU loops do: a baseline without it understates the limit on machines whose hardware
 * prefetcher lags (the development machine of docs/PERFORMANCE.md). */
/* The work: in_blocks blocks of the input, then the output's blocks. copy: block b of the input is
 * copied to block b of the output; else the input's blocks are read and the output's written. */
typedef struct probe_shared {
    const unsigned char *x;
    unsigned char *y;
    uint64_t in_bytes, out_bytes, in_blocks, blocks;
    int copy;
    unsigned pf;               /* prefetch distance, bytes */
    atomic_uint_fast64_t next; /* next block */
} probe_shared;

typedef struct probe_job {
    probe_shared *sh;
    uint64_t sum;
} probe_job;

/* Compiled for AVX2 too, as the library's loops are, so that the baseline is never limited by
 * SSE2 instructions where the operator is not. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(CLMAX_NO_CLONES)
#define PROBE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PROBE_CLONES
#endif

PROBE_CLONES static uint64_t sum_words(const unsigned char *p, uint64_t bytes, unsigned pf)
{
    const uint64_t *w = (const uint64_t *)(const void *)p;
    uint64_t n = bytes / 8, i = 0;
    /* Independent accumulators: the loop vectorises and is not latency bound. */
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (; i + 8 <= n; i += 8) {
        if (pf) __builtin_prefetch((const char *)(w + i) + pf);
        s0 += w[i];
        s1 += w[i + 1];
        s2 += w[i + 2];
        s3 += w[i + 3];
        s4 += w[i + 4];
        s5 += w[i + 5];
        s6 += w[i + 6];
        s7 += w[i + 7];
    }
    for (; i < n; i++)
        s0 += w[i];
    uint64_t s = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
    for (uint64_t b = n * 8; b < bytes; b++)
        s += p[b];
    return s;
}

/* A cache-resident read: no prefetch, and 512-bit vectors where the CPU has them, as the
 * library's cache-resident row search has (a read slower than the operator is no limit). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(CLMAX_NO_CLONES)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static uint64_t
sum_words_hot(const unsigned char *p, uint64_t bytes)
{
    const uint64_t *w = (const uint64_t *)(const void *)p;
    uint64_t n = bytes / 8, i = 0;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; k++) {
            s0 += w[i + 8 * k];
            s1 += w[i + 8 * k + 1];
            s2 += w[i + 8 * k + 2];
            s3 += w[i + 8 * k + 3];
            s4 += w[i + 8 * k + 4];
            s5 += w[i + 8 * k + 5];
            s6 += w[i + 8 * k + 6];
            s7 += w[i + 8 * k + 7];
        }
    for (; i < n; i++)
        s0 += w[i];
    uint64_t s = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
    for (uint64_t b = n * 8; b < bytes; b++)
        s += p[b];
    return s;
}

/* The output is not read again soon, so streaming (non-temporal) stores are the practical limit
 * where the compiler offers them: no read-for-ownership of the destination lines. */
static void copy_xor(const unsigned char *x, unsigned char *y, uint64_t bytes, unsigned pf)
{
    const uint64_t *restrict w = (const uint64_t *)(const void *)x;
    uint64_t *restrict o = (uint64_t *)(void *)y;
    uint64_t n = bytes / 8, i = 0;
#ifdef __SSE2__
    if (((uintptr_t)w | (uintptr_t)o) % 16 == 0) {
        const __m128i c = _mm_set1_epi64x((long long)COPY_XOR);
        for (; i + 2 <= n; i += 2) {
            if (pf && i % 8 == 0) __builtin_prefetch((const char *)(w + i) + pf);
            _mm_stream_si128(
                (__m128i *)(void *)(o + i),
                _mm_xor_si128(_mm_load_si128((const __m128i *)(const void *)(w + i)), c));
        }
        _mm_sfence();
    }
#endif
    for (; i < n; i++)
        o[i] = w[i] ^ COPY_XOR;
    for (uint64_t b = n * 8; b < bytes; b++)
        y[b] = (unsigned char)(x[b] ^ 0x5A);
}

/* Streaming stores of a constant: the write half of the sweep's read+write limit. */
static void write_words(unsigned char *y, uint64_t bytes)
{
    uint64_t *o = (uint64_t *)(void *)y;
    uint64_t n = bytes / 8, i = 0;
#ifdef __SSE2__
    if ((uintptr_t)o % 16 == 0) {
        const __m128i c = _mm_set1_epi64x((long long)COPY_XOR);
        for (; i + 2 <= n; i += 2)
            _mm_stream_si128((__m128i *)(void *)(o + i), c);
        _mm_sfence();
    }
#endif
    for (; i < n; i++)
        o[i] = COPY_XOR;
    memset(y + n * 8, 0x5A, (size_t)(bytes - n * 8));
}

static void *worker(void *arg)
{
    probe_job *j = arg;
    probe_shared *sh = j->sh;
    uint64_t b;
    while ((b = atomic_fetch_add(&sh->next, 1)) < sh->blocks) {
        int rd = b < sh->in_blocks;
        uint64_t off = (rd ? b : b - sh->in_blocks) * PROBE_BLOCK;
        uint64_t total = rd ? sh->in_bytes : sh->out_bytes;
        uint64_t len = total - off < PROBE_BLOCK ? total - off : PROBE_BLOCK;
        if (sh->copy)
            copy_xor(sh->x + off, sh->y + off, len, sh->pf);
        else if (rd)
            j->sum += sum_words(sh->x + off, len, sh->pf);
        else
            write_words(sh->y + off, len);
    }
    return NULL;
}

/* Runs the probe on threads threads (the caller's included); returns the sum of the reads. */
static uint64_t run(const void *x, uint64_t in_bytes, void *y, uint64_t out_bytes, int copy,
                    int threads)
{
    if (threads < 1) threads = 1;
    if (threads > MAX_PROBE_THREADS) threads = MAX_PROBE_THREADS;
    probe_shared sh;
    sh.x = x;
    sh.y = y;
    sh.in_bytes = in_bytes;
    sh.out_bytes = out_bytes;
    sh.copy = copy;
    sh.in_blocks = (in_bytes + PROBE_BLOCK - 1) / PROBE_BLOCK;
    sh.blocks = copy ? sh.in_blocks : sh.in_blocks + (out_bytes + PROBE_BLOCK - 1) / PROBE_BLOCK;
    sh.pf = bench_probe_prefetch();
    atomic_init(&sh.next, 0);
    probe_job jobs[MAX_PROBE_THREADS];
    pthread_t tids[MAX_PROBE_THREADS];
    int started = 0;
    for (int t = 0; t < threads; t++)
        jobs[t] = (probe_job){&sh, 0};
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&tids[t], NULL, worker, &jobs[t]) != 0) break;
        started = t;
    }
    worker(&jobs[0]); /* also finishes alone if no thread could start */
    uint64_t s = jobs[0].sum;
    for (int t = 1; t <= started; t++) {
        pthread_join(tids[t], NULL);
        s += jobs[t].sum;
    }
    return s;
}

uint64_t bench_cpu_read(const void *x, uint64_t bytes, int threads)
{
    return run(x, bytes, NULL, 0, 0, threads);
}

uint64_t bench_cpu_read_hot(const void *x, uint64_t bytes)
{
    return sum_words_hot(x, bytes);
}

void bench_cpu_copy(const void *x, void *y, uint64_t bytes, int threads)
{
    run(x, bytes, y, bytes, 1, threads);
}

uint64_t bench_cpu_read_write(const void *x, uint64_t in_bytes, void *y, uint64_t out_bytes,
                              int threads)
{
    return run(x, in_bytes, y, out_bytes, 0, threads);
}
