/* Work-group-parallel ArgMax along an axis, on ordered integer keys (DESIGN.md section 2).
 *
 * A program is this file, vec.cl (the CPU devices' vector helpers), then the kernel families:
 * rows_cpu.cl, rows_gpu.cl, rows_short.cl with slices_short.cl, strided.cl, combine.cl and util.cl
 * (host/opencl/cl_program.c). This file holds what every family uses: the defines and their
 * defaults, the keys, the pair order, the stores of an answer and the work-group tree.
 *
 * Elements are loaded as raw bits (uchar, ushort, uint, ulong), so float16, bfloat16 and double
 * need neither cl_khr_fp16 nor cl_khr_fp64. Specialised by defines:
 *   RAW_T   raw element type           KEY_T  key type (uint, or ulong for 64-bit elements)
 *   KEYFN   key of raw bits (KEY(u))   LAST   1: ties go to the largest index
 *   WG      work-group size of reduce_rows_wg (a power of two)
 *   OUT_MODE 0: write indices, int64 (int32 with the flag OUT32); 2: Hardmax, write ONE_BITS (of
 *           RAW_T) at the winner of an output already filled with zeros (or zeroed by the kernel
 *           itself: FUSED_ZERO in vec.cl)
 *   NT      1: planned as a CPU device (CLMAX_PLAN=cpu on another device); 2: a CPU device,
 *           whose bulk output may go out with non-temporal stores (see NT_STORE); 0: neither
 *
 * A box of the canonical view [rows, n, inner] starts at x + x_off. Every (row, lane) pair
 * q = row * inner + lane has its answer; the axis may be cut into nseg segments of seg_len, each
 * reduced separately into a partial pair part[PART(q, seg, nq, nseg) + {0: key, 1: index}] (nq:
 * the box's pairs) and merged by combine. flags: ACCUM: merge with the running pair state[2 * q +
 * {0, 1}] (an earlier chunk of the axis); FINAL: write the answer to out + out_off, else keep the
 * pair in state for the next chunk; KEY_MIN: ArgMin (KEY_MASK); OUT32: int32 indices (OUT_MODE
 * 0). Indices are absolute along the axis: j0 is the first index of the box.
 */
#ifndef RAW_T
#define RAW_T uint
#define KEY_T uint
#define KEYFN key_f32
#endif
#ifndef KEY_ALL
#define KEY_ALL 0xFFFFFFFFu
#endif
/* ArgMin is ArgMax of the keys reversed within KEY_ALL, a float NaN kept the largest: the key
 * functions take a mask km, 0 or KEY_ALL, which a kernel reads from its flags (KEY_MIN), so that
 * ArgMax and ArgMin share every program (the cost: an xor a key, or a vector of keys; as a define,
 * ArgMin had programs of its own). KEY(u) and VKEY use the km in scope. */
#define KEY_MASK(flags) (((flags)&KEY_MIN) ? (KEY_T)KEY_ALL : (KEY_T)0)
#define KEY(u) KEYFN(u, km)
#ifndef LAST
#define LAST 0
#endif
#ifndef WG
#define WG 64
#endif
#ifndef OUT_MODE
#define OUT_MODE 0
#endif
#if OUT_MODE == 0
#define OUT_T long /* int with OUT32: out is cast where an index is stored */
#else
#define OUT_T RAW_T
#endif

#define ACCUM 1
#define FINAL 2
#define KEY_MIN 4
#define OUT32 8 /* int32 indices: a flag like KEY_MIN, so they share int64's programs */
/* The box is the whole axis, its answers written at once (no chunk before or after). */
#define ONLY_FINAL(flags) (((flags) & (ACCUM | FINAL)) == FINAL)

#ifndef ES
#define ES 4 /* bytes per element */
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* Non-temporal stores, for output written in bulk and not read again: on a CPU device they go
 * around the cache, so a line is written without first being read in (half the traffic of a plain
 * store). Only where the host found that the compiler takes them and a store fence to go with
 * them (host/opencl/cl_features.c passes their spellings as CLMAX_NT_STORE and CLMAX_NT_FENCE);
 * elsewhere NT_STORE is a plain store. A work-item that uses them runs NT_FENCE before it ends
 * (reduce_rows_short: one item of the group, after a barrier), so they are ordered before the
 * command's completion like its other stores. */
#ifndef NT
#define NT 0
#endif
#if NT == 2 && defined(CLMAX_NT_STORE) && defined(CLMAX_NT_FENCE)
#define HAVE_NT 1
#else
#define HAVE_NT 0
#endif
#if HAVE_NT
#define NT_STORE(v, p) CLMAX_NT_STORE((v), (p))
#define NT_FENCE() CLMAX_NT_FENCE()
#else
#define NT_STORE(v, p) (*(p) = (v))
#define NT_FENCE()
#endif

/* The keys of raw bits u under mask km (KEY_MASK). A NaN's key is KEY_ALL under either mask; no
 * other value's is. */
uint key_f32(uint u, uint km)
{
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0xFFFFFFFFu;
    if ((u & 0x7FFFFFFFu) == 0) u = 0;
    return ((u & 0x80000000u) ? ~u : (u | 0x80000000u)) ^ km;
}

uint key_f16(ushort v, uint km)
{
    uint u = v;
    if ((u & 0x7FFFu) > 0x7C00u) return 0xFFFFu;
    if ((u & 0x7FFFu) == 0) u = 0;
    return ((u & 0x8000u) ? (~u & 0xFFFFu) : (u | 0x8000u)) ^ km;
}

uint key_bf16(ushort v, uint km)
{
    uint u = v;
    if ((u & 0x7FFFu) > 0x7F80u) return 0xFFFFu;
    if ((u & 0x7FFFu) == 0) u = 0;
    return ((u & 0x8000u) ? (~u & 0xFFFFu) : (u | 0x8000u)) ^ km;
}

ulong key_f64(ulong u, ulong km)
{
    if ((u & 0x7FFFFFFFFFFFFFFFul) > 0x7FF0000000000000ul) return 0xFFFFFFFFFFFFFFFFul;
    if ((u & 0x7FFFFFFFFFFFFFFFul) == 0) u = 0;
    return ((u & 0x8000000000000000ul) ? ~u : (u | 0x8000000000000000ul)) ^ km;
}

#define key_u8(u, km) ((uint)(u) ^ (km))
#define key_i8(u, km) ((uint)(u) ^ (0x80u ^ (km)))
#define key_u16(u, km) ((uint)(u) ^ (km))
#define key_i16(u, km) ((uint)(u) ^ (0x8000u ^ (km)))
#define key_u32(u, km) ((uint)(u) ^ (km))
#define key_i32(u, km) ((uint)(u) ^ (0x80000000u ^ (km)))
#define key_u64(u, km) ((ulong)(u) ^ (km))
#define key_i64(u, km) ((ulong)(u) ^ (0x8000000000000000ul ^ (km)))

/* Is (ka, ia) preferred over (kb, ib)? A strict total order, so any reduction tree gives the same
 * answer. An empty slot is (0, LAST ? 0 : ULONG_MAX) and never beats a real element. */
#if LAST
#define BETTER(ka, ia, kb, ib) ((ka) > (kb) || ((ka) == (kb) && (ia) > (ib)))
#define EMPTY_IDX 0ul
#else
#define BETTER(ka, ia, kb, ib) ((ka) > (kb) || ((ka) == (kb) && (ia) < (ib)))
#define EMPTY_IDX 0xFFFFFFFFFFFFFFFFul
#endif

/* In a scan of increasing indices, whether key k at a later index replaces the best key bk. */
#if LAST
#define REPLACES(k, bk) ((k) >= (bk))
#else
#define REPLACES(k, bk) ((k) > (bk))
#endif

/* Where the partial pair of (q, seg) goes. On CPU devices a segment's pairs are contiguous, so a
 * work-item of the strided kernels writes a run of them rather than a line per pair (with pairs
 * of one q together, nseg 8 and 65536 lanes, each of 8 work-items touched 65536 lines); on GPUs
 * one q's pairs are, which combine_wg's work-groups read together. */
#if NT
#define PART(q, seg, nq, nseg) (2 * ((seg) * (nq) + (q)))
#else
#define PART(q, seg, nq, nseg) (2 * ((q) * (nseg) + (seg)))
#endif

#if OUT_MODE != 2
/* Index i as answer `at` of out: int64, or int32 with OUT32. */
void store_index(__global OUT_T *out, ulong at, ulong i, int flags)
{
    if (flags & OUT32)
        ((__global int *)out)[at] = (int)i;
    else
        out[at] = (OUT_T)i;
}
#endif

void finish(KEY_T k, ulong i, ulong q, ulong seg, ulong nseg, ulong nq, int flags, ulong n,
            ulong inner, __global ulong *part, __global ulong *state, __global OUT_T *out,
            ulong out_off)
{
    if (nseg > 1) {
        part[PART(q, seg, nq, nseg)] = k;
        part[PART(q, seg, nq, nseg) + 1] = i;
        return;
    }
    if (flags & ACCUM) {
        KEY_T ok = (KEY_T)state[2 * q];
        ulong oi = state[2 * q + 1];
        if (BETTER(ok, oi, k, i)) {
            k = ok;
            i = oi;
        }
    }
    if (!(flags & FINAL)) {
        state[2 * q] = k;
        state[2 * q + 1] = i;
        return;
    }
#if OUT_MODE == 2
    out[out_off + (q / inner) * n * inner + i * inner + q % inner] = (OUT_T)ONE_BITS;
#else
    store_index(out, out_off + q, i, flags);
#endif
}

#define REDUCE_ARGS                                                                                \
    __global const RAW_T *x, ulong x_off, ulong n, ulong inner, ulong count, ulong nseg,           \
        ulong seg_len, ulong j0, int flags, __global ulong *part, __global ulong *state,           \
        __global OUT_T *out, ulong out_off
/* part_nq: the pairs of the box, which each kernel declares (count, or count * inner where count
 * is its rows). */
#define FINISH(k, i, q, seg)                                                                       \
    finish(k, i, q, seg, nseg, part_nq, flags, n, inner, part, state, out, out_off)

/* Merges the WG items' pairs of a work-group into lk[0], li[0] (all items call it). */
void tree_wg(__local KEY_T *lk, __local ulong *li, uint t, KEY_T bk, ulong bi)
{
    lk[t] = bk;
    li[t] = bi;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (t < s && BETTER(lk[t + s], li[t + s], lk[t], li[t])) {
            lk[t] = lk[t + s];
            li[t] = li[t + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
