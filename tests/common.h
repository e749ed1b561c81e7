/*
 * Test helpers: a seeded random generator, adversarial value pools per element type, backend
 * selection (CLMAX_BACKEND, CLMAX_REQUIRE_OPENCL) and checks of the library against the
 * reference that report the failing case in full.
 */
#ifndef CLMAX_TESTS_COMMON_H
#define CLMAX_TESTS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "clmax.h"
#include "reference.h"

/* ---- Random numbers (splitmix64: tiny, fixed seeds reproduce every failure) ---------------- */

typedef struct test_rng {
    uint64_t state;
} test_rng;

void rng_seed(test_rng *rng, uint64_t seed);

/* Inline: the fills call them per element, and a constant n becomes a multiply, not a divide. */
static inline uint64_t rng_next(test_rng *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint64_t rng_below(test_rng *rng, uint64_t n) /* uniform in [0, n), n > 0 */
{
    return rng_next(rng) % n;
}

int64_t rng_range(test_rng *rng, int64_t lo, int64_t hi); /* uniform in [lo, hi] */

/* ---- Types, opsets, names ------------------------------------------------------------------ */

#define TEST_NUM_TYPES 12
#define TEST_NUM_FLOAT_TYPES 4
/* Four floats (test_float_types'), four signed and four unsigned integers (TYPE_GROUP_TEST). */
extern const clmax_type test_all_types[TEST_NUM_TYPES];
extern const clmax_type test_float_types[TEST_NUM_FLOAT_TYPES]; /* the Hardmax types */
extern const int test_argmax_opsets[4];
extern const int test_hardmax_opsets[3];

const char *test_type_str(clmax_type type);
const char *test_backend_str(clmax_backend backend);
const char *test_strategy_str(clmax_strategy strategy);
/* "[3,4,5]" into buf. Returns buf. */
char *test_shape_str(const clmax_tensor_desc *desc, char *buf, size_t size);
clmax_tensor_desc test_desc(clmax_type type, int rank, const int64_t *dims);

/* ---- Elements as raw bits ------------------------------------------------------------------ */

void elem_set(clmax_type type, void *x, uint64_t i, uint64_t bits);
uint64_t elem_get(clmax_type type, const void *x, uint64_t i);

/* Random bits of the type's width. */
uint64_t value_random(clmax_type type, test_rng *rng);
/* From the adversarial pool: NaNs (signs, payloads), +-inf, +-0, denormals, extremes, 1, ... */
uint64_t value_special(clmax_type type, test_rng *rng);
/* Floats: a value in (-1, 1), +-0 and denormals included. Integers: anything but the maximum. */
uint64_t value_below_one(clmax_type type, test_rng *rng);
/* Floats: a NaN of random sign and payload. Integers: the maximum. Beats value_below_one. */
uint64_t value_top(clmax_type type, test_rng *rng);
/* Floats: 1.0. Integers: the maximum. Beats value_below_one. */
uint64_t value_one(clmax_type type);
/* k in [-3, 3] (floats: k == 0 gives +0 or -0 at random; unsigned: k + 3). */
uint64_t value_small(clmax_type type, int k, test_rng *rng);
/* Integers: the minimum. Floats: -inf. */
uint64_t value_bottom(clmax_type type);
/* Floats: as value_below_one (never -inf or NaN). Integers: anything but the minimum. Loses to
 * value_bottom and value_top in ArgMin's order. */
uint64_t value_above_bottom(clmax_type type, test_rng *rng);

typedef enum fill_mode {
    FILL_BITS,    /* random bit patterns */
    FILL_SPECIAL, /* only pool values: NaNs, infinities, zeros, denormals, extremes */
    FILL_FEW,     /* two to four distinct values: ties everywhere */
    FILL_MIXED,   /* mostly (-1, 1) with some pool values */
    FILL_CONST,   /* one value: every row is a tie */
    FILL_SMALL,   /* small integers -3..3 (+-0 mixed): many ties */
    FILL_MODES
} fill_mode;

void fill_tensor(clmax_type type, void *x, uint64_t count, fill_mode mode, test_rng *rng);
const char *fill_mode_str(fill_mode mode);

/* malloc that fails the test on NULL; size 0 gives a valid pointer. */
void *test_malloc(size_t size);

/* ---- Backends and contexts ----------------------------------------------------------------- */

/* Whether CLMAX_TEST_BACKEND, or where it is unset CLMAX_BACKEND (cpu | opencl | anything else:
 * both), lets this backend be tested. */
int backend_enabled(clmax_backend backend);
/* The backends to test, into out[2]; returns how many. */
int test_backends(clmax_backend out[2]);
/* Whether CLMAX_REQUIRE_OPENCL=1. */
int opencl_required(void);
/* Whether CLMAX_TEST_SMALL=1: the slow checkers (valgrind, .ci/valgrind.sh) run the tests on
 * small shapes, and the tests leave out their cases of millions of elements. */
int test_small(void);

/* Creates a context on backend with options (NULL: defaults; the backend field is overridden).
 * Skips the test when the backend is disabled by CLMAX_BACKEND, or when OpenCL has no device
 * (a failure instead with CLMAX_REQUIRE_OPENCL=1). Fails the test on any other error. Sets the
 * label that check failures print. With CLMAX_TEST_AUTO=1 an OpenCL context is made in auto mode
 * (and must find the device), so that CLMAX_AUTO_PATH steers its calls. */
clmax_context *test_context_open(clmax_backend backend, const clmax_context_options *options);
/* That label: the backend, device, strategy and testing aids of the last context it made. */
const char *test_context_label(void);

/* Defines two tests, suite/name_cpu and suite/name_opencl, both running the body that follows
 * with the variable `backend` set. The trailing arguments are Criterion test options. */
#define BACKEND_TEST(suite, name, ...)                                                             \
    static void suite##_##name##_body(clmax_backend backend);                                      \
    Test(suite, name##_cpu, __VA_ARGS__)                                                           \
    {                                                                                              \
        suite##_##name##_body(CLMAX_BACKEND_CPU);                                                  \
    }                                                                                              \
    Test(suite, name##_opencl, __VA_ARGS__)                                                        \
    {                                                                                              \
        suite##_##name##_body(CLMAX_BACKEND_OPENCL);                                               \
    }                                                                                              \
    static void suite##_##name##_body(clmax_backend backend)

/* X(name, type) for every element type. */
#define FOR_ALL_TYPES(X)                                                                           \
    X(float16, CLMAX_TYPE_FLOAT16)                                                                 \
    X(bfloat16, CLMAX_TYPE_BFLOAT16)                                                               \
    X(float32, CLMAX_TYPE_FLOAT32)                                                                 \
    X(float64, CLMAX_TYPE_FLOAT64)                                                                 \
    X(int8, CLMAX_TYPE_INT8)                                                                       \
    X(int16, CLMAX_TYPE_INT16)                                                                     \
    X(int32, CLMAX_TYPE_INT32)                                                                     \
    X(int64, CLMAX_TYPE_INT64)                                                                     \
    X(uint8, CLMAX_TYPE_UINT8)                                                                     \
    X(uint16, CLMAX_TYPE_UINT16)                                                                   \
    X(uint32, CLMAX_TYPE_UINT32)                                                                   \
    X(uint64, CLMAX_TYPE_UINT64)

/* BACKEND_TEST(suite, name_G) for each group G of four types of test_all_types (floats, signed,
 * unsigned; TYPE_GROUP_TEST_FLOATS: the floats only), whose body calls fn(backend, type) for each
 * of its types. A Criterion test is a process of its own, whose start-up under valgrind costs
 * seconds: a test per type was most of what the family tests cost there. The trailing arguments
 * (at least one) are Criterion test options. */
#define TYPE_GROUP_TEST(suite, name, group, fn, ...)                                               \
    BACKEND_TEST(suite, name, __VA_ARGS__)                                                         \
    {                                                                                              \
        for (int t_ = 0; t_ < 4; t_++)                                                             \
            fn(backend, test_all_types[4 * (group) + t_]);                                         \
    }
#define TYPE_GROUP_TESTS(suite, name, fn, ...)                                                     \
    TYPE_GROUP_TEST(suite, name##_floats, 0, fn, __VA_ARGS__)                                      \
    TYPE_GROUP_TEST(suite, name##_signed, 1, fn, __VA_ARGS__)                                      \
    TYPE_GROUP_TEST(suite, name##_unsigned, 2, fn, __VA_ARGS__)
#define TYPE_GROUP_TEST_FLOATS(suite, name, fn, ...)                                               \
    TYPE_GROUP_TEST(suite, name##_floats, 0, fn, __VA_ARGS__)

/* Fills x (shape desc) so that each row along axis (a view [outer, n, inner]) is one of: all NaN
 * (mixed signs and payloads), all -inf, all +-0, all one denormal, -inf but one NaN, -inf but
 * one finite value, all ties of the maximum, or random pool values. Integer types get the
 * analogous rows (all minimum, all maximum, ...). */
void fill_special_rows(clmax_type type, void *x, ref_view v, test_rng *rng);

/* Plants value bits at position k along the axis of row (o, i) of view v. */
void plant(clmax_type type, void *x, ref_view v, uint64_t o, uint64_t i, uint64_t k, uint64_t bits);

/* ---- Checks against the reference ---------------------------------------------------------- */

/* Runs clmax_argmax_output_desc and clmax_argmax on ctx and compares status, output descriptor
 * and every output bit with the reference; also checks that x is left intact and nothing is
 * written past the output. Fails the test with the full case (what, the context label, type,
 * shape, attributes, first mismatching position) on any difference. attrs may be NULL. */
void check_argmax(clmax_context *ctx, const char *what, const clmax_tensor_desc *desc,
                  const void *x, const clmax_argmax_attrs *attrs);
/* The same for clmax_argmin against ref_argmin. */
void check_argmin(clmax_context *ctx, const char *what, const clmax_tensor_desc *desc,
                  const void *x, const clmax_argmax_attrs *attrs);
/* check_argmax and check_argmin along axis (opset 13, keepdims), under both tie rules. */
void check_tie_rules(clmax_context *ctx, const char *what, const clmax_tensor_desc *desc,
                     const void *x, int64_t axis);
/* The same for clmax_max_with_indices (min == 0) or clmax_min_with_indices (min != 0): indices
 * as check_argmax / check_argmin, and every values element bit for bit the element the
 * reference's index points at, with nothing written past either output. */
void check_with_indices(clmax_context *ctx, const char *what, const clmax_tensor_desc *desc,
                        const void *x, const clmax_argmax_attrs *attrs, int min);
void check_hardmax(clmax_context *ctx, const char *what, const clmax_tensor_desc *desc,
                   const void *x, const clmax_hardmax_attrs *attrs);
/* check_hardmax with the output shift bytes into its allocation (a multiple of the element
 * size), so never 16-byte aligned when shift is not a multiple of 16; the bytes before it are
 * guard bytes too. */
void check_hardmax_shifted(clmax_context *ctx, const char *what, const clmax_tensor_desc *desc,
                           const void *x, const clmax_hardmax_attrs *attrs, size_t shift);

/* Number of elements of a descriptor (rank 0: 1). */
uint64_t output_count(const clmax_tensor_desc *desc);

#endif
