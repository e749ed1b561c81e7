/* Clock, medians, aligned buffers and the random input generator of the benchmark. */
#define _DEFAULT_SOURCE /* madvise */
#include "bench.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

const char *const bench_backend_names[BK_COUNT] = {"opencl", "cl_mem", "cpu"};

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Host buffers in transparent huge pages where the kernel gives them (madvise, as NumPy does for
 * large arrays), unless --small-pages: on a VM a read of 4 KiB pages can measure the page walks
 * rather than the memory (docs/PERFORMANCE.md). */
#define HUGE_PAGE ((size_t)2 << 20)
static int use_huge_pages = 1;

void bench_set_huge_pages(int on)
{
    use_huge_pages = on;
}

void *bench_alloc(size_t bytes)
{
    void *p = NULL;
    /* Page alignment lets OpenCL use the memory in place (CL_MEM_USE_HOST_PTR) without a copy;
     * huge-page alignment lets the whole buffer be in huge pages. */
    int huge = use_huge_pages && bytes >= HUGE_PAGE;
    if (posix_memalign(&p, huge ? HUGE_PAGE : 4096, bytes ? bytes : 1) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    if (huge) (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: refused is fine */
#endif
    memset(p, 0, bytes); /* fault the pages in now, not inside a timed run */
    return p;
}

uint64_t bench_huge_page_bytes(void)
{
    uint64_t huge = 0;
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (f == NULL) return 0;
    char line[256];
    unsigned long long kb;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) huge = (uint64_t)kb << 10;
    fclose(f);
    return huge;
}

void bench_free(void *p)
{
    free(p);
}

int bench_online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > 256 ? 256 : (int)n);
}

void bench_progress(const bench_opts *o, const char *fmt, ...)
{
    if (o->quiet) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("clmax-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void bench_shape_string(const bench_case *c, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int d = 0; d < c->rank && used < size; d++)
        used += (size_t)snprintf(out + used, size - used, "%s%lld", d ? "," : "[",
                                 (long long)c->dims[d]);
    if (used < size) snprintf(out + used, size - used, "]");
}

/* ---- Random input: xorshift64*, one independent stream per block of elements ---- */

#define FILL_BLOCK (1u << 20) /* elements per block; blocks are spread over the threads */

static uint64_t splitmix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static void fill_block(void *x, uint64_t begin, uint64_t end, clmax_type type, uint64_t seed)
{
    uint64_t s = splitmix(seed) | 1;
    switch (type) {
    case CLMAX_TYPE_FLOAT32: {
        float *p = x;
        /* Uniform in [-8, 8) with 24 significant bits: ties are rare, as in real logits. */
        for (uint64_t i = begin; i < end; i++)
            p[i] = (float)(int32_t)(uint32_t)(xorshift(&s) >> 32) * (8.0f / 2147483648.0f);
        break;
    }
    case CLMAX_TYPE_FLOAT16: {
        uint16_t *p = x;
        /* Random sign and mantissa, exponent 1..17 (|v| in [2^-14, 8)): finite, no NaN. */
        for (uint64_t i = begin; i < end; i++) {
            uint64_t r = xorshift(&s);
            p[i] = (uint16_t)(((r >> 63) << 15) | ((((r >> 32) % 17) + 1) << 10) | (r & 0x3FF));
        }
        break;
    }
    case CLMAX_TYPE_BFLOAT16: {
        uint16_t *p = x;
        for (uint64_t i = begin; i < end; i++) {
            uint64_t r = xorshift(&s);
            p[i] = (uint16_t)(((r >> 63) << 15) | ((((r >> 32) % 17) + 113) << 7) | (r & 0x7F));
        }
        break;
    }
    case CLMAX_TYPE_FLOAT64: {
        double *p = x;
        for (uint64_t i = begin; i < end; i++)
            p[i] = (double)(int64_t)xorshift(&s) * (8.0 / 9223372036854775808.0);
        break;
    }
    default: {
        /* Integers: full-range random bits, written a byte at a time for any width. */
        size_t es = clmax_type_size(type);
        unsigned char *p = (unsigned char *)x + begin * es;
        uint64_t bytes = (end - begin) * es, i = 0;
        for (; i + 8 <= bytes; i += 8) {
            uint64_t r = xorshift(&s);
            memcpy(p + i, &r, 8);
        }
        uint64_t r = xorshift(&s);
        for (; i < bytes; i++, r >>= 8)
            p[i] = (unsigned char)r;
        break;
    }
    }
}

typedef struct fill_job {
    void *x;
    uint64_t count;
    clmax_type type;
    int threads, id;
} fill_job;

static void *fill_worker(void *arg)
{
    fill_job *j = arg;
    uint64_t blocks = (j->count + FILL_BLOCK - 1) / FILL_BLOCK;
    for (uint64_t b = (uint64_t)j->id; b < blocks; b += (uint64_t)j->threads) {
        uint64_t end = (b + 1) * FILL_BLOCK < j->count ? (b + 1) * FILL_BLOCK : j->count;
        fill_block(j->x, b * FILL_BLOCK, end, j->type, b * 131 + (uint64_t)j->type);
    }
    return NULL;
}

void bench_fill(void *x, uint64_t count, clmax_type type, int threads)
{
    enum { MAX_FILL_THREADS = 64 };
    if (threads < 1) threads = 1;
    if (threads > MAX_FILL_THREADS) threads = MAX_FILL_THREADS;
    fill_job jobs[MAX_FILL_THREADS];
    pthread_t tids[MAX_FILL_THREADS];
    int started = 0;
    for (int t = 0; t < threads; t++)
        jobs[t] = (fill_job){x, count, type, threads, t};
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tids[t], NULL, fill_worker, &jobs[t]) == 0)
            started = t;
        else
            break;
    /* Blocks of threads that failed to start are done here. */
    for (int t = started + 1; t < threads; t++)
        fill_worker(&jobs[t]);
    fill_worker(&jobs[0]);
    for (int t = 1; t <= started; t++)
        pthread_join(tids[t], NULL);
}

unsigned bench_probe_prefetch(void)
{
    const char *v = getenv("CLMAX_BENCH_PROBE_PREFETCH");
    if (v == NULL || *v == '\0') return 4096;
    char *end;
    unsigned long b = strtoul(v, &end, 10);
    return *end == '\0' && b <= (1ul << 20) ? (unsigned)b : 4096;
}
