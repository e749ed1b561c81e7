/* The canonical problem: what the contract (host/contract.c) makes of an operator call, and what
 * the planner and the backends reduce. */
#ifndef CLMAX_PROBLEM_H
#define CLMAX_PROBLEM_H

#include "clmax.h"

#include <stdint.h>

/* One reduction, in the canonical view: x is [outer, n, inner] of elements of `type`; the answer
 * for (o, i) is the index along n of the winner, written to idx[o * inner + i]. n >= 1. */
typedef struct clmax_problem {
    clmax_type type;
    uint64_t esize; /* bytes per element */
    uint64_t outer, n, inner;
    int last;   /* select_last_index: ties go to the largest index */
    int min;    /* ArgMin: the smallest value wins (NaN still wins, as in the ONNX reference) */
    int reread; /* idx is scratch read back at once (Hardmax): keep it in the cache, no streaming */
} clmax_problem;

/* The IEEE types, whose keys need the NaN and -0 rules (keys.h); the float-only CPU families ask.
 */
static inline int clmax_type_is_float(clmax_type t)
{
    return t == CLMAX_TYPE_FLOAT16 || t == CLMAX_TYPE_BFLOAT16 || t == CLMAX_TYPE_FLOAT32 ||
           t == CLMAX_TYPE_FLOAT64;
}

#endif
