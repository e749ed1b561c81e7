/* Rows whose ArgMax or ArgMin answer is known (worked out by hand from the contract), run in
 * several layouts on a backend and checked against both the known answer and the reference:
 * shared by test_argmax.c and test_argmin.c, which hold the tables. The symbolic float values are
 * also those of test_values.c. */
#ifndef CLMAX_TESTS_KNOWN_ROWS_H
#define CLMAX_TESTS_KNOWN_ROWS_H

#include "common.h"

/* Symbolic float values, their bits per float type by sym_bits. */
enum sym {
    S_NAN,
    S_NNAN,
    S_SNAN,
    S_INF,
    S_NINF,
    S_ZERO,
    S_NZERO,
    S_DEN,
    S_NDEN,
    S_MAXDEN,
    S_MINNORM,
    S_ONE,
    S_NONE,
    S_MAX,
    S_NMAX,
    S_NAN_P, /* quiet NaNs with a payload, positive and negative */
    S_NNAN_P
};

/* The bits of s in a float type (float16, bfloat16, float32 or float64). */
uint64_t sym_bits(clmax_type type, enum sym s);

/* A float row of sym values with its first and last winner. */
typedef struct known_row {
    int n;
    uint64_t v[6];
    int first, last;
} known_row;

/* An integer row of raw bits of its type's width, with its first and last winner. */
typedef struct known_int_row {
    clmax_type type;
    int n;
    uint64_t v[4];
    int first, last;
} known_int_row;

/* Every row in every float type (known_row) or in its own type (known_int_row): the reference
 * must agree with the table, and the backend with both, for select_last_index 0 and 1; min: ArgMin
 * instead of ArgMax. */
void run_known_float_rows(clmax_backend backend, int min, const known_row *rows, size_t count,
                          uint64_t seed);
void run_known_int_rows(clmax_backend backend, int min, const known_int_row *rows, size_t count,
                        uint64_t seed);

#endif
