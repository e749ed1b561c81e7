/* Hardmax on the CPU path in one pass over slices [n, inner] of 2 to NEAR_N_MAX rows and 2 to
 * NEAR_INNER_MAX lanes, such as [B, 3, 7], and two-byte rows of 5 to 7: a group of slices' keys go
 * to a buffer, then each vector of positions is compared with the vectors inner, 2 * inner, ...
 * positions before and after it (the same lane, other rows of the slice), each compare kept only
 * where that row is in the slice, and the one-hot is written from the result.
 *
 * Why: a lane's loop over so few lanes does not vectorise (cpu_hardmax_tiny.c takes 16 lanes or
 * more of 2 to 4 rows), and the winners' way (cpu_hardmax.c) writes 8-byte indices and reads them
 * back for a one-hot of a few bytes a lane: float16 [B, 2..5, 2..7] ran at 0.13-0.38 of the read +
 * write limit. Here every vector does the same loads and compares, whatever the lanes, and no
 * position of the slice waits for another's result. Keys (keys.h) are integers, so the caller's
 * MXCSR plays no part; Hardmax takes the first maximum. */
#include "cpu_hardmax_near.h"

#include "cpu_kernels.h"
#include "keys.h"
#include "stream.h"

#include <string.h>

#define NEAR_N_MAX 8
#define NEAR_INNER_MAX 64 /* lanes: the compares' reach past a group grows with them */
#define NEAR_BYTES 8192   /* keys of a group of slices, kept in L1 */
#define NEAR_PAD ((NEAR_N_MAX - 1) * NEAR_INNER_MAX) /* keys a compare reads past a group */
/* One-hot outputs of at least CLMAX_STREAM_MIN bytes are streamed out, each aligned vector by
 * non-temporal stores: a plain store reads its line first, a third more traffic. Against plain
 * stores, in turns (3 rounds, 128 MiB, clmax-bench --sweep --backend=cpu): float32 [B, 2..4,
 * 2..7] x1.07-1.95 (0.50-0.61 -> 0.74-1.03 of the limit), float16 x1.04-1.93, [B, 5..8, 5..16]
 * x0.93-1.36; but 256-bit vectors of 5 rows of 3, 5 or 7 lanes x0.86-0.96 (eight compares a
 * vector, and the stores' alignment moving by an odd count each slice), which keep plain stores. */
/* Slices of this many rows or more run in 512-bit vectors where the context allows and the scan
 * won its timing on this CPU (clmax_cpu_hardmax_wide_pays): on the Intel Xeon, float16
 * [B, 6..8, 2..64] x1.09-1.54, float32 [B, 6..8, 5..15] x0.96-1.32. Fewer rows do fewer compares
 * a vector and ran slower so ([B, 4, 2..12] x0.65-0.85, [B, 5, 12..64] x0.79-0.99). */
#define NEAR_WIDE_N 6

#define NEAR_T uint16_t
#define NEAR_ST int16_t
#define NEAR_KEY clmax_key_f16
#define NEAR_ONE 0x3C00u
#define NEAR_SFX f16
#define NEAR_W_SFX w_f16
#include "cpu_hardmax_near_widths.inc"

#define NEAR_T uint16_t
#define NEAR_ST int16_t
#define NEAR_KEY clmax_key_bf16
#define NEAR_ONE 0x3F80u
#define NEAR_SFX bf16
#define NEAR_W_SFX w_bf16
#include "cpu_hardmax_near_widths.inc"

#define NEAR_T uint32_t
#define NEAR_ST int32_t
#define NEAR_KEY clmax_key_f32
#define NEAR_ONE 0x3F800000u
#define NEAR_SFX f32
#define NEAR_W_SFX w_f32
#include "cpu_hardmax_near_widths.inc"

#define NEAR_T uint64_t
#define NEAR_ST int64_t
#define NEAR_KEY clmax_key_f64
#define NEAR_ONE 0x3FF0000000000000ull
#define NEAR_SFX f64
#define NEAR_W_SFX w_f64
#include "cpu_hardmax_near_widths.inc"

typedef void (*near_fn)(const clmax_problem *p, uint64_t rows, const void *x, void *y);

/* The code of p's type: float16, bfloat16, float32, float64. */
static unsigned near_type(const clmax_problem *p)
{
    return p->type == CLMAX_TYPE_FLOAT16    ? 0
           : p->type == CLMAX_TYPE_BFLOAT16 ? 1
           : p->type == CLMAX_TYPE_FLOAT32  ? 2
                                            : 3;
}

int clmax_cpu_hardmax_near_fits(const clmax_problem *p)
{
    if (!clmax_type_is_float(p->type) || p->n < 2 || p->n > NEAR_N_MAX || p->inner < 1 ||
        p->inner > NEAR_INNER_MAX)
        return 0;
    /* Rows of 5 to 7 (cpu_hardmax_tiny.c takes 2 to 4 and 8) of two-byte types: float16
     * [B, 5..7, 1] x1.16-1.52 against the winners, float32 x0.76-1.06. */
    if (p->inner == 1) return p->n >= 5 && p->n <= 7 && p->esize == 2;
    if (p->n <= 4 && p->inner >= 16) return 0; /* cpu_hardmax_tiny.c */
    /* Each row compares 2 (n - 1) vectors: four- and eight-byte slices of 7 and 8 rows of 2 to 4
     * or 16 and more lanes ran as fast or faster through the winners (float32 [B, 8, 2..4]:
     * 0.66-0.68 so, 0.57-0.62 here; [B, 7..8, 16..24] x0.79-1.08). */
    return p->esize < 4 || p->n < 7 || (p->inner >= 5 && p->inner < 16);
}

void clmax_cpu_hardmax_near(const clmax_problem *p, uint64_t rows, const void *x, void *y, int wide)
{
    static const near_fn narrow[] = {near_f16, near_bf16, near_f32, near_f64};
#if CLMAX_LANES_512
    static const near_fn wide512[] = {near_w_f16, near_w_bf16, near_w_f32, near_w_f64};
    if (wide && p->n >= NEAR_WIDE_N) {
        wide512[near_type(p)](p, rows, x, y);
        return;
    }
#else
    (void)wide;
#endif
    narrow[near_type(p)](p, rows, x, y);
}
