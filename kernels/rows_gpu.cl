/* Rows on GPUs: a row per work-item (reduce_rows_wi) or per work-group (reduce_rows_wg). After
 * common.cl. */
/* One (q, segment) per work-item, scanned sequentially: GPUs' short rows, and forced ROWS on a CPU
 * device. */
__kernel void reduce_rows_wi(REDUCE_ARGS)
{
    const ulong part_nq = count;
    const KEY_T km = KEY_MASK(flags);
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

/* One (q, segment) per work-group of WG items: loads spread across the group, then a tree in
 * local memory. The GPU strategy for contiguous rows. Each item sees its elements in increasing
 * index order (the few before the first 16-byte boundary, its vectors, the few after the last),
 * and the pairs start empty (EMPTY_IDX), so BETTER gives the tie rule's answer throughout. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void reduce_rows_wg(REDUCE_ARGS)
{
    __local KEY_T lk[WG];
    __local ulong li[WG];
    const ulong part_nq = count;
    const KEY_T km = KEY_MASK(flags);
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
