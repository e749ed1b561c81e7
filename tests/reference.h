/*
 * An independent, deliberately simple scalar reference of the clmax contract (docs: DESIGN.md
 * section 1): ArgMax, ArgMin and Hardmax of every opset and type, the values at the winners (max
 * and min with indices), output-shape inference and the error rules. It shares nothing with the
 * library but the public header's types: values are decoded by hand and compared by value (NaN
 * explicitly), never through ordered integer keys.
 */
#ifndef CLMAX_TESTS_REFERENCE_H
#define CLMAX_TESTS_REFERENCE_H

#include <stdint.h>

#include "clmax.h"

/* The canonical view [outer, n, inner] of a reduction. */
typedef struct ref_view {
    uint64_t outer, n, inner;
} ref_view;

/* Element size in bytes, 0 for a value that is not an element type. */
size_t ref_type_size(clmax_type type);
/* Nonzero when the value is an integer element type, or a signed integer one. */
int ref_type_is_integer(clmax_type type);
int ref_type_is_signed(clmax_type type);

/* Whether the operator at this opset takes the type (the opset itself must be valid). */
int ref_argmax_takes_type(clmax_type type, int opset);
int ref_hardmax_takes_type(clmax_type type, int opset);
int ref_argmax_opset_valid(int opset);
int ref_hardmax_opset_valid(int opset);

/* ONNX defaults of an opset (the opset must be valid). */
clmax_argmax_attrs ref_argmax_defaults(int opset);
clmax_hardmax_attrs ref_hardmax_defaults(int opset);

/* Element count: INVALID_RANK, INVALID_SHAPE, SIZE_OVERFLOW or OK. */
clmax_status ref_count(const clmax_tensor_desc *desc, uint64_t *count);

/* Checks, output descriptor and canonical view. attrs NULL means the opset 13 defaults. When
 * several rules are broken the order is: opset, rank, shape, overflow, type, attribute, axis,
 * empty axis (tests only rely on single faults). output and view may be NULL. */
clmax_status ref_argmax_check(const clmax_tensor_desc *input, const clmax_argmax_attrs *attrs,
                              clmax_tensor_desc *output, ref_view *view);
clmax_status ref_hardmax_check(const clmax_tensor_desc *input, const clmax_hardmax_attrs *attrs,
                               clmax_tensor_desc *output, ref_view *view);

/* Decoders by hand. */
double ref_float16_to_double(uint16_t bits);
double ref_bfloat16_to_double(uint16_t bits);

/* Compares elements i and j of x (type type) in the contract's order: -1, 0 or 1. */
int ref_compare(clmax_type type, const void *x, uint64_t i, uint64_t j);
/* ArgMin's order: 1 when element i beats element j, -1 when j beats i, 0 when they tie. A NaN
 * beats everything but another NaN (numpy's argmin returns the first NaN); otherwise the smaller
 * value wins; -0 == +0. Not ref_compare negated: NaN wins in both orders. */
int ref_compare_min(clmax_type type, const void *x, uint64_t i, uint64_t j);

/* The operators. Return the check's status; y is written only on success. */
clmax_status ref_argmax(const clmax_tensor_desc *input, const void *x,
                        const clmax_argmax_attrs *attrs, int64_t *y);
clmax_status ref_hardmax(const clmax_tensor_desc *input, const void *x,
                         const clmax_hardmax_attrs *attrs, void *y);

/* ONNX ArgMin: ArgMax's checks, shapes and tie rule, the minimum winning (ref_compare_min). */
clmax_status ref_argmin(const clmax_tensor_desc *input, const void *x,
                        const clmax_argmax_attrs *attrs, int64_t *y);

/* Indices as ref_argmax (min == 0) or ref_argmin (min != 0), and in values (the input's type,
 * one element per index) the bits of the element each index points at. */
clmax_status ref_arg_with_values(const clmax_tensor_desc *input, const void *x,
                                 const clmax_argmax_attrs *attrs, int min, void *values,
                                 int64_t *indices);

/* The four answers of one input in one walk: y[0] ArgMax with select_last_index 0, y[1] with 1,
 * y[2] and y[3] ArgMin's (attrs' own select_last_index is not read). */
clmax_status ref_arg_tie_rules(const clmax_tensor_desc *input, const void *x,
                               const clmax_argmax_attrs *attrs, int64_t *const y[4]);

#endif
