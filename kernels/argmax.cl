/* Work-group-parallel ArgMax along an axis, on ordered integer keys (DESIGN.md section 2).
 *
 * Elements are loaded as raw bits (uchar, ushort, uint, ulong), so float16, bfloat16 and double
 * need neither cl_khr_fp16 nor cl_khr_fp64. Specialised by defines:
 *   RAW_T   raw element type           KEY_T  key type (uint, or ulong for 64-bit elements)
 *   KEY(u)  key of raw bits u          LAST   1: ties go to the largest index
 *   WG      work-group size of reduce_rows_wg (a power of two)
 *   OUT_MODE 0: write int64 indices; 1: int32 indices; 2: Hardmax, write ONE_BITS (of RAW_T) at
 *           the winner of an output already filled with zeros
 *
 * A box of the canonical view [rows, n, inner] starts at x + x_off. Every (row, lane) pair
 * q = row * inner + lane has its answer; the axis may be cut into nseg segments of seg_len, each
 * reduced separately into a partial pair part[2 * (q * nseg + seg) + {0: key, 1: index}] and merged
 * by combine. flags: ACCUM: merge with the running pair state[2 * q + {0, 1}] (an earlier chunk of
 * the axis); FINAL: write the answer to out + out_off, else keep the pair in state for the next
 * chunk. Indices are absolute along the axis: j0 is the first index of the box.
 */
#ifndef RAW_T
#define RAW_T uint
#define KEY_T uint
#define KEYFN key_f32
#endif
#define KEY(u) KEYFN(u)
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

void finish(KEY_T k, ulong i, ulong q, ulong seg, ulong nseg, int flags, ulong n, ulong inner,
            __global ulong *part, __global ulong *state, __global OUT_T *out, ulong out_off)
{
    if (nseg > 1) {
        part[2 * (q * nseg + seg)] = k;
        part[2 * (q * nseg + seg) + 1] = i;
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
#define FINISH(k, i, q, seg) finish(k, i, q, seg, nseg, flags, n, inner, part, state, out, out_off)

/* One (q, segment) per work-item, scanned sequentially: the CPU-device strategy. */
__kernel void reduce_rows_wi(REDUCE_ARGS)
{
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

/* One (q, segment) per work-group of WG items: strided loads across the group, then a tree in
 * local memory. The GPU strategy for contiguous rows. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
reduce_rows_wg(REDUCE_ARGS)
{
    __local KEY_T lk[WG];
    __local ulong li[WG];
    ulong g = get_group_id(0);
    uint t = get_local_id(0);
    ulong q = g / nseg, seg = g % nseg;
    ulong row = q / inner, lane = q % inner;
    ulong b = seg * seg_len;
    ulong e = min(n, b + seg_len);
    __global const RAW_T *p = x + x_off + row * n * inner + lane;
    KEY_T bk = 0;
    ulong bi = EMPTY_IDX;
    ulong j = b + t;
    if (j < e) {
        bk = KEY(p[j * inner]);
        bi = j;
    }
    for (j += WG; j < e; j += WG) {
        KEY_T k = KEY(p[j * inner]);
        if (REPLACES(k, bk)) {
            bk = k;
            bi = j;
        }
    }
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
    if (t == 0) FINISH(lk[0], j0 + li[0], q, seg);
}

/* Work-items along the inner dimension (dimension 0) so that reads are contiguous; dimension 1
 * enumerates (row, segment). The strategy for a strided axis. */
__kernel void reduce_strided(REDUCE_ARGS)
{
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
    KEY_T bk = (KEY_T)part[2 * q * nseg];
    ulong bi = part[2 * q * nseg + 1];
    for (ulong s = 1; s < nseg; s++) {
        KEY_T k = (KEY_T)part[2 * (q * nseg + s)];
        ulong i = part[2 * (q * nseg + s) + 1];
        if (BETTER(k, i, bk, bi)) {
            bk = k;
            bi = i;
        }
    }
    finish(bk, bi, q, 0, 1, flags, n, inner, part, state, out, out_off);
}
