/* The CPU path's practical limit: a multi-threaded streaming read (and read+write) over the same
 * bytes, with threads created per call as the CPU path creates them. */
#include "bench.h"

#include <pthread.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define MAX_PROBE_THREADS 256
#define COPY_XOR 0x5A5A5A5A5A5A5A5Aull

typedef struct probe_job {
    const unsigned char *x;
    unsigned char *y;
    uint64_t begin, end; /* byte range, 64-byte aligned except the last end */
    uint64_t sum;
} probe_job;

static uint64_t sum_words(const unsigned char *p, uint64_t bytes)
{
    const uint64_t *w = (const uint64_t *)(const void *)p;
    uint64_t n = bytes / 8, i = 0;
    /* Independent accumulators: the loop vectorises and is not latency bound. */
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (; i + 8 <= n; i += 8) {
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

static void *read_worker(void *arg)
{
    probe_job *j = arg;
    j->sum = sum_words(j->x + j->begin, j->end - j->begin);
    return NULL;
}

/* The output is not read again soon, so streaming (non-temporal) stores are the practical limit
 * where the compiler offers them: no read-for-ownership of the destination lines. */
static void *copy_worker(void *arg)
{
    probe_job *j = arg;
    const uint64_t *restrict w = (const uint64_t *)(const void *)(j->x + j->begin);
    uint64_t *restrict o = (uint64_t *)(void *)(j->y + j->begin);
    uint64_t bytes = j->end - j->begin, n = bytes / 8, i = 0;
#ifdef __SSE2__
    if (((uintptr_t)w | (uintptr_t)o) % 16 == 0) {
        const __m128i c = _mm_set1_epi64x((long long)COPY_XOR);
        for (; i + 2 <= n; i += 2)
            _mm_stream_si128(
                (__m128i *)(void *)(o + i),
                _mm_xor_si128(_mm_load_si128((const __m128i *)(const void *)(w + i)), c));
        _mm_sfence();
    }
#endif
    for (; i < n; i++)
        o[i] = w[i] ^ COPY_XOR;
    for (uint64_t b = n * 8; b < bytes; b++)
        j->y[j->begin + b] = (unsigned char)(j->x[j->begin + b] ^ 0x5A);
    return NULL;
}

static void run(void *(*fn)(void *), probe_job *jobs, const void *x, void *y, uint64_t bytes,
                int threads)
{
    if (threads < 1) threads = 1;
    if (threads > MAX_PROBE_THREADS) threads = MAX_PROBE_THREADS;
    uint64_t per = (bytes / (uint64_t)threads + 63) / 64 * 64;
    for (int t = 0; t < threads; t++) {
        uint64_t b = per * (uint64_t)t, e = b + per;
        if (b > bytes) b = bytes;
        if (e > bytes || t == threads - 1) e = bytes;
        jobs[t] = (probe_job){x, y, b, e, 0};
    }
    pthread_t tids[MAX_PROBE_THREADS];
    int started = 0;
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&tids[t], NULL, fn, &jobs[t]) != 0) break;
        started = t;
    }
    for (int t = started + 1; t < threads; t++)
        fn(&jobs[t]);
    fn(&jobs[0]);
    for (int t = 1; t <= started; t++)
        pthread_join(tids[t], NULL);
}

uint64_t bench_cpu_read(const void *x, uint64_t bytes, int threads)
{
    probe_job jobs[MAX_PROBE_THREADS];
    run(read_worker, jobs, x, NULL, bytes, threads);
    uint64_t s = 0;
    int n = threads < 1 ? 1 : (threads > MAX_PROBE_THREADS ? MAX_PROBE_THREADS : threads);
    for (int t = 0; t < n; t++)
        s += jobs[t].sum;
    return s;
}

void bench_cpu_copy(const void *x, void *y, uint64_t bytes, int threads)
{
    probe_job jobs[MAX_PROBE_THREADS];
    run(copy_worker, jobs, x, y, bytes, threads);
}
