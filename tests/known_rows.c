/* Rows with known answers (known_rows.h). */
#include "known_rows.h"

#include <stdio.h>

uint64_t sym_bits(clmax_type type, enum sym s)
{
    /* f16, bf16, f32, f64 */
    static const uint64_t t[][4] = {
        [S_NAN] = {0x7E00, 0x7FC0, 0x7FC00000, 0x7FF8000000000000ull},
        [S_NNAN] = {0xFE01, 0xFFC1, 0xFFC00001, 0xFFF8000000000001ull},
        [S_SNAN] = {0x7C01, 0x7F81, 0x7F800001, 0x7FF0000000000001ull},
        [S_INF] = {0x7C00, 0x7F80, 0x7F800000, 0x7FF0000000000000ull},
        [S_NINF] = {0xFC00, 0xFF80, 0xFF800000, 0xFFF0000000000000ull},
        [S_ZERO] = {0, 0, 0, 0},
        [S_NZERO] = {0x8000, 0x8000, 0x80000000, 0x8000000000000000ull},
        [S_DEN] = {1, 1, 1, 1},
        [S_NDEN] = {0x8001, 0x8001, 0x80000001, 0x8000000000000001ull},
        [S_MAXDEN] = {0x03FF, 0x007F, 0x007FFFFF, 0x000FFFFFFFFFFFFFull},
        [S_MINNORM] = {0x0400, 0x0080, 0x00800000, 0x0010000000000000ull},
        [S_ONE] = {0x3C00, 0x3F80, 0x3F800000, 0x3FF0000000000000ull},
        [S_NONE] = {0xBC00, 0xBF80, 0xBF800000, 0xBFF0000000000000ull},
        [S_MAX] = {0x7BFF, 0x7F7F, 0x7F7FFFFF, 0x7FEFFFFFFFFFFFFFull},
        [S_NMAX] = {0xFBFF, 0xFF7F, 0xFF7FFFFF, 0xFFEFFFFFFFFFFFFFull},
        [S_NAN_P] = {0x7E01, 0x7FC1, 0x7FC00001, 0x7FF8000000000001ull},
        [S_NNAN_P] = {0xFE02, 0xFFC2, 0xFFC00002, 0xFFF8000000000002ull},
    };
    int col = type == CLMAX_TYPE_FLOAT16    ? 0
              : type == CLMAX_TYPE_BFLOAT16 ? 1
              : type == CLMAX_TYPE_FLOAT32  ? 2
                                            : 3;
    return t[s][col];
}

/* Runs one row whose answer is known in three layouts: [n] axis 0, [2, n] axis 1 (row repeated),
 * and as column 1 of [n, 3] axis 0 with other columns random; select_last_index 0 and 1. */
static void expect_row(clmax_context *ctx, int min, clmax_type type, int n, const uint64_t *bits,
                       int first, int last, test_rng *rng)
{
    unsigned char x[6 * 3 * 8];
    int64_t y[8];
    for (int layout = 0; layout < 3; layout++) {
        int64_t dims[2];
        clmax_tensor_desc d;
        clmax_argmax_attrs a;
        clmax_argmax_attrs_init(&a, type == CLMAX_TYPE_BFLOAT16 ? 13 : 12);
        uint64_t col = 0, stride = 1, rows = 1;
        if (layout == 0) {
            dims[0] = n;
            d = test_desc(type, 1, dims);
        } else if (layout == 1) {
            dims[0] = 2, dims[1] = n;
            d = test_desc(type, 2, dims);
            a.axis = 1;
            rows = 2;
        } else {
            dims[0] = n, dims[1] = 3;
            d = test_desc(type, 2, dims);
            col = 1, stride = 3;
            for (int e = 0; e < 3 * n; e++)
                elem_set(type, x, (uint64_t)e, value_random(type, rng));
        }
        for (uint64_t r = 0; r < rows; r++)
            for (int k = 0; k < n; k++)
                elem_set(type, x, r * (uint64_t)n + (uint64_t)k * stride + col, bits[k]);
        for (int sli = 0; sli <= 1; sli++) {
            a.select_last_index = sli;
            char what[64];
            snprintf(what, sizeof what, "known row, layout %d", layout);
            if (min)
                check_argmin(ctx, what, &d, x, &a); /* against the reference */
            else
                check_argmax(ctx, what, &d, x, &a);
            clmax_status st =
                min ? clmax_argmin(ctx, &d, x, &a, y) : clmax_argmax(ctx, &d, x, &a, y);
            cr_assert_eq(st, CLMAX_OK, "%s: %s", clmax_status_string(st), clmax_last_error());
            int want = sli ? last : first;
            for (uint64_t r = 0; r < rows; r++)
                cr_assert_eq(y[r + col], want,
                             "%s %s row of %d, layout %d, select_last_index %d: got %lld, want %d",
                             min ? "ArgMin" : "ArgMax", test_type_str(type), n, layout, sli,
                             (long long)y[r + col], want);
        }
    }
}

/* One known row of n elements (bits) in type: the reference must agree with the table for both
 * tie rules, then the backend with both (expect_row). `row` numbers it in messages. */
static void check_known_row(clmax_context *ctx, int min, clmax_type type, int n,
                            const uint64_t *bits, int first, int last, size_t row, test_rng *rng)
{
    int64_t dims[1] = {n};
    clmax_tensor_desc d = test_desc(type, 1, dims);
    unsigned char x[64];
    for (int k = 0; k < n; k++)
        elem_set(type, x, (uint64_t)k, bits[k]);
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    for (int sli = 0; sli <= 1; sli++) {
        a.select_last_index = sli;
        int64_t y;
        cr_assert_eq(min ? ref_argmin(&d, x, &a, &y) : ref_argmax(&d, x, &a, &y), CLMAX_OK);
        cr_assert_eq(y, sli ? last : first, "reference, %s row %zu, select_last_index %d",
                     test_type_str(type), row, sli);
    }
    expect_row(ctx, min, type, n, bits, first, last, rng);
}

void run_known_float_rows(clmax_backend backend, int min, const known_row *rows, size_t count,
                          uint64_t seed)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, seed);
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++) {
        clmax_type type = test_float_types[t];
        for (size_t r = 0; r < count; r++) {
            uint64_t bits[6];
            for (int k = 0; k < rows[r].n; k++)
                bits[k] = sym_bits(type, (enum sym)rows[r].v[k]);
            check_known_row(ctx, min, type, rows[r].n, bits, rows[r].first, rows[r].last, r, &rng);
        }
    }
    clmax_context_destroy(ctx);
}

void run_known_int_rows(clmax_backend backend, int min, const known_int_row *rows, size_t count,
                        uint64_t seed)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, seed);
    for (size_t r = 0; r < count; r++)
        check_known_row(ctx, min, rows[r].type, rows[r].n, rows[r].v, rows[r].first, rows[r].last,
                        r, &rng);
    clmax_context_destroy(ctx);
}
