/* Test helpers (random numbers, types, value pools, fills, contexts); the checks against the
 * reference are in check.c. See common.h. */
#include "common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- Random numbers ------------------------------------------------------------------------ */

void rng_seed(test_rng *rng, uint64_t seed)
{
    rng->state = seed * 0x9E3779B97F4A7C15ull + 0x1234567ull;
}

int64_t rng_range(test_rng *rng, int64_t lo, int64_t hi)
{
    return lo + (int64_t)rng_below(rng, (uint64_t)(hi - lo) + 1);
}

/* ---- Types and names ----------------------------------------------------------------------- */

const clmax_type test_all_types[TEST_NUM_TYPES] = {
    CLMAX_TYPE_FLOAT16, CLMAX_TYPE_BFLOAT16, CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT64,
    CLMAX_TYPE_INT8,    CLMAX_TYPE_INT16,    CLMAX_TYPE_INT32,   CLMAX_TYPE_INT64,
    CLMAX_TYPE_UINT8,   CLMAX_TYPE_UINT16,   CLMAX_TYPE_UINT32,  CLMAX_TYPE_UINT64};
const clmax_type test_float_types[TEST_NUM_FLOAT_TYPES] = {CLMAX_TYPE_FLOAT16, CLMAX_TYPE_BFLOAT16,
                                                           CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT64};
const int test_argmax_opsets[4] = {1, 11, 12, 13};
const int test_hardmax_opsets[3] = {1, 11, 13};

const char *test_type_str(clmax_type type)
{
    switch (type) {
    case CLMAX_TYPE_FLOAT32:
        return "float32";
    case CLMAX_TYPE_UINT8:
        return "uint8";
    case CLMAX_TYPE_INT8:
        return "int8";
    case CLMAX_TYPE_UINT16:
        return "uint16";
    case CLMAX_TYPE_INT16:
        return "int16";
    case CLMAX_TYPE_INT32:
        return "int32";
    case CLMAX_TYPE_INT64:
        return "int64";
    case CLMAX_TYPE_FLOAT16:
        return "float16";
    case CLMAX_TYPE_FLOAT64:
        return "float64";
    case CLMAX_TYPE_UINT32:
        return "uint32";
    case CLMAX_TYPE_UINT64:
        return "uint64";
    case CLMAX_TYPE_BFLOAT16:
        return "bfloat16";
    }
    return "type?";
}

const char *test_backend_str(clmax_backend backend)
{
    switch (backend) {
    case CLMAX_BACKEND_AUTO:
        return "auto";
    case CLMAX_BACKEND_OPENCL:
        return "opencl";
    case CLMAX_BACKEND_CPU:
        return "cpu";
    }
    return "backend?";
}

const char *test_strategy_str(clmax_strategy strategy)
{
    switch (strategy) {
    case CLMAX_STRATEGY_AUTO:
        return "auto";
    case CLMAX_STRATEGY_ROWS:
        return "rows";
    case CLMAX_STRATEGY_STRIDED:
        return "strided";
    case CLMAX_STRATEGY_SPLIT:
        return "split";
    }
    return "strategy?";
}

char *test_shape_str(const clmax_tensor_desc *desc, char *buf, size_t size)
{
    size_t used = 0;
    used += (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < desc->rank && i < CLMAX_MAX_RANK && used < size; i++)
        used +=
            (size_t)snprintf(buf + used, size - used, "%s%" PRId64, i ? "," : "", desc->dims[i]);
    if (used < size) snprintf(buf + used, size - used, "]");
    return buf;
}

clmax_tensor_desc test_desc(clmax_type type, int rank, const int64_t *dims)
{
    clmax_tensor_desc d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.rank = rank;
    for (int i = 0; i < rank && i < CLMAX_MAX_RANK; i++)
        d.dims[i] = dims[i];
    return d;
}

uint64_t output_count(const clmax_tensor_desc *desc)
{
    uint64_t c = 1;
    for (int i = 0; i < desc->rank; i++)
        c *= (uint64_t)desc->dims[i];
    return c;
}

/* ---- Elements as raw bits ------------------------------------------------------------------ */

void elem_set(clmax_type type, void *x, uint64_t i, uint64_t bits)
{
    size_t es = ref_type_size(type);
    unsigned char *p = (unsigned char *)x + i * es;
    switch (es) {
    case 1: {
        uint8_t v = (uint8_t)bits;
        memcpy(p, &v, 1);
        break;
    }
    case 2: {
        uint16_t v = (uint16_t)bits;
        memcpy(p, &v, 2);
        break;
    }
    case 4: {
        uint32_t v = (uint32_t)bits;
        memcpy(p, &v, 4);
        break;
    }
    default:
        memcpy(p, &bits, 8);
        break;
    }
}

uint64_t elem_get(clmax_type type, const void *x, uint64_t i)
{
    size_t es = ref_type_size(type);
    const unsigned char *p = (const unsigned char *)x + i * es;
    switch (es) {
    case 1: {
        uint8_t v;
        memcpy(&v, p, 1);
        return v;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

static uint64_t type_mask(clmax_type type)
{
    size_t es = ref_type_size(type);
    return es == 8 ? ~0ull : ((1ull << (es * 8)) - 1);
}

/* Integer extremes as raw bits of the type's width. */
static uint64_t int_max_bits(clmax_type type)
{
    return ref_type_is_signed(type) ? type_mask(type) >> 1 : type_mask(type);
}

static uint64_t int_min_bits(clmax_type type)
{
    return ref_type_is_signed(type) ? (type_mask(type) >> 1) + 1 : 0;
}

/* ---- Value pools --------------------------------------------------------------------------- */

static const uint64_t pool_f16[] = {0x7E00, 0xFE00, 0x7C01, 0xFC01, 0x7FFF, 0xFFFF, 0x7D00, 0x7C00,
                                    0xFC00, 0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400,
                                    0x8400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x3C01, 0x0002, 0x8002};
static const uint64_t pool_bf16[] = {
    0x7FC0, 0xFFC0, 0x7F81, 0xFF81, 0x7FFF, 0xFFFF, 0x7FA0, 0x7F80, 0xFF80, 0x0000, 0x8000, 0x0001,
    0x8001, 0x007F, 0x807F, 0x0080, 0x8080, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80, 0x3F81, 0x0002, 0x8002};
static const uint64_t pool_f32[] = {
    0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FC00001, 0x7F800000,
    0xFF800000, 0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,
    0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x3F800001, 0x00000002, 0x80000002};
static const uint64_t pool_f64[] = {
    0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull, 0xFFF0000000000001ull,
    0x7FFFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull, 0x7FF8000000000001ull, 0x7FF0000000000000ull,
    0xFFF0000000000000ull, 0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull,
    0x8000000000000001ull, 0x000FFFFFFFFFFFFFull, 0x800FFFFFFFFFFFFFull, 0x0010000000000000ull,
    0x8010000000000000ull, 0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull, 0x3FF0000000000000ull,
    0xBFF0000000000000ull, 0x3FF0000000000001ull, 0x0000000000000002ull, 0x8000000000000002ull};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

uint64_t value_random(clmax_type type, test_rng *rng)
{
    return rng_next(rng) & type_mask(type);
}

uint64_t value_special(clmax_type type, test_rng *rng)
{
    switch (type) {
    case CLMAX_TYPE_FLOAT16:
        return pool_f16[rng_below(rng, COUNT_OF(pool_f16))];
    case CLMAX_TYPE_BFLOAT16:
        return pool_bf16[rng_below(rng, COUNT_OF(pool_bf16))];
    case CLMAX_TYPE_FLOAT32:
        return pool_f32[rng_below(rng, COUNT_OF(pool_f32))];
    case CLMAX_TYPE_FLOAT64:
        return pool_f64[rng_below(rng, COUNT_OF(pool_f64))];
    default:
        break;
    }
    uint64_t mask = type_mask(type), max = int_max_bits(type), min = int_min_bits(type);
    uint64_t pool[12] = {
        min, min + 1,       max,        max - 1,        0,           1,
        2,   mask /* -1 */, (max >> 1), (max >> 1) + 1, 0x55555555u, 0xAAAAAAAAAAAAAAAAull};
    return pool[rng_below(rng, 12)] & mask;
}

uint64_t value_below_one(clmax_type type, test_rng *rng)
{
    uint64_t r = rng_next(rng);
    uint64_t sign = r & 1;
    int denormal = rng_below(rng, 8) == 0;
    switch (type) {
    case CLMAX_TYPE_FLOAT16: {
        uint64_t e = denormal ? 0 : rng_below(rng, 15);
        return (sign << 15) | (e << 10) | ((r >> 8) & 0x3FF);
    }
    case CLMAX_TYPE_BFLOAT16: {
        uint64_t e = denormal ? 0 : rng_below(rng, 127);
        return (sign << 15) | (e << 7) | ((r >> 8) & 0x7F);
    }
    case CLMAX_TYPE_FLOAT32: {
        uint64_t e = denormal ? 0 : rng_below(rng, 127);
        return (sign << 31) | (e << 23) | ((r >> 8) & 0x7FFFFF);
    }
    case CLMAX_TYPE_FLOAT64: {
        uint64_t e = denormal ? 0 : rng_below(rng, 1023);
        return (sign << 63) | (e << 52) | ((r >> 8) & 0xFFFFFFFFFFFFFull);
    }
    default: {
        uint64_t v = r & type_mask(type);
        return v == int_max_bits(type) ? v - 1 : v;
    }
    }
}

uint64_t value_top(clmax_type type, test_rng *rng)
{
    uint64_t r = rng_next(rng);
    uint64_t sign = r & 1;
    switch (type) {
    case CLMAX_TYPE_FLOAT16:
        return (sign << 15) | 0x7C00 | (1 + ((r >> 8) % 0x3FF));
    case CLMAX_TYPE_BFLOAT16:
        return (sign << 15) | 0x7F80 | (1 + ((r >> 8) % 0x7F));
    case CLMAX_TYPE_FLOAT32:
        return (sign << 31) | 0x7F800000 | (1 + ((r >> 8) % 0x7FFFFF));
    case CLMAX_TYPE_FLOAT64:
        return (sign << 63) | 0x7FF0000000000000ull | (1 + ((r >> 8) % 0xFFFFFFFFFFFFFull));
    default:
        return int_max_bits(type);
    }
}

uint64_t value_one(clmax_type type)
{
    switch (type) {
    case CLMAX_TYPE_FLOAT16:
        return 0x3C00;
    case CLMAX_TYPE_BFLOAT16:
        return 0x3F80;
    case CLMAX_TYPE_FLOAT32:
        return 0x3F800000;
    case CLMAX_TYPE_FLOAT64:
        return 0x3FF0000000000000ull;
    default:
        return int_max_bits(type);
    }
}

uint64_t value_above_bottom(clmax_type type, test_rng *rng)
{
    if (!ref_type_is_integer(type)) return value_below_one(type, rng);
    uint64_t v = value_random(type, rng);
    return v == int_min_bits(type) ? v ^ 1 : v;
}

uint64_t value_bottom(clmax_type type)
{
    switch (type) {
    case CLMAX_TYPE_FLOAT16:
        return 0xFC00;
    case CLMAX_TYPE_BFLOAT16:
        return 0xFF80;
    case CLMAX_TYPE_FLOAT32:
        return 0xFF800000;
    case CLMAX_TYPE_FLOAT64:
        return 0xFFF0000000000000ull;
    default:
        return int_min_bits(type);
    }
}

uint64_t value_small(clmax_type type, int k, test_rng *rng)
{
    static const uint64_t f16[7] = {0xC200, 0xC000, 0xBC00, 0, 0x3C00, 0x4000, 0x4200};
    static const uint64_t bf16[7] = {0xC040, 0xC000, 0xBF80, 0, 0x3F80, 0x4000, 0x4040};
    static const uint64_t f32[7] = {0xC0400000, 0xC0000000, 0xBF800000, 0,
                                    0x3F800000, 0x40000000, 0x40400000};
    static const uint64_t f64[7] = {
        0xC008000000000000ull, 0xC000000000000000ull, 0xBFF0000000000000ull, 0,
        0x3FF0000000000000ull, 0x4000000000000000ull, 0x4008000000000000ull};
    uint64_t negzero = rng_below(rng, 2);
    switch (type) {
    case CLMAX_TYPE_FLOAT16:
        return k == 0 ? negzero << 15 : f16[k + 3];
    case CLMAX_TYPE_BFLOAT16:
        return k == 0 ? negzero << 15 : bf16[k + 3];
    case CLMAX_TYPE_FLOAT32:
        return k == 0 ? negzero << 31 : f32[k + 3];
    case CLMAX_TYPE_FLOAT64:
        return k == 0 ? negzero << 63 : f64[k + 3];
    default:
        if (ref_type_is_signed(type)) return (uint64_t)(int64_t)k & type_mask(type);
        return (uint64_t)(k + 3);
    }
}

static uint64_t value_any(clmax_type type, test_rng *rng)
{
    switch (rng_below(rng, 3)) {
    case 0:
        return value_special(type, rng);
    case 1:
        return value_below_one(type, rng);
    default:
        return value_random(type, rng);
    }
}

void fill_tensor(clmax_type type, void *x, uint64_t count, fill_mode mode, test_rng *rng)
{
    uint64_t few[4];
    uint64_t nfew = 2 + rng_below(rng, 3);
    for (uint64_t j = 0; j < nfew; j++)
        few[j] = value_any(type, rng);
    for (uint64_t i = 0; i < count; i++) {
        uint64_t v;
        switch (mode) {
        case FILL_BITS:
            v = value_random(type, rng);
            break;
        case FILL_SPECIAL:
            v = value_special(type, rng);
            break;
        case FILL_FEW:
            v = few[rng_below(rng, nfew)];
            break;
        case FILL_MIXED:
            v = rng_below(rng, 10) == 0 ? value_special(type, rng) : value_below_one(type, rng);
            break;
        case FILL_CONST:
            v = few[0];
            break;
        default:
            v = value_small(type, (int)rng_range(rng, -3, 3), rng);
            break;
        }
        elem_set(type, x, i, v);
    }
}

void plant(clmax_type type, void *x, ref_view v, uint64_t o, uint64_t i, uint64_t k, uint64_t bits)
{
    elem_set(type, x, (o * v.n + k) * v.inner + i, bits);
}

static uint64_t with_sign(clmax_type type, uint64_t bits, uint64_t sign)
{
    return bits | (sign << (ref_type_size(type) * 8 - 1));
}

void fill_special_rows(clmax_type type, void *x, ref_view v, test_rng *rng)
{
    int is_float = !ref_type_is_integer(type);
    uint64_t den = is_float ? 1 : 0;
    for (uint64_t o = 0; o < v.outer; o++)
        for (uint64_t i = 0; i < v.inner; i++) {
            int kind = (int)rng_below(rng, 8);
            uint64_t pick = rng_below(rng, v.n);
            uint64_t same = value_special(type, rng);
            for (uint64_t k = 0; k < v.n; k++) {
                uint64_t b;
                switch (kind) {
                case 0: /* all NaN: the first (or last) wins */
                    b = is_float ? value_top(type, rng) : value_one(type);
                    break;
                case 1: /* all -inf (all minimum) */
                    b = value_bottom(type);
                    break;
                case 2: /* all zeros, mixed signs */
                    b = is_float ? with_sign(type, 0, rng_below(rng, 2)) : 0;
                    break;
                case 3: /* one denormal everywhere */
                    b = den;
                    break;
                case 4: /* -inf, with one NaN */
                    b = k == pick ? value_top(type, rng) : value_bottom(type);
                    break;
                case 5: /* -inf, with one other value */
                    b = k == pick ? value_below_one(type, rng) : value_bottom(type);
                    break;
                case 6: /* one pool value everywhere */
                    b = same;
                    break;
                default:
                    b = value_special(type, rng);
                    break;
                }
                plant(type, x, v, o, i, k, b);
            }
        }
}

const char *fill_mode_str(fill_mode mode)
{
    static const char *names[] = {"bits", "special", "few", "mixed", "const", "small"};
    return mode < FILL_MODES ? names[mode] : "mode?";
}

void *test_malloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    cr_assert_not_null(p, "out of host memory allocating %zu bytes", size);
    return p;
}

/* ---- Backends and contexts ----------------------------------------------------------------- */

int backend_enabled(clmax_backend backend)
{
    /* CLMAX_TEST_BACKEND first: unlike CLMAX_BACKEND, the library does not read it, so it leaves
     * out one backend's tests without turning the auto contexts of CLMAX_TEST_AUTO into that
     * backend's. */
    const char *e = getenv("CLMAX_TEST_BACKEND");
    if (e == NULL || *e == '\0') e = getenv("CLMAX_BACKEND");
    if (e && strcasecmp(e, "cpu") == 0) return backend == CLMAX_BACKEND_CPU;
    if (e && strcasecmp(e, "opencl") == 0) return backend == CLMAX_BACKEND_OPENCL;
    return backend == CLMAX_BACKEND_CPU || backend == CLMAX_BACKEND_OPENCL;
}

int test_backends(clmax_backend out[2])
{
    int n = 0;
    if (backend_enabled(CLMAX_BACKEND_CPU)) out[n++] = CLMAX_BACKEND_CPU;
    if (backend_enabled(CLMAX_BACKEND_OPENCL)) out[n++] = CLMAX_BACKEND_OPENCL;
    return n;
}

int test_small(void)
{
    const char *e = getenv("CLMAX_TEST_SMALL");
    return e && strcmp(e, "1") == 0;
}

int opencl_required(void)
{
    const char *e = getenv("CLMAX_REQUIRE_OPENCL");
    return e && strcmp(e, "1") == 0;
}

static char g_label[512] = "no context";

const char *test_context_label(void)
{
    return g_label;
}

clmax_context *test_context_open(clmax_backend backend, const clmax_context_options *options)
{
    clmax_context_options o;
    if (options)
        o = *options;
    else
        clmax_context_options_init(&o);
    /* CLMAX_TEST_AUTO=1: the OpenCL tests run on an auto context, whose per-call choice CI forces
     * to each side with CLMAX_AUTO_PATH; it must have found the device. */
    const char *via = getenv("CLMAX_TEST_AUTO");
    int via_auto = backend == CLMAX_BACKEND_OPENCL && via != NULL && strcmp(via, "1") == 0;
    o.backend = via_auto ? CLMAX_BACKEND_AUTO : backend;
    if (!backend_enabled(backend))
        cr_skip_test("backend %s not selected by CLMAX_TEST_BACKEND or CLMAX_BACKEND",
                     test_backend_str(backend));

    clmax_context *ctx = NULL;
    clmax_status st = clmax_context_create(&o, &ctx);
    if (via_auto && st == CLMAX_OK && clmax_context_backend(ctx) == CLMAX_BACKEND_CPU) {
        clmax_context_destroy(ctx), ctx = NULL;
        st = CLMAX_ERROR_NO_DEVICE; /* the auto context found none */
    }
    if (backend == CLMAX_BACKEND_OPENCL && st == CLMAX_ERROR_NO_DEVICE) {
        if (opencl_required())
            cr_assert_fail("no OpenCL device, and CLMAX_REQUIRE_OPENCL=1: %s", clmax_last_error());
        fprintf(stderr, "warning: no OpenCL device, skipping the OpenCL test: %s\n",
                clmax_last_error());
        cr_skip_test("no OpenCL device");
    }
    cr_assert_eq(st, CLMAX_OK, "clmax_context_create(backend %s) failed with %d (%s): %s",
                 test_backend_str(backend), (int)st, clmax_status_string(st), clmax_last_error());
    cr_assert_not_null(ctx);
    cr_assert_eq(clmax_context_backend(ctx), backend, "context backend %d, asked for %s",
                 (int)clmax_context_backend(ctx), test_backend_str(backend));
    snprintf(g_label, sizeof g_label, "backend %s%s (%s), strategy %s, max_chunk_bytes %" PRIu64,
             test_backend_str(backend), via_auto ? " via auto" : "", clmax_context_device_name(ctx),
             test_strategy_str(o.strategy), o.max_chunk_bytes);
    /* The testing aids the environment applies (.ci/run forces them for whole runs) */
    const char *aids[5] = {o.strategy == CLMAX_STRATEGY_AUTO ? "CLMAX_STRATEGY" : NULL,
                           "CLMAX_PLAN", o.max_chunk_bytes == 0 ? "CLMAX_MAX_CHUNK_BYTES" : NULL,
                           "CLMAX_CPU_AVX512", via_auto ? "CLMAX_AUTO_PATH" : NULL};
    for (size_t i = 0; i < 5 && !o.ignore_environment; i++) {
        const char *v = aids[i] != NULL ? getenv(aids[i]) : NULL;
        size_t used = strlen(g_label);
        if (v != NULL && *v != '\0')
            snprintf(g_label + used, sizeof g_label - used, ", %s=%s", aids[i], v);
    }
    return ctx;
}
