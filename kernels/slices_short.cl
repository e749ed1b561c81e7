/* Short slices of a strided axis of fewer lanes than a vector on CPU devices
 * (reduce_slices_short): whole slices a work-item, a group of slices a vector where their lanes
 * fill under half of one. After common.cl, vec.cl and rows_short.cl (SR, SHORT_N, PACKED_SLICE), in
 * the ROWS_SHORT family's program. */
#define SLICE_VECS 4 /* host/plan.h CLMAX_SLICE_VECS */
/* An item's answers as one run (fz): its slices sb.. are consecutive answers, or for Hardmax
 * consecutive outputs, built in ob at byte lead (the output's address mod 16, so that ob's words
 * are the output's) and stored by reduce_slices_short after them (store_run): indices of int64
 * (int32 with OUT32) at (s - sb) * lanes + l; Hardmax ob zeroed, its ones at (s - sb) * se + i *
 * lanes + l. At most SR * SHORT_N answers or elements of 8 bytes. */
#define OB_WORDS (SR * SHORT_N * 8 / 16 + 2)
#define OB_AT(T, e) ((__private T *)((__private uchar *)ob + lead))[e]
#if OUT_MODE == 2
#define OB_PUT(i, s, l) OB_AT(OUT_T, ((s)-sb) * se + (i)*lanes + (l)) = (OUT_T)ONE_BITS
#else
#define OB_PUT(i, s, l)                                                                            \
    do {                                                                                           \
        if (flags & OUT32)                                                                         \
            OB_AT(int, ((s)-sb) * lanes + (l)) = (int)(j0 + (i));                                  \
        else                                                                                       \
            OB_AT(long, ((s)-sb) * lanes + (l)) = (long)(j0 + (i));                                \
    } while (0)
#endif
/* The answers of slice s, lane l: row i (of the box), key k. */
#define SFINISH(k, i, s, l)                                                                        \
    do {                                                                                           \
        if (fz)                                                                                    \
            OB_PUT(i, s, l);                                                                       \
        else                                                                                       \
            FINISH(k, j0 + (i), (s)*inner + (l), 0);                                               \
    } while (0)
/* Slices of L lanes (2 to VW / 2) a group at a time: GROUP_L slices, each in a slot of the next
 * power of two's positions of a vector (2, 4 or 8), the positions past L unused. */
#if VW == 16
#define GROUP_2 8
#define GROUP_3 4
#define GROUP_4 4
#define GROUP_5 2
#define GROUP_6 2
#define GROUP_7 2
#define GROUP_8 2
#else
#define GROUP_2 4
#define GROUP_3 2
#define GROUP_4 2
#endif
/* A slice's row of L at p as its slot, and a slot as L at p */
#define ROW_IN_2(p) vload2(0, p)
#define ROW_IN_3(p) vload3(0, p), (RAW_T)0
#define ROW_IN_4(p) vload4(0, p)
#define ROW_IN_5(p) vload4(0, p), (p)[4], (RAW_T)0, (RAW_T)0, (RAW_T)0
#define ROW_IN_6(p) vload4(0, p), vload2(0, (p) + 4), (RAW_T)0, (RAW_T)0
#define ROW_IN_7(p) vload4(0, p), vload3(0, (p) + 4), (RAW_T)0
#define ROW_IN_8(p) vload8(0, p)
#define ROW_WIDE_2(p) vload2(0, p)
#define ROW_WIDE_3(p) vload4(0, p)
#define ROW_WIDE_4(p) vload4(0, p)
#define ROW_WIDE_5(p) vload8(0, p)
#define ROW_WIDE_6(p) vload8(0, p)
#define ROW_WIDE_7(p) vload8(0, p)
#define ROW_WIDE_8(p) vload8(0, p)
#define ROW_OUT_2(v, p) vstore2(v, 0, p)
#define ROW_OUT_3(v, p) vstore3((v).s012, 0, p)
#define ROW_OUT_4(v, p) vstore4(v, 0, p)
#define ROW_OUT_5(v, p) (vstore4((v).lo, 0, p), (p)[4] = (v).s4)
#define ROW_OUT_6(v, p) (vstore4((v).lo, 0, p), vstore2((v).s45, 0, (p) + 4))
#define ROW_OUT_7(v, p) (vstore4((v).lo, 0, p), vstore3((v).s456, 0, (p) + 4))
#define ROW_OUT_8(v, p) vstore8(v, 0, p)
#define IN2(R, p, st) R(p), R((p) + (st))
#define IN4(R, p, st) IN2(R, p, st), IN2(R, (p) + 2 * (st), st)
#define IN8(R, p, st) IN4(R, p, st), IN4(R, (p) + 4 * (st), st)
#define OUT2(R, v, p, st) R((v).lo, p), R((v).hi, (p) + (st))
#define OUT4(R, v, p, st) OUT2(R, (v).lo, p, st), OUT2(R, (v).hi, (p) + 2 * (st), st)
#define OUT8(R, v, p, st) OUT4(R, (v).lo, p, st), OUT4(R, (v).hi, (p) + 4 * (st), st)
/* Row t of the group's slices from p, st elements apart, as one vector: slice g's row in slot g,
 * each row read by R (ROW_IN_L, or ROW_WIDE_L: its whole slot's width, where that is in the box) */
#define GATHER(R, L, p, st) ((RAWV)(CAT(IN, CAT(GROUP_, L))(CAT(R, L), p, st)))
/* GATHER's inverse: vector v's slots as L elements each at p, st elements apart */
#define SCATTER(L, v, p, st) CAT(OUT, CAT(GROUP_, L))(CAT(ROW_OUT_, L), v, p, st)
/* The item's slices from done on, GROUP_L at a time while as many are left: each row's gathered
 * keys maxed as packed (key, row) pairs, which leaves the group's winners in the slots. */
#define GROUPS(L)                                                                                  \
    for (; done + CAT(GROUP_, L) <= ns; done += CAT(GROUP_, L)) {                                  \
        __global const RAW_T *pg = p + done * se;                                                  \
        PREFETCH_RUN(pg, CAT(GROUP_, L) * se * (uint)sizeof(RAW_T));                               \
        PACKV_T c;                                                                                 \
        if ((s0 + done + CAT(GROUP_, L)) * se + VW / CAT(GROUP_, L) - L <= count * se)             \
            GROUP_ROWS(ROW_WIDE_, L)                                                               \
        else                                                                                       \
            GROUP_ROWS(ROW_IN_, L)                                                                 \
        GROUP_OUT(L)                                                                               \
    }
#define GROUP_ROWS(R, L)                                                                           \
    {                                                                                              \
        c = PACKV(VKEY(GATHER(R, L, pg, se)), (IDXV)0);                                            \
        for (uint t = 1; t < len; t++)                                                             \
            c = max(c, PACKV(VKEY(GATHER(R, L, pg + t * L, se)), (IDXV)t));                        \
    }
/* The answers of the group (slices s0 + done ..) straight out, where they are the item's run (fz):
 * the indices from the slots (one vector where the slots are full), or Hardmax's one-hot row by
 * row, each slice's row where it was read, zeros and all. */
#define GROUP_WINNERS PACK_IDX(c &PACK_LOW) /* the slots' rows */
#if OUT_MODE != 2
#define GROUP_SCATTER(T, L)                                                                        \
    do {                                                                                           \
        const CAT(T, VW) i_ = CAT(convert_, CAT(T, VW))(GROUP_WINNERS) + (T)j0;                    \
        SCATTER(L, i_, (__global T *)out + out_off + (s0 + done) * L, L);                          \
    } while (0)
#define GROUP_RUN(L)                                                                               \
    if (CAT(GROUP_, L) * L == VW)                                                                  \
        STORE_ANSWERS(VW, GROUP_WINNERS, j0, out_off + (s0 + done) * L);                           \
    else if (flags & OUT32)                                                                        \
        GROUP_SCATTER(int, L);                                                                     \
    else                                                                                           \
        GROUP_SCATTER(long, L);
#else
#define GROUP_RUN(L)                                                                               \
    const IDXV w = CAT(convert_, IDXV)(GROUP_WINNERS);                                             \
    __global OUT_T *og = out + out_off + (s0 + done) * se;                                         \
    for (uint t = 0; t < len; t++) {                                                               \
        const RAWV o = CAT(convert_, RAWV)(w == (IDXV)t) & (RAWV)ONE_BITS;                         \
        SCATTER(L, o, og + t * L, se);                                                             \
    }
#endif
#define GROUP_OUT(L)                                                                               \
    if (fz) {                                                                                      \
        GROUP_RUN(L)                                                                               \
        continue;                                                                                  \
    }                                                                                              \
    PACK_T m[VW];                                                                                  \
    VSTORE(c, 0, m);                                                                               \
    for (uint q = 0; q < VW; q++)                                                                  \
        if (q % (VW / CAT(GROUP_, L)) < L)                                                         \
            SFINISH(PACK_KEY(m[q]), PACK_INDEX(m[q]), s0 + done + q / (VW / CAT(GROUP_, L)),       \
                    q % (VW / CAT(GROUP_, L)));
/* Slices [n, inner] of a strided axis (the planner's SLICES_SHORT), whole slices per work-item:
 * STRIDED_BLK would scan them a lane at a time, an item per slice of a few dozen elements. Keys of
 * at most 32 bits go by vectors of packed (key, row) pairs: rows of 1 to SLICE_VECS whole vectors
 * a vector of lanes at a time, rows of 2 to VW - 1 lanes a vector a row or several rows a vector
 * (below). What is left (64-bit keys, and slices at the box's end that the packed vectors do not
 * take): the keys of as many slices as SR * SHORT_N holds go to a private buffer in one
 * loop the compiler vectorises, then each lane is a branch-free scan down its rows. A slice longer
 * than the buffer (n * inner <= CLMAX_SHORT_SLICE, host/plan.h) is the item's only one, through
 * the buffer a block of rows at a time, each lane's best pair kept between blocks. Returns how
 * many of the item's first slices' answers went straight out (fz: the groups), past the run. */
uint slices_short(REDUCE_ARGS, int fz, __private uint4 *ob, uint lead, ulong sb)
{
    const ulong part_nq = count * inner;
    const KEY_T km = KEY_MASK(flags);
    const uint lanes = (uint)inner, len = (uint)n, se = len * lanes;
    const uint whole = se <= SR * SHORT_N;
    const uint per = whole ? SR * SHORT_N / se : 1;
    const uint rows_a_fill = whole ? len : SR * SHORT_N / lanes;
    ulong s0 = get_global_id(0) * per;
    if (s0 >= count) return 0;
    uint ns = (uint)min((ulong)per, count - s0);
    __global const RAW_T *p = x + x_off + s0 * se;
    uint sent = 0;
#if PACK
#if ES == 1
    if (whole && 2 * lanes <= VW && (lanes <= 4 || len <= 8)) {
#else
    if (whole && 2 * lanes <= VW) {
#endif
        /* Whole slices of 2 to VW / 2 lanes, a group at a time: row t of each gathered into one
         * vector (GATHER), so that a position always holds one lane of one slice, and the rows
         * maxed as packed (key, row) pairs a vector a row; the vector left holds the group's
         * answers, which go straight out where they are the item's run (fz). The ways below
         * load a vector per row of one slice, of which lanes positions are used, then fold them.
         * Against them on PoCL (128 MiB, 3 rounds in turns, axes of 2 to 21): uint8 x1.1-3.7,
         * float16 x1.6-4.6, float32 (2 to 4 lanes) x1.3-3.5, float16 Hardmax x1.1-2.5, float32
         * Hardmax x0.96-3.1; one-byte slices of 5 to 7 lanes on axes of 12 and 21 x0.88-1.05,
         * hence not those. */
        uint done = 0;
        switch (lanes) {
        case 2:
            GROUPS(2);
            break;
        case 3:
            GROUPS(3);
            break;
        case 4:
            GROUPS(4);
            break;
#if VW == 16
        case 5:
            GROUPS(5);
            break;
        case 6:
            GROUPS(6);
            break;
        case 7:
            GROUPS(7);
            break;
        case 8:
            GROUPS(8);
            break;
#endif
        }
        if (fz) sent = done;
        if (done == ns) return sent;
        p += done * se;
        s0 += done;
        ns -= done;
    }
#endif
#if OUT_MODE == 2
    if (fz) /* the run's zeros, past what went straight out */
        for (uint w = (lead + sent * se * ES) / 16; w < (lead + (sent + ns) * se * ES + 15) / 16;
             w++)
            ob[w] = (uint4)(0, 0, 0, 0);
#endif
#if PACK
    if (lanes % VW == 0) {
        /* Whole slices of 1 to SLICE_VECS vectors a row (the planner: keys of at most 32 bits,
         * whole slices only): vector position q of a row is lane q, maxed down the rows as packed
         * (key, row) pairs, with no folds. STRIDED_BLK spent more of a work-item per slice on
         * its start (and Hardmax's zeroing) than on the slice's few rows. */
        const uint nv = lanes / VW;
        for (uint s = 0; s < ns; s++) {
            __global const RAW_T *ps = p + s * se;
            PREFETCH_RUN(ps, se * (uint)sizeof(RAW_T));
            PACKV_T c[SLICE_VECS];
            for (uint v = 0; v < nv; v++)
                c[v] = PACKV(VKEY(VLOAD(v, ps)), (IDXV)0);
            for (uint t = 1; t < len; t++)
                for (uint v = 0; v < nv; v++)
                    c[v] = max(c[v], PACKV(VKEY(VLOAD(v, ps + t * lanes)), (IDXV)t));
            for (uint v = 0; v < nv; v++) {
#if OUT_MODE != 2
                const ulong q0 = (s0 + s) * inner;
                if (nseg == 1 && ONLY_FINAL(flags)) { /* the answers go straight out, a vector */
                    STORE_ANSWERS(VW, PACK_IDX(c[v] & PACK_LOW), j0, out_off + q0 + v * VW);
                    continue;
                }
#endif
                PACK_T m[VW];
                VSTORE(c[v], 0, m);
                for (uint l = 0; l < VW; l++)
                    SFINISH(PACK_KEY(m[l]), PACK_INDEX(m[l]), s0 + s, v * VW + l);
            }
        }
        return sent;
    }
    if (lanes < VW && whole && (VW % lanes == 0 ? se < VW : VW / lanes < 3 || se < VW * VW / 2)) {
        /* Rows of fewer lanes than a vector, whole slices: the vector loaded at a row's start
         * holds its lanes in positions 0 to lanes - 1 (the next rows' elements past them), maxed
         * down the rows as packed (key, row) pairs, so that positions below lanes end as the
         * lanes' winners, with no folds: a vector's few operations a row, each element loaded up
         * to VW / lanes times from the cache, where the scan below took a compare and two
         * selects an element (PoCL: uint8 [B, 5..16, 7] x2.3-4.0, float16 [B, 2..64, 12]
         * x1.5-3.1). Where the packed vectors below fit, whole rows of lanes that divide a
         * vector, or three rows or more a vector on longer slices, they stay faster, as they
         * load a vector for several rows (uint8 [B, 21..64, 2] x0.37-0.71 this way). The item's
         * slices from the first whose last row's vector would pass the box's end go on below. */
        uint done = 0;
        for (; done < ns; done++) {
            const ulong first = (s0 + done) * se;
            if (first + (len - 1) * lanes + VW > count * se) break;
            __global const RAW_T *ps = p + done * se;
            PREFETCH_RUN(ps, se * (uint)sizeof(RAW_T));
            PACKV_T c = PACKV(VKEY(VLOAD(0, ps)), (IDXV)0);
            for (uint t = 1; t < len; t++)
                c = max(c, PACKV(VKEY(VLOAD(0, ps + t * lanes)), (IDXV)t));
            PACK_T m[VW];
            VSTORE(c, 0, m);
            for (uint l = 0; l < lanes; l++)
                SFINISH(PACK_KEY(m[l]), PACK_INDEX(m[l]), s0 + done, l);
        }
        if (done == ns) return sent;
        p += done * se;
        s0 += done;
        ns -= done;
    }
    if (se >= VW && (VW % lanes == 0 || se >= VW * VW / 2) &&
        (whole || se * (uint)sizeof(RAW_T) <= PACKED_SLICE)) {
        /* Slices by vectors of packed (key, row) pairs: whole ones, or a longer one an item of up
         * to PACKED_SLICE bytes (the scan below took those an element at a time: uint8 [B, 1000,
         * 3] 0.08-0.10 -> 0.25-0.44 of the limit, float32 0.22-0.28 -> 0.45-0.72; longer ones
         * were no faster this way). A vector loaded at a multiple of lanes holds use = VW / lanes
         * * lanes elements of whole rows and then the start of the next row; lane q is always the
         * slice's lane q % lanes, of row q / lanes past the vector's first, so the steps of use
         * elements overlap and every lane is in place. The last vector ends at the slice's end
         * (overlapping the one before it); where lanes does not divide VW it starts mid-row and
         * is folded on its own. Each lane's winner is the max of its positions. Those folds cost
         * about 2 VW scalar steps a slice: slices of lanes that do not divide VW and of fewer than
         * VW * VW / 2 elements ran faster through the scan below (PoCL, 32 four-byte elements or
         * 128 of one or two bytes). */
        const IDXV rows_in = LANE_IDS / (IDXV)lanes;
        const uint use = VW / lanes * lanes, lastv = se - VW, shift = lastv % lanes;
        for (uint s = 0; s < ns; s++) {
            __global const RAW_T *ps = p + s * se;
            PREFETCH_AHEAD(ps);
            PACKV_T c = PACKV(VKEY(VLOAD(0, ps)), rows_in);
            for (uint j = use; j <= lastv; j += use)
                c = max(c, PACKV(VKEY(VLOAD(0, ps + j)), rows_in + (IDXV)(j / lanes)));
            PACK_T m[VW], t[VW], b[VW]; /* lanes < VW (the planner) */
            if (shift == 0)
                c = max(c, PACKV(VKEY(VLOAD(0, ps + lastv)), rows_in + (IDXV)(lastv / lanes)));
            VSTORE(c, 0, m);
            for (uint l = 0; l < lanes; l++) {
                b[l] = m[l];
                for (uint q = l + lanes; q < VW; q += lanes)
                    b[l] = max(b[l], m[q]);
            }
            if (shift != 0) {
                /* The rows past the last step (which ended before lastv, a multiple of lanes):
                 * the vector at lastv, lane q the slice's lane (lastv + q) % lanes of row
                 * (lastv + q) / lanes. */
                VSTORE(PACKV(VKEY(VLOAD(0, ps + lastv)), (LANE_IDS + (IDXV)lastv) / (IDXV)lanes), 0,
                       t);
                for (uint q = 0, l = shift; q < VW; q++, l = l + 1 == lanes ? 0 : l + 1)
                    b[l] = max(b[l], t[q]);
            }
            for (uint l = 0; l < lanes; l++)
                SFINISH(PACK_KEY(b[l]), PACK_INDEX(b[l]), s0 + s, l);
        }
        return sent;
    }
#endif
    KEY_T kb[SR * SHORT_N];
    if (whole) {
        PREFETCH_RUN(p, ns * se * (uint)sizeof(RAW_T));
        for (uint e = 0; e < ns * se; e++)
            kb[e] = KEY(p[e]);
    }
    for (uint s = 0; s < ns; s++) {
        KEY_T bk[VW]; /* lanes < VW (the planner) */
        uint bi[VW];
        for (uint j = 0; j < len; j += rows_a_fill) {
            uint rr = min(rows_a_fill, len - j);
            const KEY_T *k = kb + s * se;
            if (!whole) {
                __global const RAW_T *q = p + (ulong)j * lanes;
                PREFETCH_RUN(q, rr * lanes * (uint)sizeof(RAW_T));
                for (uint e = 0; e < rr * lanes; e++)
                    kb[e] = KEY(q[e]);
                k = kb;
            }
            for (uint l = 0; l < lanes; l++) {
                KEY_T m = j ? bk[l] : k[l];
                uint b = j ? bi[l] : 0;
                for (uint t = j ? 0 : 1; t < rr; t++) {
                    KEY_T v = k[t * lanes + l];
                    int up = REPLACES(v, m);
                    m = up ? v : m;
                    b = up ? j + t : b;
                }
                bk[l] = m;
                bi[l] = b;
            }
        }
        for (uint l = 0; l < lanes; l++)
            SFINISH(bk[l], bi[l], s0 + s, l);
    }
    return sent;
}

/* Bytes [0, bytes) of oa from ob's bytes lead.. (above): the words that lie whole in the output
 * as words (whole_words), the bytes at its ends one at a time. */
void store_run(__global uchar *oa, const __private uint4 *ob, uint lead, uint bytes)
{
    const wspan s = whole_words((ulong)oa, bytes);
    const __private uchar *pb = (const __private uchar *)ob + lead;
    __global uint4 *gw = (__global uint4 *)(oa + s.head);
    const uint w0 = (lead + s.head) / 16;
    for (uint b = 0; b < s.head; b++)
        oa[b] = pb[b];
    for (uint w = 0; w < s.words; w++)
        gw[w] = ob[w0 + w];
    for (uint b = s.head + s.words * 16; b < bytes; b++)
        oa[b] = pb[b];
}

/* Slices [n, inner] of a strided axis (slices_short). An item's whole slices of fewer lanes than
 * a vector have their answers in one run (fz, above), stored after them as words, where they went
 * an answer at a time (PoCL, 64 MiB, 5 rounds: uint8 [B, 2..12, 2..3] x1.17-1.43, float16 x1.14-
 * 1.49, float32 [B, 2, 2..3] x1.28-1.46). Hardmax (FUSED_ZERO) of those on an axis of at most
 * ONEHOT_AXIS bytes a lane runs the same way, its zeros written by the kernel in the pass that
 * reads the input, where the ArgMax pass wrote more bytes of indices than it read (8 a lane)
 * before the host's one-hot fill (3 rounds: float16 [B, 2..5, 2..7] x1.2-2.7, float32 x1.1-2.3
 * but [B, 2..8, 4] x0.73-1.05). Rows of whole vectors and longer axes lost so (float16 [B, 8..16,
 * 16] x0.80-0.82) and keep the two passes; plain stores beat non-temporal ones here. So do
 * longer axes of 2 to VW / 2 lanes, whose groups (slices_short) could write their whole one-hot:
 * float16 [B, 21..64, 2..8] x0.30-0.84, float32 [B, 32..64, 2..4] x0.54-0.91 against the fill
 * and the ones. */
#define ONEHOT_AXIS 32 /* host/plan.h CLMAX_ONEHOT_AXIS */
__kernel void reduce_slices_short(REDUCE_ARGS)
{
    const uint se = (uint)n * (uint)inner;
    const uint whole = se <= SR * SHORT_N;
    const uint per = whole ? SR * SHORT_N / se : 1;
    const ulong s0 = get_global_id(0) * per;
    if (s0 >= count) return;
    const uint ns = (uint)min((ulong)per, count - s0);
    uint4 ob[OB_WORDS];
    const int fz = inner < VW && whole && nseg == 1 && ONLY_FINAL(flags);
#if OUT_MODE == 2
    __global OUT_T *oh = out + out_off + s0 * se;
    __global uchar *oa = (__global uchar *)oh;
    const uint bytes = ns * se * ES;
    /* The run only where the host left the zeros to the kernel (clmax_cl_fused_zeros) */
#if FUSED_ZERO
    const int kz = n * ES <= ONEHOT_AXIS && inner < VW;
#else
    const int kz = 0;
#endif
    if (!kz || !fz) {
        if (kz) /* zeros the host did not fill */
            for (uint e = 0; e < ns * se; e++)
                oh[e] = 0;
        slices_short(x, x_off, n, inner, count, nseg, seg_len, j0, flags, part, state, out, out_off,
                     0, ob, 0, s0);
        return;
    }
#else
    const uint ib = flags & OUT32 ? 4 : 8, bytes = ns * (uint)inner * ib;
    __global uchar *oa = (__global uchar *)out + (out_off + s0 * inner) * ib;
    if (!fz) {
        slices_short(x, x_off, n, inner, count, nseg, seg_len, j0, flags, part, state, out, out_off,
                     0, ob, 0, s0);
        return;
    }
#endif
    const uint lead = (uint)((ulong)oa & 15);
    const uint sent = slices_short(x, x_off, n, inner, count, nseg, seg_len, j0, flags, part, state,
                                   out, out_off, 1, ob, lead, s0);
    const uint gone = bytes / ns * sent; /* bytes already out */
    store_run(oa + gone, ob, lead + gone, bytes - gone);
}
