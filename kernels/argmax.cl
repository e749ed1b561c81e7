/* Work-group-parallel ArgMax along an axis, on ordered integer keys (DESIGN.md section 2).
 *
 * Elements are loaded as raw bits (uchar, ushort, uint, ulong), so float16, bfloat16 and double
 * need neither cl_khr_fp16 nor cl_khr_fp64. Specialised by defines:
 *   RAW_T   raw element type           KEY_T  key type (uint, or ulong for 64-bit elements)
 *   KEY(u)  key of raw bits u          LAST   1: ties go to the largest index
 *   WG      work-group size of reduce_rows_wg (a power of two)
 *   OUT_MODE 0: write int64 indices; 1: int32 indices; 2: Hardmax, write ONE_BITS (of RAW_T) at
 *           the winner of an output already filled with zeros (or zeroed by the kernel itself:
 *           FUSED_ZERO below)
 *   NT      1: planned as a CPU device (CLMAX_PLAN=cpu on another device); 2: a CPU device,
 *           whose bulk output may go out with non-temporal stores (see NT_STORE); 0: neither
 *
 * A box of the canonical view [rows, n, inner] starts at x + x_off. Every (row, lane) pair
 * q = row * inner + lane has its answer; the axis may be cut into nseg segments of seg_len, each
 * reduced separately into a partial pair part[PART(q, seg, nq, nseg) + {0: key, 1: index}] (nq:
 * the box's pairs) and merged by combine. flags: ACCUM: merge with the running pair state[2 * q +
 * {0, 1}] (an earlier chunk of the axis); FINAL: write the answer to out + out_off, else keep the
 * pair in state for the next chunk. Indices are absolute along the axis: j0 is the first index of
 * the box.
 */
#ifndef RAW_T
#define RAW_T uint
#define KEY_T uint
#define KEYFN key_f32
#endif
#ifndef MIN
#define MIN 0 /* ArgMin: keys reversed within KEY_ALL, NaN (ISFLOAT) kept the largest */
#endif
#ifndef ISFLOAT
#define ISFLOAT 1
#endif
#ifndef KEY_ALL
#define KEY_ALL 0xFFFFFFFFu
#endif
#if MIN && ISFLOAT
#define MINK(k) ((k) == (KEY_T)KEY_ALL ? (k) : (~(k) & (KEY_T)KEY_ALL))
#elif MIN
#define MINK(k) (~(k) & (KEY_T)KEY_ALL)
#else
#define MINK(k) (k)
#endif
#define KEY(u) MINK(KEYFN(u))
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
#define OUT_T long
#elif OUT_MODE == 1
#define OUT_T int
#else
#define OUT_T RAW_T
#endif

#define ACCUM 1
#define FINAL 2

/* Non-temporal stores, for output written in bulk and not read again: on a CPU device they go
 * around the cache, so a line is written without first being read in (half the traffic of a plain
 * store). Only where the compiler has them and a store fence to go with them (clang for x86, as in
 * PoCL); elsewhere NT_STORE is a plain store. A work-item that uses them runs NT_FENCE before it
 * ends (reduce_rows_short: one item of the group, after a barrier), so they are ordered before
 * the command's completion like its other stores. */
#ifndef NT
#define NT 0
#endif
#if NT == 2 && defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store) && __has_builtin(__builtin_ia32_sfence)
#define HAVE_NT 1
#endif
#endif
#ifndef HAVE_NT
#define HAVE_NT 0
#endif
#if HAVE_NT
#define NT_STORE(v, p) __builtin_nontemporal_store((v), (p))
#define NT_FENCE() __builtin_ia32_sfence()
#else
#define NT_STORE(v, p) (*(p) = (v))
#define NT_FENCE()
#endif

/* Hardmax on CPU devices: reduce_rows_vec and reduce_strided_blk write the zeros of the elements
 * they read themselves (the host then enqueues no fill), so the output is written in the same pass
 * as the input is read, like the read + write that is its limit, instead of in a pass of its own.
 * The one of a winner is written after the zeros: by the same work-item, after NT_FENCE, or by
 * combine, a later command. Host side: clmax_cl_fused_zeros, which must agree. */
#if OUT_MODE == 2 && NT
#define FUSED_ZERO 1
/* The zeros go out in the reading loops, a few 16-byte words a step: zeroing each 2 KiB run, or
 * each whole row, in a loop of its own after reading it gained little or lost against the
 * separate fill (docs/PERFORMANCE.md, item 13). */
typedef struct zrun {
    __global uint4 *w; /* the whole 16-byte words of a run of output elements */
    uint words;        /* how many; a run is at most a segment or a lane block */
} zrun;
/* Zeroes the elements of [a, a + len) of out before its first 16-byte aligned word and after its
 * last, and returns the words between. Aligned by address, not by offset: a buffer over the
 * caller's memory (CL_MEM_USE_HOST_PTR, clmax_cl_hardmax_in_place) may start anywhere. */
zrun zero_edges(__global OUT_T *out, ulong a, ulong len)
{
    __global OUT_T *h = out + a, *t = h + len;
    while (h < t && ((ulong)h & 15))
        *h++ = 0;
    while (t > h && ((ulong)t & 15))
        *--t = 0;
    zrun z = {(__global uint4 *)h, (uint)((ulong)(t - h) * sizeof(OUT_T) / 16)};
    return z;
}
/* Words [d, d + k) of run z, those that exist. */
#define ZERO_WORDS(z, d, k)                                                                        \
    for (uint zi_ = (d); zi_ < (d) + (k) && zi_ < (z).words; zi_++)                                \
    NT_STORE((uint4)(0, 0, 0, 0), (z).w + zi_)
/* Elements [a, a + len) of out. */
void zero_out(__global OUT_T *out, ulong a, ulong len)
{
    zrun z = zero_edges(out, a, len);
    ZERO_WORDS(z, 0, z.words);
}
/* Output words per vector of input (VW * sizeof(RAW_T) is 32 bytes for every Hardmax type). */
#define ZSTEP (VW * (uint)sizeof(RAW_T) / 16)
#else
#define FUSED_ZERO 0
#endif

uint key_f32(uint u)
{
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0xFFFFFFFFu;
    if ((u & 0x7FFFFFFFu) == 0) u = 0;
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

uint key_f16(ushort v)
{
    uint u = v;
    if ((u & 0x7FFFu) > 0x7C00u) return 0xFFFFu;
    if ((u & 0x7FFFu) == 0) u = 0;
    return (u & 0x8000u) ? (~u & 0xFFFFu) : (u | 0x8000u);
}

uint key_bf16(ushort v)
{
    uint u = v;
    if ((u & 0x7FFFu) > 0x7F80u) return 0xFFFFu;
    if ((u & 0x7FFFu) == 0) u = 0;
    return (u & 0x8000u) ? (~u & 0xFFFFu) : (u | 0x8000u);
}

ulong key_f64(ulong u)
{
    if ((u & 0x7FFFFFFFFFFFFFFFul) > 0x7FF0000000000000ul) return 0xFFFFFFFFFFFFFFFFul;
    if ((u & 0x7FFFFFFFFFFFFFFFul) == 0) u = 0;
    return (u & 0x8000000000000000ul) ? ~u : (u | 0x8000000000000000ul);
}

#define key_u8(u) ((uint)(u))
#define key_i8(u) ((uint)(u) ^ 0x80u)
#define key_u16(u) ((uint)(u))
#define key_i16(u) ((uint)(u) ^ 0x8000u)
#define key_u32(u) ((uint)(u))
#define key_i32(u) ((uint)(u) ^ 0x80000000u)
#define key_u64(u) ((ulong)(u))
#define key_i64(u) ((ulong)(u) ^ 0x8000000000000000ul)

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
    out[out_off + q] = (OUT_T)i;
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

/* One (q, segment) per work-item, scanned sequentially: the CPU-device strategy. */
__kernel void reduce_rows_wi(REDUCE_ARGS)
{
    const ulong part_nq = count;
    ulong g = get_global_id(0);
    if (g >= count * nseg) return;
    ulong q = g / nseg, seg = g % nseg;
    ulong row = q / inner, lane = q % inner;
    ulong b = seg * seg_len;
    ulong e = min(n, b + seg_len);
    __global const RAW_T *p = x + x_off + row * n * inner + lane;
    KEY_T bk = KEY(p[b * inner]);
    ulong bi = b;
    if (inner == 1) {
        for (ulong j = b + 1; j < e; j++) {
            KEY_T k = KEY(p[j]);
            if (REPLACES(k, bk)) {
                bk = k;
                bi = j;
            }
        }
    } else {
        for (ulong j = b + 1; j < e; j++) {
            KEY_T k = KEY(p[j * inner]);
            if (REPLACES(k, bk)) {
                bk = k;
                bi = j;
            }
        }
    }
    FINISH(bk, j0 + bi, q, seg);
}

/* reduce_rows_wg's contiguous rows read 16 bytes a load (GV elements): on a GPU a warp then asks
 * for 512 bytes at once, four to sixteen times what one element per load keeps in flight, which is
 * what the memory's latency needs to reach its bandwidth. */
#ifndef ES
#define ES 4 /* bytes per element */
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
/* M(component, c) for each component c of a vector v, in order from offset o. */
#define LANES4(M, v, o) M(v.s0, o) M(v.s1, o + 1) M(v.s2, o + 2) M(v.s3, o + 3)
#define LANES8(M, v, o) LANES4(M, v.lo, o) LANES4(M, v.hi, o + 4)
#if ES == 1
#define GV 16
#define GV_LANES(M, r) LANES8(M, r.lo, 0) LANES8(M, r.hi, 8)
#elif ES == 2
#define GV 8
#define GV_LANES(M, r) LANES8(M, r, 0)
#elif ES == 4
#define GV 4
#define GV_LANES(M, r) LANES4(M, r, 0)
#else
#define GV 2
#define GV_LANES(M, r) M(r.s0, 0) M(r.s1, 1)
#endif
#define RAWG CAT(RAW_T, GV) /* uchar16, ushort8, uint4 or ulong2 */

/* Element j with raw bits u into the running pair (bk, bi), which may still be empty. */
#define TAKE(u, j)                                                                                 \
    {                                                                                              \
        KEY_T k_ = KEY(u);                                                                         \
        ulong j_ = (j);                                                                            \
        if (BETTER(k_, j_, bk, bi)) {                                                              \
            bk = k_;                                                                               \
            bi = j_;                                                                               \
        }                                                                                          \
    }
#define TAKE_LANE(u, c) TAKE(u, base + (c))

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

/* One (q, segment) per work-group of WG items: loads spread across the group, then a tree in
 * local memory. The GPU strategy for contiguous rows. Each item sees its elements in increasing
 * index order (the few before the first 16-byte boundary, its vectors, the few after the last),
 * and the pairs start empty (EMPTY_IDX), so BETTER gives the tie rule's answer throughout. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void reduce_rows_wg(REDUCE_ARGS)
{
    __local KEY_T lk[WG];
    __local ulong li[WG];
    const ulong part_nq = count;
    ulong g = get_group_id(0);
    uint t = get_local_id(0);
    ulong q = g / nseg, seg = g % nseg;
    ulong row = q / inner, lane = q % inner;
    ulong b = seg * seg_len;
    ulong e = min(n, b + seg_len);
    __global const RAW_T *p = x + x_off + row * n * inner + lane;
    KEY_T bk = 0;
    ulong bi = EMPTY_IDX;
    if (inner == 1) {
        ulong head = ((16 - ((ulong)(p + b) & 15)) & 15) / ES;
        head = min(head, e - b);
        for (ulong j = b + t; j < b + head; j += WG) /* WG may be under 16 */
            TAKE(p[j], j);
        ulong vb = b + head, nv = (e - vb) / GV;
        __global const RAWG *pv = (__global const RAWG *)(p + vb);
        ulong v = t;
        for (; v + WG < nv; v += 2 * WG) { /* two loads in flight before the compares */
            RAWG r0 = pv[v], r1 = pv[v + WG];
            ulong base = vb + v * GV;
            GV_LANES(TAKE_LANE, r0)
            base += (ulong)WG * GV;
            GV_LANES(TAKE_LANE, r1)
        }
        if (v < nv) {
            RAWG r0 = pv[v];
            ulong base = vb + v * GV;
            GV_LANES(TAKE_LANE, r0)
        }
        ulong tail = vb + nv * GV;
        for (ulong j = tail + t; j < e; j += WG)
            TAKE(p[j], j);
    } else {
        for (ulong j = b + t; j < e; j += WG)
            TAKE(p[j * inner], j);
    }
    tree_wg(lk, li, t, bk, bi);
    if (t == 0) FINISH(lk[0], j0 + li[0], q, seg);
}

/* Work-items along the inner dimension (dimension 0) so that reads are contiguous; dimension 1
 * enumerates (row, segment). The strategy for a strided axis. */
__kernel void reduce_strided(REDUCE_ARGS)
{
    const ulong part_nq = count * inner;
    ulong lane = get_global_id(0);
    ulong g = get_global_id(1);
    if (lane >= inner || g >= count * nseg) return; /* count: rows */
    ulong row = g / nseg, seg = g % nseg;
    ulong b = seg * seg_len;
    ulong e = min(n, b + seg_len);
    __global const RAW_T *p = x + x_off + row * n * inner + lane;
    KEY_T bk = KEY(p[b * inner]);
    ulong bi = b;
    for (ulong j = b + 1; j < e; j++) {
        KEY_T k = KEY(p[j * inner]);
        if (REPLACES(k, bk)) {
            bk = k;
            bi = j;
        }
    }
    FINISH(bk, j0 + bi, row * inner + lane, seg);
}

/* Merges the nseg partial pairs of each q (segments in index order), then finishes as above. */
__kernel void combine(ulong count, ulong nseg, int flags, __global ulong *part,
                      __global ulong *state, __global OUT_T *out, ulong out_off, ulong n,
                      ulong inner)
{
    ulong q = get_global_id(0);
    if (q >= count) return;
    KEY_T bk = (KEY_T)part[PART(q, 0, count, nseg)];
    ulong bi = part[PART(q, 0, count, nseg) + 1];
    for (ulong s = 1; s < nseg; s++) {
        KEY_T k = (KEY_T)part[PART(q, s, count, nseg)];
        ulong i = part[PART(q, s, count, nseg) + 1];
        if (BETTER(k, i, bk, bi)) {
            bk = k;
            bi = i;
        }
    }
    finish(bk, bi, q, 0, 1, count, flags, n, inner, part, state, out, out_off);
}

/* combine for many segments (GPUs): a work-group per q, each item merging every WG-th segment,
 * then the tree. One work-item reading hundreds of pairs one after another would wait on memory
 * for longer than the reduce took. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
combine_wg(ulong count, ulong nseg, int flags, __global ulong *part, __global ulong *state,
           __global OUT_T *out, ulong out_off, ulong n, ulong inner)
{
    __local KEY_T lk[WG];
    __local ulong li[WG];
    ulong q = get_group_id(0);
    uint t = get_local_id(0);
    KEY_T bk = 0;
    ulong bi = EMPTY_IDX;
    for (ulong s = t; s < nseg; s += WG) {
        KEY_T k = (KEY_T)part[PART(q, s, count, nseg)];
        ulong i = part[PART(q, s, count, nseg) + 1];
        if (BETTER(k, i, bk, bi)) {
            bk = k;
            bi = i;
        }
    }
    tree_wg(lk, li, t, bk, bi);
    if (t == 0) finish(lk[0], li[0], q, 0, 1, count, flags, n, inner, part, state, out, out_off);
}

/* ---- CPU devices: explicit vectors ---------------------------------------------------------
 * PoCL runs the work-items of a group one after another and vectorises only innermost loops, so
 * a kernel whose loop carries a dependency (the running best) runs scalar. These kernels keep VW
 * running (key, index) pairs in vector lanes instead: lane l sees every VW-th element (rows) or
 * one lane of the inner dimension (strided); indices are 32-bit and relative to the segment (the
 * host keeps segments under 2^32); the lanes are merged with BETTER at the end, which gives the
 * answer of a sequential scan.
 */
#ifndef KEY64
#define KEY64 0
#endif
#ifndef VW
#if KEY64
#define VW 4
#else
#define VW 8
#endif
#endif
#ifndef LB
#define LB 256 /* inner lanes per work-item of reduce_strided_blk, a multiple of VW */
#endif
/* Software prefetch distance in bytes for the sequential scans of rows (0: none). The host sets it
 * for CPU devices only (__builtin_prefetch is a clang builtin, which PoCL's compiler has): on
 * this project's development machine, loops that do some work per element waited on memory. */
#ifndef PF_BYTES
#define PF_BYTES 0
#endif
#if PF_BYTES
#define PREFETCH_AHEAD(p_) __builtin_prefetch((const __global char *)(p_) + PF_BYTES)
#else
#define PREFETCH_AHEAD(p_)
#endif
/* PREFETCH_AHEAD for every 64-byte line of the bytes_ bytes at p_. */
#define PREFETCH_RUN(p_, bytes_)                                                                   \
    for (uint c_ = 0; c_ < (bytes_); c_ += 64)                                                     \
    PREFETCH_AHEAD((const __global char *)(p_) + c_)

#define RAWV CAT(RAW_T, VW)
#define KEYV CAT(KEY_T, VW)
#define IDXV CAT(uint, VW)
#define VLOAD CAT(vload, VW)
#define VSTORE CAT(vstore, VW)
#define VKEY(x_) VMINK(CAT(v, KEYFN)(x_))
#if KEY64
#define KMASK CAT(long, VW)
#define IDX_MASK(m) CAT(convert_int, VW)(m)
#define KEY_CONVERT(x_) CAT(convert_ulong, VW)(x_)
#define AS_KEYV(x_) CAT(as_ulong, VW)(x_)
#else
#define KMASK CAT(int, VW)
#define IDX_MASK(m) (m)
#define KEY_CONVERT(x_) CAT(convert_uint, VW)(x_)
#define AS_KEYV(x_) CAT(as_uint, VW)(x_)
#endif
#if VW == 16
#define LANE_IDS ((IDXV)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#elif VW == 8
#define LANE_IDS ((IDXV)(0, 1, 2, 3, 4, 5, 6, 7))
#elif VW == 4
#define LANE_IDS ((IDXV)(0, 1, 2, 3))
#else
#error "VW must be 4, 8 or 16"
#endif

/* Vector keys: the scalar maps written with lane masks (a vector comparison gives -1 where
 * true). */
#if KEY64
KEYV vkey_f64(RAWV v)
{
    KEYV u = KEY_CONVERT(v);
    KEYV a = u & 0x7FFFFFFFFFFFFFFFul;
    u &= AS_KEYV(a != (KEYV)0);
    KEYV s = (KEYV)0 - (u >> 63);
    return (u ^ (s | 0x8000000000000000ul)) | AS_KEYV(a > (KEYV)0x7FF0000000000000ul);
}
#define vkey_u64(x_) KEY_CONVERT(x_)
#define vkey_i64(x_) (KEY_CONVERT(x_) ^ 0x8000000000000000ul)
#else
KEYV vkey_f32(RAWV v)
{
    KEYV u = KEY_CONVERT(v);
    KEYV a = u & 0x7FFFFFFFu;
    u &= AS_KEYV(a != (KEYV)0);
    KEYV s = (KEYV)0 - (u >> 31);
    return (u ^ (s | 0x80000000u)) | AS_KEYV(a > (KEYV)0x7F800000u);
}
#define VKEY16(name, INF)                                                                          \
    KEYV name(RAWV v)                                                                              \
    {                                                                                              \
        KEYV u = KEY_CONVERT(v);                                                                   \
        KEYV a = u & 0x7FFFu;                                                                      \
        u &= AS_KEYV(a != (KEYV)0);                                                                \
        KEYV s = (KEYV)0 - (u >> 15);                                                              \
        return ((u ^ (s | 0x8000u)) | AS_KEYV(a > (KEYV)(INF))) & 0xFFFFu;                         \
    }
VKEY16(vkey_f16, 0x7C00u)
VKEY16(vkey_bf16, 0x7F80u)
#define vkey_u8(x_) KEY_CONVERT(x_)
#define vkey_i8(x_) (KEY_CONVERT(x_) ^ 0x80u)
#define vkey_u16(x_) KEY_CONVERT(x_)
#define vkey_i16(x_) (KEY_CONVERT(x_) ^ 0x8000u)
#define vkey_u32(x_) KEY_CONVERT(x_)
#define vkey_i32(x_) (KEY_CONVERT(x_) ^ 0x80000000u)
#endif

#if MIN && ISFLOAT
KEYV VMINK(KEYV k)
{
    return select(~k & (KEYV)KEY_ALL, k, k == (KEYV)KEY_ALL);
}
#elif MIN
#define VMINK(k) (~(k) & (KEYV)KEY_ALL)
#else
#define VMINK(k) (k)
#endif

/* One step of VW running pairs: element keys k at relative index vector j. */
#define VSTEP(vk, vi, k, j)                                                                        \
    do {                                                                                           \
        KMASK up_ = REPLACES(k, vk);                                                               \
        vk = select(vk, k, up_);                                                                   \
        vi = select(vi, j, IDX_MASK(up_));                                                         \
    } while (0)

/* Merges VW lane pairs (indices relative to base) into (*bk, *bi). */
void merge_lanes(KEYV vk, IDXV vi, ulong base, KEY_T *bk, ulong *bi)
{
    KEY_T ka[VW];
    uint ia[VW];
    VSTORE(vk, 0, ka);
    VSTORE(vi, 0, ia);
    for (int l = 0; l < VW; l++) {
        if (BETTER(ka[l], base + ia[l], *bk, *bi)) {
            *bk = ka[l];
            *bi = base + ia[l];
        }
    }
}

/* Contiguous rows (inner == 1), one (row, segment) per work-item, VW elements a step. */
__kernel void reduce_rows_vec(REDUCE_ARGS)
{
    const ulong part_nq = count;
    ulong g = get_global_id(0);
    if (g >= count * nseg) return;
    ulong q = g / nseg, seg = g % nseg;
    ulong b = seg * seg_len;
    uint len = (uint)(min(n, b + seg_len) - b);
    __global const RAW_T *p = x + x_off + q * n + b;
    KEY_T bk = KEY(p[0]);
    ulong bi = 0;
    uint j = 1;
#if FUSED_ZERO
    zrun z = zero_edges(out, out_off + q * n + b, len);
    uint zd = 0; /* words written */
#endif
    if (len >= 2 * VW) {
        KEYV vk = VKEY(VLOAD(0, p));
        IDXV vi = LANE_IDS;
        for (j = VW; j + VW <= len; j += VW) {
            PREFETCH_AHEAD(p + j);
            KEYV k = VKEY(VLOAD(0, p + j));
            VSTEP(vk, vi, k, (IDXV)j + LANE_IDS);
#if FUSED_ZERO
            ZERO_WORDS(z, zd, ZSTEP);
            zd += ZSTEP;
#endif
        }
        bk = 0;
        bi = EMPTY_IDX;
        merge_lanes(vk, vi, 0, &bk, &bi);
    }
    for (; j < len; j++) { /* the tail comes after every lane's elements */
        KEY_T k = KEY(p[j]);
        if (REPLACES(k, bk)) {
            bk = k;
            bi = j;
        }
    }
#if FUSED_ZERO
    ZERO_WORDS(z, zd, z.words - min(zd, z.words));
    NT_FENCE(); /* the zeros before the one */
#endif
    FINISH(bk, j0 + b + bi, q, seg);
}

/* Keys of at most 32 bits: key and index packed into one integer of twice the key's width (uint
 * for keys of at most 16 bits, ulong for 32), the key above the index (LAST) or its complement
 * (first), so a single max picks the winner under the tie rule. The index must be at most
 * PACK_LOW: callers check. */
#if !KEY64 && KEY_ALL <= 0xFFFF
#define PACK 1
#define PACK_T uint
#define PACK_SHIFT 16
#define PACK_LOW 0xFFFFu
#define PACKK(k_) ((k_) << 16)
#elif !KEY64
#define PACK 1
#define PACK_T ulong
#define PACK_SHIFT 32
#define PACK_LOW 0xFFFFFFFFu
#define PACKK(k_) (CAT(convert_ulong, VW)(k_) << 32)
#else
#define PACK 0
#endif
#if LAST
#define PACK_IDX(i) (i)
#else
#define PACK_IDX(i) (PACK_LOW - (i))
#endif
#if PACK
#define PACKV_T CAT(PACK_T, VW)
/* Key vector k_ with index vector i_, packed. */
#define PACKV(k_, i_) (PACKK(k_) | CAT(convert_, PACKV_T)(PACK_IDX(i_)))
/* The key and the index of a packed pair m_. */
#define PACK_KEY(m_) ((KEY_T)((m_) >> PACK_SHIFT))
#define PACK_INDEX(m_) PACK_IDX((uint)((m_)&PACK_LOW))
#endif

/* A strided axis: one work-item per (LB lanes, row, segment), scanning the segment row by row so
 * every read is a contiguous run of LB elements; VW lanes a step, the last few one at a time.
 * Each vector of lanes keeps its running pairs packed (keys of at most 32 bits: one max an
 * element; the planner keeps segments of 8- and 16-bit keys within PACK_LOW + 1 elements), or
 * as keys and indices apart (64-bit keys: a compare and two selects an element). */
#if PACK
#define SVEC_T PACKV_T
#define SVEC_INIT(k_) PACKV(k_, (IDXV)0)
/* Vector v of the running pairs after the keys k_ of row jj. */
#define SVEC_STEP(v, k_, jj) sp[v] = max(sp[v], PACKK(k_) | (PACK_T)PACK_IDX(jj))
#else
#define SVEC_T KEYV
#define SVEC_INIT(k_) (k_)
#define SVEC_STEP(v, k_, jj) VSTEP(sp[v], vi[v], k_, (IDXV)(jj))
#endif
/* The keys and indices of running-pair vector sv (indices iv when not packed) into ka, ia. */
#if PACK
#define SVEC_UNPACK(sv, iv, ka, ia)                                                                \
    {                                                                                              \
        PACK_T m_[VW];                                                                             \
        VSTORE(sv, 0, m_);                                                                         \
        for (int l_ = 0; l_ < VW; l_++) {                                                          \
            ka[l_] = PACK_KEY(m_[l_]);                                                             \
            ia[l_] = PACK_INDEX(m_[l_]);                                                           \
        }                                                                                          \
    }
#else
#define SVEC_UNPACK(sv, iv, ka, ia)                                                                \
    {                                                                                              \
        VSTORE(sv, 0, ka);                                                                         \
        VSTORE(iv, 0, ia);                                                                         \
    }
#endif
/* Finishes the lanes of a strided work-item: nv vectors of pairs in sp (and vi), the lanes past
 * them in sk and si; indices relative to b. */
#define STRIDED_FINISH()                                                                           \
    for (uint v = 0; v < nv; v++) {                                                                \
        KEY_T ka[VW];                                                                              \
        uint ia[VW];                                                                               \
        SVEC_UNPACK(sp[v], vi[v], ka, ia);                                                         \
        for (int l = 0; l < VW; l++)                                                               \
            FINISH(ka[l], j0 + b + ia[l], row * inner + lane0 + v * VW + l, seg);                  \
    }                                                                                              \
    for (uint l = nv * VW; l < lanes; l++)                                                         \
    FINISH(sk[l - nv * VW], j0 + b + si[l - nv * VW], row * inner + lane0 + l, seg)
/* A strided work-item of w lanes: its tile of lanes, row and segment, and p, the first row of
 * its segment. */
#define STRIDED_ITEM(w)                                                                            \
    const ulong part_nq = count * inner;                                                           \
    ulong lane0 = get_global_id(0) * (w);                                                          \
    ulong g = get_global_id(1);                                                                    \
    if (lane0 >= inner || g >= count * nseg) return;                                               \
    ulong row = g / nseg, seg = g % nseg;                                                          \
    ulong b = seg * seg_len;                                                                       \
    uint len = (uint)(min(n, b + seg_len) - b);                                                    \
    uint lanes = (uint)min((ulong)(w), inner - lane0);                                             \
    uint nv = lanes / VW;                                                                          \
    __global const RAW_T *p = x + x_off + (row * n + b) * inner + lane0
#if PACK
#define VI_START(v)
#else
#define VI_START(v) vi[v] = (IDXV)0
#endif
/* The running pairs from the first row: nv vectors in sp (and vi), the lanes past them in sk and
 * si. */
#define STRIDED_START()                                                                            \
    KEY_T sk[VW];                                                                                  \
    uint si[VW];                                                                                   \
    for (uint v = 0; v < nv; v++) {                                                                \
        sp[v] = SVEC_INIT(VKEY(VLOAD(v, p)));                                                      \
        VI_START(v);                                                                               \
    }                                                                                              \
    for (uint l = nv * VW; l < lanes; l++) {                                                       \
        sk[l - nv * VW] = KEY(p[l]);                                                               \
        si[l - nv * VW] = 0;                                                                       \
    }
/* The rows from j to the end of the segment one at a time, then the answers. In Hardmax the
 * zeros go out before the ones (NT_FENCE). */
#if FUSED_ZERO
#define ZERO_FENCE() NT_FENCE()
#else
#define ZERO_FENCE()
#endif
#define STRIDED_END()                                                                              \
    for (; j < len; j++) {                                                                         \
        __global const RAW_T *r = p + (ulong)j * inner;                                            \
        for (uint v = 0; v < nv; v++)                                                              \
            SVEC_STEP(v, VKEY(VLOAD(v, r)), j);                                                    \
        STRIDED_TAIL(r, j)                                                                         \
        ZERO_ROW(r);                                                                               \
    }                                                                                              \
    ZERO_FENCE();                                                                                  \
    STRIDED_FINISH()
/* One-byte keys, where no zeros go out in the loops (CPU devices' Hardmax keeps the packed loops
 * below): rows are taken in blocks of up to 256, each vector of lanes keeping its best key and
 * that key's row in the block as two uchar16, so an element costs a compare, a masked move and a
 * max on bytes where packing takes a widening to uint16, a shift, an or and a max on 32-bit
 * words; each block's pairs then join the packed ones. PoCL on the development machine: uint8
 * [256,4096,256] axis 1 went from 27.5 to 17-19 ms on one thread (docs/PERFORMANCE.md).
 * bs holds the state: vector v's keys at bs[2 * v], its rows at bs[2 * v + 1]. */
#if ES == 1 && VW == 16 && PACK && !FUSED_ZERO
#define BYTE_KEYS 1
#define BKEY(v_, r_) (VLOAD(v_, r_) ^ (uchar16)(uchar)KEY((RAW_T)0))
/* The keys k_ of row t_ of the block into best keys m_ and their rows x_. */
#define BSTEP(m_, x_, k_, t_)                                                                      \
    {                                                                                              \
        uchar16 k1_ = (k_);                                                                        \
        x_ = select(x_, (uchar16)(uchar)(t_), REPLACES(k1_, m_));                                  \
        m_ = max(m_, k1_);                                                                         \
    }
/* Vectors 0 to NV - 1 (and the lanes past them) of the rows from j to the end of the segment,
 * then into sp; PF(v, ra, rb) before vector v of each four rows. */
#define BYTE_RUN(NV, bs, PF)                                                                       \
    while (j < len) {                                                                              \
        uint bl = min(len - j, 256u), t = 1;                                                       \
        __global const RAW_T *r0 = p + (ulong)j * inner;                                           \
        for (uint v = 0; v < (NV); v++) {                                                          \
            bs[2 * v] = BKEY(v, r0);                                                               \
            bs[2 * v + 1] = (uchar16)0;                                                            \
        }                                                                                          \
        STRIDED_TAIL(r0, j)                                                                        \
        for (; t + 4 <= bl; t += 4) {                                                              \
            __global const RAW_T *r = r0 + (ulong)t * inner;                                       \
            for (uint v = 0; v < (NV); v++) {                                                      \
                PF(v, r, r + 2 * inner);                                                           \
                uchar16 m = bs[2 * v], x = bs[2 * v + 1];                                          \
                BSTEP(m, x, BKEY(v, r), t);                                                        \
                BSTEP(m, x, BKEY(v, r + inner), t + 1);                                            \
                BSTEP(m, x, BKEY(v, r + 2 * inner), t + 2);                                        \
                BSTEP(m, x, BKEY(v, r + 3 * inner), t + 3);                                        \
                bs[2 * v] = m;                                                                     \
                bs[2 * v + 1] = x;                                                                 \
            }                                                                                      \
            for (uint q = 0; q < 4; q++)                                                           \
                STRIDED_TAIL(r + q * inner, j + t + q)                                             \
        }                                                                                          \
        for (; t < bl; t++) {                                                                      \
            __global const RAW_T *r = r0 + (ulong)t * inner;                                       \
            for (uint v = 0; v < (NV); v++) {                                                      \
                uchar16 m = bs[2 * v], x = bs[2 * v + 1];                                          \
                BSTEP(m, x, BKEY(v, r), t);                                                        \
                bs[2 * v] = m;                                                                     \
                bs[2 * v + 1] = x;                                                                 \
            }                                                                                      \
            STRIDED_TAIL(r, j + t)                                                                 \
        }                                                                                          \
        for (uint v = 0; v < (NV); v++)                                                            \
            sp[v] =                                                                                \
                max(sp[v], PACKV(convert_uint16(bs[2 * v]), convert_uint16(bs[2 * v + 1]) + j));   \
        j += bl;                                                                                   \
    }
#else
#define BYTE_KEYS 0
#endif
__kernel void reduce_strided_blk(REDUCE_ARGS)
{
    STRIDED_ITEM(LB);
    SVEC_T sp[LB / VW];
#if !PACK
    IDXV vi[LB / VW];
#endif
    STRIDED_START();
/* FUSED_ZERO: the zeros of the lanes of row r_ (as read; its output has the same offset), and in
 * STRIDED_VEC4 of its four rows: ZSTEP words of each per vector, the rest after. */
#if FUSED_ZERO
#define ZOFF(r_) (out_off + (ulong)((r_)-x) - x_off)
#define ZERO_ROW(r_) zero_out(out, ZOFF(r_), lanes)
#define ZROWS_BEGIN(ra, rb)                                                                        \
    zrun z0 = zero_edges(out, ZOFF(ra), lanes), z1 = zero_edges(out, ZOFF(ra) + inner, lanes);     \
    zrun z2 = zero_edges(out, ZOFF(rb), lanes), z3 = zero_edges(out, ZOFF(rb) + inner, lanes)
#define ZROWS_STEP(v)                                                                              \
    ZERO_WORDS(z0, (v)*ZSTEP, ZSTEP);                                                              \
    ZERO_WORDS(z1, (v)*ZSTEP, ZSTEP);                                                              \
    ZERO_WORDS(z2, (v)*ZSTEP, ZSTEP);                                                              \
    ZERO_WORDS(z3, (v)*ZSTEP, ZSTEP)
#define ZROWS_END(NV)                                                                              \
    ZERO_WORDS(z0, (NV)*ZSTEP, z0.words);                                                          \
    ZERO_WORDS(z1, (NV)*ZSTEP, z1.words);                                                          \
    ZERO_WORDS(z2, (NV)*ZSTEP, z2.words);                                                          \
    ZERO_WORDS(z3, (NV)*ZSTEP, z3.words)
#else
#define ZERO_ROW(r_)
#define ZROWS_BEGIN(ra, rb)
#define ZROWS_STEP(v)
#define ZROWS_END(NV)
#endif
    ZERO_ROW(p);
    /* Four rows a step, so each pair is loaded and stored once per four rows. When the lanes are
     * whole rows (inner == lanes) the reads are one sequential stream, which is prefetched
     * (VEC_PF); blocks of longer rows are left to the hardware prefetcher, and a full one has a
     * constant trip count, which the compiler unrolls. */
    const int stream = inner == lanes;
    uint j = 1;
/* The lanes past the last full vector, one at a time, in row rr (relative index jj). */
#define STRIDED_TAIL(rr, jj)                                                                       \
    for (uint l = nv * VW; l < lanes; l++) {                                                       \
        KEY_T k = KEY((rr)[l]);                                                                    \
        if (REPLACES(k, sk[l - nv * VW])) {                                                        \
            sk[l - nv * VW] = k;                                                                   \
            si[l - nv * VW] = (jj);                                                                \
        }                                                                                          \
    }
/* Vectors 0 to NV - 1 of rows ra and ra + inner (relative indices ja and ja + 1), and of rows rb
 * and rb + inner (jb and jb + 1). */
#define STRIDED_VEC4(NV, ra, ja, rb, jb) STRIDED_VEC4_PF(NV, ra, ja, rb, jb, NO_PF)
#define NO_PF(v, ra, rb)
/* The same, running PF(v, ra, rb) before the loads of vector v. */
#define STRIDED_VEC4_PF(NV, ra, ja, rb, jb, PF)                                                    \
    {                                                                                              \
        ZROWS_BEGIN(ra, rb);                                                                       \
        for (uint v = 0; v < (NV); v++) {                                                          \
            PF(v, ra, rb);                                                                         \
            KEYV k0 = VKEY(VLOAD(v, ra)), k1 = VKEY(VLOAD(v, (ra) + inner));                       \
            KEYV k2 = VKEY(VLOAD(v, rb)), k3 = VKEY(VLOAD(v, (rb) + inner));                       \
            SVEC_STEP(v, k0, ja);                                                                  \
            SVEC_STEP(v, k1, (ja) + 1);                                                            \
            SVEC_STEP(v, k2, jb);                                                                  \
            SVEC_STEP(v, k3, (jb) + 1);                                                            \
            ZROWS_STEP(v);                                                                         \
        }                                                                                          \
        ZROWS_END(NV);                                                                             \
    }
/* Rows j to j + 3 a step while four remain, PF(v, ra, rb) before each vector (STRIDED_VEC4_PF). */
#define STRIDED_STEP4_PF(NV, PF)                                                                   \
    for (; j + 4 <= len; j += 4) {                                                                 \
        __global const RAW_T *r = p + (ulong)j * inner;                                            \
        STRIDED_VEC4_PF(NV, r, j, r + 2 * inner, j + 2, PF)                                        \
        for (uint q = 0; q < 4; q++)                                                               \
            STRIDED_TAIL(r + q * inner, j + q)                                                     \
    }
#define STRIDED_STEP4(NV) STRIDED_STEP4_PF(NV, NO_PF)
/* Software prefetch, PF_BYTES ahead, of vector v of rows ra, ra + inner, rb and rb + inner, once
 * per 64 bytes: spread over the loop, not issued in a run of a step's lines before it. Whole rows
 * read as one stream (the middle axis) waited on those runs: PoCL on the development machine took
 * 8.6-9.0 ms for float32 [256,1024,256] axis 1 with them and 6.8-7.1 with this (one thread:
 * 17.0-17.7 and 13.0-13.6, the streaming read's own time; docs/PERFORMANCE.md). */
#define VEC_PF(v, ra, rb)                                                                          \
    if ((((v)*VW * (uint)sizeof(RAW_T)) & 63) == 0) {                                              \
        PREFETCH_AHEAD((ra) + (v)*VW);                                                             \
        PREFETCH_AHEAD((ra) + inner + (v)*VW);                                                     \
        PREFETCH_AHEAD((rb) + (v)*VW);                                                             \
        PREFETCH_AHEAD((rb) + inner + (v)*VW);                                                     \
    }
#if BYTE_KEYS
    {
        uchar16 bs[2 * (LB / VW)];
        if (stream) {
            BYTE_RUN(nv, bs, VEC_PF)
        } else if (nv == LB / VW) {
            BYTE_RUN(LB / VW, bs, NO_PF)
        } else {
            BYTE_RUN(nv, bs, NO_PF)
        }
    }
#else /* the byte loops leave no rows to the packed ones */
#if PACK && KEY_ALL == 0xFFFF
    if (stream && nv * VW == lanes && lanes <= 256) {
        /* 16-bit keys in rows of at most 512 bytes: two streams, two rows from the first half of
         * the segment and two from the second in each step (packed pairs merge in any order).
         * One stream per work-item left these at about 15 GB/s where two reach 21-29; float32
         * gained nothing, and uint8 and rows of 1 KiB lost. The rows past 1 + 2m are left to the
         * loops below. */
        uint m = (len - 1) / 4 * 2;
        for (uint t = 0; t < m; t += 2) {
            __global const RAW_T *ra = p + (ulong)(1 + t) * inner, *rb = ra + (ulong)m * inner;
            STRIDED_VEC4_PF(nv, ra, 1 + t, rb, 1 + m + t, VEC_PF)
        }
        j = 1 + 2 * m;
    }
#endif
    if (stream) {
        STRIDED_STEP4_PF(nv, VEC_PF)
    } else if (nv == LB / VW) {
        STRIDED_STEP4(LB / VW)
    } else {
        STRIDED_STEP4(nv)
    }
#endif
    STRIDED_END();
}

/* A strided axis with rows longer than LB lanes, on CPU devices: one work-item per (tile of lanes,
 * row, segment), as in reduce_strided_blk, but a tile is tile lanes wide (the host makes it up to
 * 64 KiB of each row, the whole row when that is shorter) and its running pairs live in local
 * memory (sp, and vi for 64-bit keys' indices or BYTE_RUN's state; the host sizes both and runs
 * one work-item per group).
 * Reading 64 KiB of each of four rows a step keeps the hardware prefetcher streaming, which blocks
 * of 8 KiB did not: on the development machine [1024,65536] float32 axis 0 went from 22-24 to
 * 27-28 GB/s (docs/PERFORMANCE.md, item 15). Each vector of the four rows is prefetched PF_BYTES
 * ahead, once per 64 bytes. */
__kernel void reduce_strided_wide(REDUCE_ARGS, ulong tile, __local SVEC_T *sp, __local IDXV *vi)
{
    STRIDED_ITEM(tile);
    STRIDED_START();
    ZERO_ROW(p);
    uint j = 1;
#if BYTE_KEYS
    __local uchar16 *bs = (__local uchar16 *)vi;
    BYTE_RUN(nv, bs, VEC_PF)
#else
    STRIDED_STEP4_PF(nv, VEC_PF)
#endif
    STRIDED_END();
}

/* Horizontal max of a key vector and min / max of an index vector, by halves (v is evaluated
 * once). */
#define HALF_REDUCE(T, op, v, out)                                                                 \
    do {                                                                                           \
        CAT(T, VW) v_ = (v);                                                                       \
        CAT(T, 4) q4_;                                                                             \
        HALVES_TO_4(T, op, v_, q4_);                                                               \
        CAT(T, 2) q2_ = op(q4_.lo, q4_.hi);                                                        \
        out = op(q2_.x, q2_.y);                                                                    \
    } while (0)
#if VW == 16
#define HALVES_TO_4(T, op, v, q4)                                                                  \
    do {                                                                                           \
        CAT(T, 8) q8_ = op((v).lo, (v).hi);                                                        \
        q4 = op(q8_.lo, q8_.hi);                                                                   \
    } while (0)
#elif VW == 8
#define HALVES_TO_4(T, op, v, q4) q4 = op((v).lo, (v).hi)
#else
#define HALVES_TO_4(T, op, v, q4) q4 = (v)
#endif

/* Short contiguous rows (n <= SHORT_N, no split): SR rows per work-item.
 * Rows of at least VW elements: the row's keys in vectors of VW (the last vector overlaps the one
 * before it instead of running past the row). Keys of at most 32 bits are packed with their
 * index (PACK, above), so one vector max and one horizontal max give the winner. 64-bit keys:
 * their max, a horizontal max, then the smallest (or largest) index whose key equals it, again
 * with vectors and a horizontal min (max).
 * Shorter rows: the keys of all SR rows go to a private buffer in one loop the compiler
 * vectorises, then each row is a branch-free scan of its keys. */
#ifndef SR
#define SR 16
#endif
#ifndef SHORT_N
#define SHORT_N 64
#endif
#if PACK && SHORT_N - 1 > PACK_LOW
#error "SHORT_N is too large for the packed index"
#endif
#if PACK
/* One level of the reduction of several rows at once: the pairs of neighbouring lanes of a, then
 * of b, each pair within one row. */
#define PACK_LEVEL(a, b) max((PACKV_T)((a).even, (b).even), (PACKV_T)((a).odd, (b).odd))
/* A row of at least VW elements as packed pairs (the overlapping last vector only repeats
 * pairs). */
PACKV_T row_packed(__global const RAW_T *p, uint lastv)
{
    PREFETCH_AHEAD(p);
    PACKV_T c = PACKV(VKEY(VLOAD(0, p + lastv)), LANE_IDS + (IDXV)lastv);
    for (uint j = 0; j < lastv; j += VW)
        c = max(c, PACKV(VKEY(VLOAD(0, p + j)), LANE_IDS + (IDXV)j));
    return c;
}
/* Rows b .. b + 7 as packed pairs ROW(r) reduced together: each level takes the pairs of
 * neighbouring lanes (always of one row) of two vectors into one, halving the vectors and the
 * lanes a row. After three levels, VW / 8 neighbouring lanes of out hold each row's pairs, in row
 * order (the row's winner, for 32-bit keys). */
#define ROWS8(ROW, b, out)                                                                         \
    {                                                                                              \
        PACKV_T a0_ = PACK_LEVEL(ROW((b) + 0), ROW((b) + 1));                                      \
        PACKV_T a1_ = PACK_LEVEL(ROW((b) + 2), ROW((b) + 3));                                      \
        PACKV_T a2_ = PACK_LEVEL(ROW((b) + 4), ROW((b) + 5));                                      \
        PACKV_T a3_ = PACK_LEVEL(ROW((b) + 6), ROW((b) + 7));                                      \
        out = PACK_LEVEL(PACK_LEVEL(a0_, a1_), PACK_LEVEL(a2_, a3_));                              \
    }
#endif
void rows_short(REDUCE_ARGS)
{
    const ulong part_nq = count;
    ulong r0 = get_global_id(0) * SR;
    if (r0 >= count) return;
    uint rows = (uint)min((ulong)SR, count - r0);
    uint len = (uint)n;
    __global const RAW_T *p = x + x_off + r0 * n;
    if (len >= VW) {
        uint lastv = len - VW;
#if PACK
#if SR == 16 && VW == 16
        if (rows == SR) {
            /* Keys of at most 16 bits, a full work-item: the 16 rows' vectors are reduced
             * together, two ROWS8 and a last level, after which one vector holds the 16 rows'
             * winners in row order. (32-bit keys: below.) */
#define ROWS16(ROW)                                                                                \
    {                                                                                              \
        PACKV_T lo_, hi_;                                                                          \
        ROWS8(ROW, 0, lo_)                                                                         \
        ROWS8(ROW, 8, hi_)                                                                         \
        v = PACK_LEVEL(lo_, hi_);                                                                  \
    }
/* Row r_ as packed pairs: rows of exactly one vector (vector r_ of the work-item's: lastv is 0,
 * a constant, so row_packed's loop goes), or any. */
#define ROW_ONE(r_) row_packed(p + (r_)*VW, 0)
#define ROW_ANY(r_) row_packed(p + (r_)*len, lastv)
            PACKV_T v;
            if (len == VW) {
                /* Without row_packed's loop (its trip count unknown to the compiler, it kept a
                 * test and branch per row): [16777216,16] uint8 on one PoCL thread went from
                 * 23.8 to 20.2 ms (with the stores below non-temporal in both). */
                ROWS16(ROW_ONE)
            } else {
                ROWS16(ROW_ANY)
            }
#if OUT_MODE != 2
            if (nseg == 1 && flags == FINAL) { /* the answers go straight out */
                CAT(OUT_T, 16)
                o = CAT(convert_, CAT(OUT_T, 16))(PACK_IDX(v & PACK_LOW)) + (OUT_T)j0;
                __global OUT_T *d = out + out_off + r0;
#if HAVE_NT && ES == 1
                /* One-byte rows of 16 write half as many bytes as they read: non-temporal stores
                 * (where the 16 answers are aligned as a vector) save the lines' reads. On the
                 * development machine [16777216,16] uint8 went from 11.6-11.8 to 10.2-10.6 ms
                 * on host memory (PoCL's own buffers varied from 13.9 to 17.5 ms either way),
                 * while float16, writing a quarter, lost 5%: one-byte types only. */
                if (((ulong)d & (sizeof o - 1)) == 0) {
                    NT_STORE(o, (__global CAT(OUT_T, 16) *)d);
                    return;
                }
#endif
                vstore16(o, 0, d);
                return;
            }
#endif
            PACK_T m[SR];
            vstore16(v, 0, m);
            for (uint r = 0; r < SR; r++)
                FINISH(PACK_KEY(m[r]), j0 + PACK_INDEX(m[r]), r0 + r, 0);
            return;
        }
#elif SR == 16 && VW == 8 && PACK_SHIFT == 32
        if (rows == SR) {
            /* 32-bit keys, a full work-item: eight rows' packed pairs at a time reduced
             * together (ROWS8), their answers stored as one vector. A horizontal max and a
             * FINISH a row took more: [4194304,16] float32 on one PoCL thread went from
             * 17.2-17.3 to 15.8-16.6 ms. Rows of exactly two vectors get row_packed's loop
             * unrolled (lastv a constant): without that, 19.5-19.9 ms. */
            for (uint h = 0; h < SR; h += 8) {
                __global const RAW_T *ph = p + h * len;
                PACKV_T v;
                if (len == 2 * VW) { /* the loops go (lastv a constant) */
#define PROW2(r_) row_packed(ph + (r_)*2 * VW, VW)
                    ROWS8(PROW2, 0, v)
                } else {
#define PROW(r_) row_packed(ph + (r_)*len, lastv)
                    ROWS8(PROW, 0, v)
                }
#if OUT_MODE != 2
                if (nseg == 1 && flags == FINAL) { /* the answers go straight out */
                    CAT(OUT_T, 8)
                    o = CAT(convert_, CAT(OUT_T, 8))(PACK_IDX(v & PACK_LOW)) + (OUT_T)j0;
                    vstore8(o, 0, out + out_off + r0 + h);
                    continue;
                }
#endif
                PACK_T m[8];
                vstore8(v, 0, m);
                for (uint r = 0; r < 8; r++)
                    FINISH(PACK_KEY(m[r]), j0 + PACK_INDEX(m[r]), r0 + h + r, 0);
            }
            return;
        }
#endif
        for (uint r = 0; r < rows; r++, p += len) {
            PACKV_T c = row_packed(p, lastv);
            PACK_T m;
            HALF_REDUCE(PACK_T, max, c, m);
            FINISH(PACK_KEY(m), j0 + PACK_INDEX(m), r0 + r, 0);
        }
#else
        for (uint r = 0; r < rows; r++, p += len) {
            PREFETCH_AHEAD(p);
            KEYV vm = VKEY(VLOAD(0, p + lastv));
            for (uint j = 0; j < lastv; j += VW)
                vm = max(vm, VKEY(VLOAD(0, p + j)));
            KEY_T m;
            HALF_REDUCE(KEY_T, max, vm, m);
            /* Candidates are index + 1 (0: none) for the last index, the index (~0: none) for
             * the first. */
#if LAST
            IDXV c = select((IDXV)0, LANE_IDS + (IDXV)(lastv + 1),
                            IDX_MASK(VKEY(VLOAD(0, p + lastv)) == (KEYV)m));
            for (uint j = 0; j < lastv; j += VW)
                c = max(c, select((IDXV)0, LANE_IDS + (IDXV)(j + 1),
                                  IDX_MASK(VKEY(VLOAD(0, p + j)) == (KEYV)m)));
            uint bi;
            HALF_REDUCE(uint, max, c, bi);
            bi -= 1;
#else
            IDXV c = select((IDXV)0xFFFFFFFFu, LANE_IDS + (IDXV)lastv,
                            IDX_MASK(VKEY(VLOAD(0, p + lastv)) == (KEYV)m));
            for (uint j = 0; j < lastv; j += VW)
                c = min(c, select((IDXV)0xFFFFFFFFu, LANE_IDS + (IDXV)j,
                                  IDX_MASK(VKEY(VLOAD(0, p + j)) == (KEYV)m)));
            uint bi;
            HALF_REDUCE(uint, min, c, bi);
#endif
            FINISH(m, j0 + bi, r0 + r, 0);
        }
#endif
        return;
    }
    KEY_T kb[SR * SHORT_N];
    PREFETCH_RUN(p, rows * len * (uint)sizeof(RAW_T));
    for (uint e = 0; e < rows * len; e++)
        kb[e] = KEY(p[e]);
    for (uint r = 0; r < rows; r++) {
        const KEY_T *k = kb + r * len;
        KEY_T m = k[0];
        uint bi = 0;
        for (uint j = 1; j < len; j++) {
            int up = REPLACES(k[j], m);
            m = up ? k[j] : m;
            bi = up ? j : bi;
        }
        FINISH(m, j0 + bi, r0 + r, 0);
    }
}

__kernel void reduce_rows_short(REDUCE_ARGS)
{
    rows_short(x, x_off, n, inner, count, nseg, seg_len, j0, flags, part, state, out, out_off);
#if HAVE_NT && ES == 1 && OUT_MODE != 2
    /* The non-temporal stores of the group's items (rows_short), fenced once per group: a fence
     * waits for the stores to reach memory, and one per item of 16 rows made the kernel 8 times
     * slower. A CPU device runs a group's items on one thread; were they on several, the
     * barrier's own synchronisation would order them too (Intel's manual: a locked instruction
     * drains the write-combining buffers). */
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (get_local_id(0) == 0) NT_FENCE();
#endif
}

/* Hardmax's zeros on CPU devices, before the ones: bytes [off, off + n) of y. clEnqueueFillBuffer
 * filled them on one thread there (PoCL), at about half the speed of this kernel on all cores. The
 * whole 16-byte words of the range go per consecutive words to a work-item (long runs, as CPU
 * devices want), grid-stride; work-item 0 also writes the bytes before the first whole word and
 * after the last. Buffers start at CL_DEVICE_MEM_BASE_ADDR_ALIGN (at least 16 bytes), so the words
 * are aligned. The words go out with non-temporal stores where the device has them: three times
 * the speed of plain stores on PoCL (256 MiB: 20.3 -> 5.8 ms). */
__kernel void fill_zero(__global uchar *y, ulong off, ulong n, ulong per)
{
    const ulong end = off + n, a0 = (off + 15) & ~(ulong)15, a1 = end & ~(ulong)15;
    const ulong gid = get_global_id(0), step = get_global_size(0) * per;
    if (a0 < a1) {
        __global uint4 *w = (__global uint4 *)(y + a0);
        const ulong words = (a1 - a0) / 16;
        for (ulong b = gid * per; b < words; b += step) {
            const ulong e = b + per < words ? b + per : words;
            for (ulong i = b; i < e; i++)
                NT_STORE((uint4)(0, 0, 0, 0), w + i);
        }
    }
    if (gid == 0) {
        const ulong head = a0 < end ? a0 : end;
        for (ulong i = off; i < head; i++)
            y[i] = 0;
        for (ulong i = a1 > head ? a1 : head; i < end; i++)
            y[i] = 0;
    }
    NT_FENCE();
}

/* host/narrow.c's merge, for the enqueue API: output q = o * inner + l of [outer, n, inner] from
 * the winners widx[widx_off + o * g * inner + c * inner + l] (class c < g: rows c, g + c, ...) of
 * the wide problem [outer, n / g, g * inner], and the rows past its last wide row; by key, then by
 * row under the tie rule. Written as OUT_MODE says (Hardmax: the one, the zeros already there). */
__kernel void narrow_merge(__global const RAW_T *x, ulong x_off, ulong n, ulong inner, ulong g,
                           ulong count, __global const long *widx, ulong widx_off,
                           __global OUT_T *out, ulong out_off)
{
    const ulong q = get_global_id(0);
    if (q >= count) return;
    const ulong o = q / inner, l = q % inner, m = g * inner, full = n / g * g;
    __global const RAW_T *base = x + x_off + o * n * inner + l;
    KEY_T bk = 0;
    ulong br = 0;
    for (ulong c = 0; c < g + (n - full); c++) {
        ulong row = c < g ? (ulong)widx[widx_off + o * m + c * inner + l] * g + c : full + c - g;
        KEY_T k = KEY(base[row * inner]);
        if (c == 0 || k > bk || (k == bk && (LAST ? row > br : row < br))) {
            bk = k;
            br = row;
        }
    }
#if OUT_MODE == 2
    out[out_off + (o * n + br) * inner + l] = (OUT_T)ONE_BITS;
#else
    out[out_off + q] = (OUT_T)br;
#endif
}

/* clmax_enqueue_max_with_indices: the winners' values, once the indices are in idx (int64, or
 * int32 with OUT_MODE 1): values[v_off + q] = x[x_off + (o * n + idx[idx_off + q]) * inner + l]
 * for q = o * inner + l. The raw bits are copied, so a NaN winner keeps its payload. Hardmax
 * programs (OUT_MODE 2) have it too, unused. */
#if OUT_MODE == 1
#define GATHER_IDX_T int
#else
#define GATHER_IDX_T long
#endif
__kernel void gather_values(__global const RAW_T *x, ulong x_off, ulong n, ulong inner, ulong count,
                            __global const GATHER_IDX_T *idx, ulong idx_off, __global RAW_T *values,
                            ulong v_off)
{
    const ulong q = get_global_id(0);
    if (q >= count) return;
    const ulong o = q / inner, l = q % inner;
    values[v_off + q] = x[x_off + (o * n + (ulong)idx[idx_off + q]) * inner + l];
}
