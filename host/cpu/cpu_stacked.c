/* Whole small slices [n, inner] of a few lanes, for every type, from cpu_stacked.inc
 * (clmax_cpu_stacked_*): a group of slices' keys go to a buffer, then each slice is read as
 * vectors that start at a row's first lane, one per row at `inner` elements apart, stacked and
 * maxed with their row numbers:
 * the lanes of a vector past the slice's are wasted, but no lane is shuffled (the dealt rows,
 * cpu_deal.c, transpose first) and every slice costs the same few vector steps a row. */
#include "cpu_kernels.h"
#include "keys.h"

#include <string.h>

#define CLMAX_TEMPLATE "cpu_stacked.inc"
#include "cpu_types.inc"
