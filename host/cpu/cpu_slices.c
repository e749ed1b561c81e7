/* Whole small slices [n, inner] of every type, from cpu_slices.inc (slices_*): run_unit takes
 * them for one-byte elements with 8 to SLICE_INNER - 1 lanes, and for the smallest eight-byte
 * slices of 4 lanes or more (cpu_kernels.h). */
#include "cpu_kernels.h"
#include "keys.h"

#define CLMAX_TEMPLATE "cpu_slices.inc"
#include "cpu_types.inc"
