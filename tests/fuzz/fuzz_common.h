/*
 * Shared by the fuzz harnesses: CPU-path contexts made once per process, the checks of an
 * operator call against the independent scalar reference (tests/reference.c) and the invariants
 * of its output, and the counters printed when the process exits.
 *
 * A broken invariant prints what broke and aborts: libFuzzer keeps the input as a crash, and the
 * replay driver (replay.c) fails its ctest test.
 */
#ifndef CLMAX_FUZZ_COMMON_H
#define CLMAX_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "clmax.h"

/* Largest input tensor, in bytes, that a harness allocates and runs. Sizes are always checked
 * through the library's own descriptor checks before this bound is applied. */
#define FUZZ_MAX_TENSOR_BYTES (1u << 20)
/* Largest element count the npy harness runs through the reference (it is quadratic in nothing,
 * but a harness that is slow per input finds less). */
#define FUZZ_MAX_ELEMENTS (1u << 16)

/* What a harness saw, printed at exit as one "fuzz-stats:" line (see fuzz_stats_print). */
typedef struct fuzz_stats {
    const char *harness;
    uint64_t inputs;      /* inputs run */
    uint64_t refused;     /* inputs (or reads) refused: a reader error, a non-OK status */
    uint64_t accepted;    /* reads accepted, descriptors found valid */
    uint64_t calls;       /* library calls checked */
    uint64_t call_errors; /* ... that returned a non-OK status (all checked as expected) */
    uint64_t ops_run;     /* operator calls that produced output compared with the reference */
    uint64_t too_large;   /* valid tensors not run because they exceed the bounds above */
} fuzz_stats;

extern fuzz_stats fuzz_counters;

/* Print what broke (printf-style) and abort. */
void fuzz_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

/* Registers the exit handler that prints the counters and destroys the contexts. Idempotent. */
void fuzz_init(const char *harness);

/* A CPU-path context made once, ignoring the environment: split != 0 gives one that forces the
 * axis-splitting strategy (segments combined from partial results), else the planner's choice. */
clmax_context *fuzz_cpu_context(int split);

/* Fails unless st is one of the documented statuses (and, after a failure, unless
 * clmax_last_error() says something). what names the call. */
void fuzz_check_status(clmax_status st, const char *what);

/* The library (status lib) and the reference (ref) must agree on whether a call on descriptor d
 * is valid; the one allowed difference is the library's stricter SIZE_OVERFLOW (the product of
 * the non-zero dims beyond INT64_MAX, or the size in bytes beyond SIZE_MAX / 2). */
void fuzz_agree(clmax_status lib, clmax_status ref, const clmax_tensor_desc *d, const char *what);

/* Element count of a descriptor (rank 0 counts 1), or UINT64_MAX on overflow / bad input. */
uint64_t fuzz_desc_elements(const clmax_tensor_desc *d);

/* Checks clmax_argmax_output_desc against the reference (valid or not, and the descriptor).
 * When the call is invalid, clmax_argmax must refuse it with the same status without writing
 * anything (x may then be a small dummy). When it is valid and the input fits in x_bytes and the
 * bounds above, runs clmax_argmax on ctx into a buffer of exactly the output's size and compares
 * every index with the reference; each must lie in [0, n). Returns the library's status. */
clmax_status fuzz_run_argmax(clmax_context *ctx, const clmax_tensor_desc *desc, const void *x,
                             size_t x_bytes, const clmax_argmax_attrs *attrs);
/* The same for clmax_argmin (against an ArgMin order built from the reference's comparison:
 * NaN wins, else the smaller value) and for clmax_max_with_indices / clmax_min_with_indices,
 * whose indices must be ArgMax's / ArgMin's and whose values the elements at those indices. An
 * invalid call must be refused with ArgMax's output_desc status. */
clmax_status fuzz_run_argmin(clmax_context *ctx, const clmax_tensor_desc *desc, const void *x,
                             size_t x_bytes, const clmax_argmax_attrs *attrs);
/* The same for Hardmax; also checks that every output row is one-hot (one 1, the rest +0). */
clmax_status fuzz_run_hardmax(clmax_context *ctx, const clmax_tensor_desc *desc, const void *x,
                              size_t x_bytes, const clmax_hardmax_attrs *attrs);

/* "float32[2,3]" into buf, for messages. */
const char *fuzz_desc_str(const clmax_tensor_desc *d, char *buf, size_t size);

#endif
