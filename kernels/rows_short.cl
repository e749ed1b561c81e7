/* Short contiguous rows on CPU devices (reduce_rows_short), short slices of a strided axis of fewer
 * lanes than a vector (reduce_slices_short), and axes of two of 1 to VW / 2 lanes
 * (reduce_rows_pairs). After common.cl and vec.cl. */
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

/* Short contiguous rows (no split; host/plan.h clmax_short_row_most): SR rows per work-item.
 * Rows of at least VW elements: the row's keys in vectors of VW (the last vector overlaps the one
 * before it instead of running past the row). Keys of at most 32 bits are packed with their
 * index (PACK, above), so one vector max and one horizontal max give the winner. 64-bit keys:
 * their max, a horizontal max, then the smallest (or largest) index whose key equals it, again
 * with vectors and a horizontal min (max).
 * Shorter rows: in a full work-item, one- and two-byte rows of 4 and 8 as whole vectors reduced
 * by neighbours (rows_pow2), others a vector a row from the row's start (rows_masked, where
 * MASKED_MIN says it wins); else the keys of all SR rows go to a private buffer in one loop the
 * compiler vectorises, then each row is a branch-free scan of its keys. */
#ifndef SR
#define SR 16
#endif
#ifndef SHORT_N
#define SHORT_N 64
#endif
#define PACKED_SLICE 32768 /* host/plan.h CLMAX_PACKED_SLICE */
#if PACK && PACKED_SLICE / 2 - 1 > PACK_LOW
#error "PACKED_SLICE is too large for the packed index"
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
PACKV_T row_packed(__global const RAW_T *p, uint lastv, KEY_T km)
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
/* Hardmax of rows of at most ONEHOT_ROW bytes on CPU devices (FUSED_ZERO): an item's rows'
 * outputs are one run, which reduce_rows_short zeroes as words before the rows are read and
 * rows_short writes the ones into (fz), in the pass that reads them; else their ArgMax pass wrote
 * 8 bytes of index a row, up to 4 times what it read, before the host's one-hot fill. Against
 * that on PoCL (in turns): float16 rows of 2 to 12 x1.1-1.9, float32 of 2 to 16 x1.1-1.6, float64
 * of 2 to 6 x1.1-1.4; longer ones no faster (float64 rows of 128 bytes: x0.82). The run built in a
 * private buffer and stored whole, as reduce_slices_short's is, was slower for rows of a vector
 * (float16 rows of 16: x0.85). */
#define ONEHOT_ROW 64 /* host/plan.h CLMAX_ONEHOT_ROW */
/* Row r of the item's (absolute r0 + r) won at index i of the box's, key k: its one (fz), or
 * FINISH. */
#if OUT_MODE == 2
#define RFINISH(k, i, r)                                                                           \
    do {                                                                                           \
        if (fz)                                                                                    \
            out[out_off + (r0 + (r)) * len + (i)] = (OUT_T)ONE_BITS;                               \
        else                                                                                       \
            FINISH(k, j0 + (i), r0 + (r), 0);                                                      \
    } while (0)
#else
#define RFINISH(k, i, r) FINISH(k, j0 + (i), r0 + (r), 0)
#endif
/* The 16 rows' winners in packed vector v, as indices of type T (long, or int with OUT32) at
 * out + out_off + r0. One-byte rows of 16 write half as many bytes as they read: non-temporal
 * stores (where the 16 answers are aligned as a vector) save the lines' reads. Types that write
 * less (float16: a quarter) lost with them: one-byte types only. */
#if HAVE_NT && ES == 1
#define NT_ROWS 1
#else
#define NT_ROWS 0
#endif
#define STORE16(T)                                                                                 \
    do {                                                                                           \
        CAT(T, 16) o_ = CAT(convert_, CAT(T, 16))(PACK_IDX(v & PACK_LOW)) + (T)j0;                 \
        __global T *d_ = (__global T *)out + out_off + r0;                                         \
        if (NT_ROWS && ((ulong)d_ & (sizeof o_ - 1)) == 0)                                         \
            NT_STORE(o_, (__global CAT(T, 16) *)d_);                                               \
        else                                                                                       \
            vstore16(o_, 0, d_);                                                                   \
    } while (0)
/* The 8 rows' winners in v (32-bit keys), as STORE16, from row r0 + h. */
#define STORE8(T)                                                                                  \
    vstore8(CAT(convert_, CAT(T, 8))(PACK_IDX(v & PACK_LOW)) + (T)j0, 0,                           \
            (__global T *)out + out_off + r0 + h)
/* The winners of nr_ (16 or 8) rows from row r0 + h_, in packed vector v, to the output: at once
 * (STORE) where the answers go straight out, else a FINISH each. */
#if OUT_MODE != 2
#define WINNERS_OUT(nr_, STORE, h_)                                                                \
    if (nseg == 1 && ONLY_FINAL(flags)) {                                                          \
        if (flags & OUT32)                                                                         \
            STORE(int);                                                                            \
        else                                                                                       \
            STORE(long);                                                                           \
    } else                                                                                         \
        WINNERS_FINISH(nr_, h_)
#else
#define WINNERS_OUT(nr_, STORE, h_) WINNERS_FINISH(nr_, h_)
#endif
#define WINNERS_FINISH(nr_, h_)                                                                    \
    {                                                                                              \
        PACK_T m_[nr_];                                                                            \
        CAT(vstore, nr_)(v, 0, m_);                                                                \
        for (uint r_ = 0; r_ < (nr_); r_++)                                                        \
            RFINISH(PACK_KEY(m_[r_]), PACK_INDEX(m_[r_]), (h_) + r_);                              \
    }
#if PACK
#define ROWS16(ROW)                                                                                \
    {                                                                                              \
        PACKV_T lo_, hi_;                                                                          \
        ROWS8(ROW, 0, lo_)                                                                         \
        ROWS8(ROW, 8, hi_)                                                                         \
        v = PACK_LEVEL(lo_, hi_);                                                                  \
    }
#endif
#if PACK && SR == 16 && (VW == 16 || (VW == 8 && PACK_SHIFT == 32))
/* Rows shorter than a vector, a full work-item (rows_short decides): each row is one vector
 * loaded at its start, the lanes past the row cleared (a packed 0 never beats an element:
 * PACK_IDX), and the rows reduced together as rows_short's full work-items of rows of a vector
 * are. Against rows_short's key buffer on PoCL (rows of 2 to 15, in turns): one- and two-byte
 * rows x1.1-5.9, but float16 Hardmax of rows of 2 x0.78 (uint8 ArgMax x1.9), and of 3 and 4
 * x0.73-0.85 once the kernel writes their one-hot (ONEHOT_ROW); float32 rows of 5 to 7 x1.4-1.6,
 * of 2 to 4 x0.45-0.88 (a vector of ulong pairs for a few elements): hence MASKED_MIN. */
#if PACK_SHIFT == 16
#define MASKED_MIN (ES == 1 ? 2 : OUT_MODE == 2 ? 5 : 3)
#define ROW_KEEP CAT(convert_, PACKV_T)(LANE_IDS < (IDXV)len) /* -1 in the row's lanes */
#else
#define MASKED_MIN (VW / 2 + 1)
#define ROW_KEEP CAT(convert_, PACKV_T)(CAT(convert_long, VW)(LANE_IDS < (IDXV)len))
#endif
#define ROW_PART(r_) (PACKV(VKEY(VLOAD(0, p + (r_)*len)), LANE_IDS) & keep)
void rows_masked(REDUCE_ARGS, __global const RAW_T *p, ulong r0, uint len, KEY_T km, int fz)
{
    const ulong part_nq = count;
    const PACKV_T keep = ROW_KEEP;
#if VW == 16
    PACKV_T v;
    ROWS16(ROW_PART)
    WINNERS_OUT(16, STORE16, 0)
#else
    for (uint h = 0; h < SR; h += 8, p += 8 * len) {
        PACKV_T v;
        ROWS8(ROW_PART, 0, v)
        WINNERS_OUT(8, STORE8, h)
    }
#endif
}
#define MASKED_ROWS 1
#else
#define MASKED_ROWS 0
#endif
#if PACK && SR == 16 && VW == 16
/* Rows of four or eight, a full work-item: its elements as vectors of packed (key, index in the
 * row) pairs, reduced by neighbours (PACK_LEVEL: always within a row) into one vector of the 16
 * rows' winners, in row order, where rows_masked took a vector a row. Against it on PoCL (3
 * rounds in turns): uint8 rows of 4 x2.5, of 8 x1.6; float16 x2.1 and x1.4; float16 Hardmax x1.8
 * and x1.25. The branch for them cost float16 Hardmax rows of 3 x0.91 (0.22 -> 0.20). */
void rows_pow2(REDUCE_ARGS, __global const RAW_T *p, ulong r0, uint len, KEY_T km, int fz)
{
    const ulong part_nq = count;
    const IDXV ids = LANE_IDS & (IDXV)(len - 1);
#define POW2_ROWS(q) PACKV(VKEY(VLOAD(q, p)), ids)
    PACKV_T v;
    if (len == 4)
        v = PACK_LEVEL(PACK_LEVEL(POW2_ROWS(0), POW2_ROWS(1)),
                       PACK_LEVEL(POW2_ROWS(2), POW2_ROWS(3)));
    else
        ROWS8(POW2_ROWS, 0, v)
    WINNERS_OUT(16, STORE16, 0)
}
#define POW2_ROWS_FIT 1
#else
#define POW2_ROWS_FIT 0
#endif
/* Rows of two elements, a full work-item whose answers go straight out (reduce_rows_pairs): VW / 2
 * rows a vector, each odd lane's key against its even neighbour's (REPLACES keeps the tie rule), so
 * no index is packed or reduced, and the answers leave a vector at a time: the indices, or for
 * Hardmax the whole one-hot, zeros included (whoever wrote them before), a row's pair as one word
 * where the output is aligned for it (float16 x2.4 against the two halves interleaved). */
#if VW == 16
#define HVW 8
#define PAIR_MIX (0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15)
#elif VW == 8
#define HVW 4
#define PAIR_MIX (0, 4, 1, 5, 2, 6, 3, 7)
#else
#define HVW 2
#define PAIR_MIX (0, 2, 1, 3)
#endif
#define VSTORE_H CAT(vstore, HVW)
/* A row's pair of outputs as one word (little-endian devices: the first element the low half) */
#if defined(__ENDIAN_LITTLE__) && ES == 2
#define PAIR_WORD uint
#elif defined(__ENDIAN_LITTLE__) && ES == 4
#define PAIR_WORD ulong
#endif
#define PAIRS_T CAT(PAIR_WORD, HVW)
/* Slices of two rows of L lanes (L 2 to VW / 2, a power of two; reduce_rows_pairs with inner L): in
 * a vector, the first rows' keys (LO) against the second rows' (HI), each in answer order, and
 * Hardmax's ones put back in the input's order (MIX, for shuffle2 of the first rows' ones and the
 * second's), or each lane against its partner in the other row (SWAP: lane ^ L). Against
 * reduce_slices_short on PoCL (3 rounds, in turns): [B, 2, 2..8] x1.9-3.3 for ArgMax, x2.7-4.7
 * for Hardmax. */
#if VW == 16
#define LO2(k) (k).s014589cd
#define HI2(k) (k).s2367abef
#define MIX2 (0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15)
#define SWAP2(k) (k).s23016745ab89efcd
#define LO4(k) (k).s012389ab
#define HI4(k) (k).s4567cdef
#define MIX4 (0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15)
#define SWAP4(k) (k).s45670123cdef89ab
#define LO8(k) (k).lo
#define HI8(k) (k).hi
#define MIX8 (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define SWAP8(k) (k).s89abcdef01234567
#elif VW == 8
#define LO2(k) (k).s0145
#define HI2(k) (k).s2367
#define MIX2 (0, 1, 4, 5, 2, 3, 6, 7)
#define SWAP2(k) (k).s23016745
#define LO4(k) (k).lo
#define HI4(k) (k).hi
#define MIX4 (0, 1, 2, 3, 4, 5, 6, 7)
#define SWAP4(k) (k).s45670123
#else
#define LO2(k) (k).lo
#define HI2(k) (k).hi
#define MIX2 (0, 1, 2, 3)
#define SWAP2(k) (k).s2301
#endif
#define LO1(k) (k).even
#define HI1(k) (k).odd
/* The answers of vector v of the item: 1 where the second row wins. */
#define SECOND(LO, HI)                                                                             \
    const KEYV k = VKEY(VLOAD(v, p));                                                              \
    const CAT(KEY_T, HVW) second =                                                                 \
        select((CAT(KEY_T, HVW))0, (CAT(KEY_T, HVW))1, REPLACES(HI(k), LO(k)))
/* The answers of vector v as indices (HVW answers from r0 + v * HVW). */
#define PAIR_INDICES() STORE_ANSWERS(HVW, second, j0, out_off + r0 + v * HVW)
/* Hardmax's one-hot of vector v, its elements in the input's order (MIX) */
#define PAIR_ONEHOT(MIX)                                                                           \
    VSTORE(CAT(convert_, RAWV)(shuffle2((CAT(KEY_T, HVW))1 - second, second, (KEYV)MIX)) *         \
               (RAW_T)ONE_BITS,                                                                    \
           v, out + out_off + r0 * 2)
#if OUT_MODE == 2 && ES == 2 && defined(__ENDIAN_LITTLE__)
/* Hardmax of two-byte elements, where the output is aligned for 32-bit words: each lane against its
 * partner in the other row (lane ^ L), in the input's order, two lanes a word (float16 [B, 2, 2..8]
 * x2.1-2.5 against PAIR_ONEHOT, which narrows the 32-bit keys' answers to 16 bits) */
#define PAIR_LOOP(L)                                                                               \
    for (uint v = 0; v < 2 * SR / VW; v++) {                                                       \
        if (((ulong)(out + out_off) & 3) == 0) {                                                   \
            const KEYV k = VKEY(VLOAD(v, p)), o = CAT(SWAP, L)(k);                                 \
            const KMASK row1 = CAT(convert_, KMASK)((LANE_IDS & (IDXV)(L)) != (IDXV)0);            \
            const KMASK win = select(~REPLACES(o, k), REPLACES(k, o), row1);                       \
            vstore8(select((uint8)0, (uint8)ONE_BITS, win.even) |                                  \
                        select((uint8)0, (uint8)ONE_BITS << 16, win.odd),                          \
                    v, (__global uint *)(out + out_off + r0 * 2));                                 \
        } else {                                                                                   \
            SECOND(CAT(LO, L), CAT(HI, L));                                                        \
            PAIR_ONEHOT(CAT(MIX, L));                                                              \
        }                                                                                          \
    }
#else
#if OUT_MODE == 2
#define PAIR_OUT(MIX) PAIR_ONEHOT(MIX)
#else
#define PAIR_OUT(MIX) PAIR_INDICES()
#endif
#define PAIR_LOOP(L)                                                                               \
    for (uint v = 0; v < 2 * SR / VW; v++) {                                                       \
        SECOND(CAT(LO, L), CAT(HI, L));                                                            \
        PAIR_OUT(CAT(MIX, L));                                                                     \
    }
#endif
void rows_pairs(REDUCE_ARGS, __global const RAW_T *p, ulong r0, KEY_T km)
{
    if (inner == 1) {
        for (uint v = 0; v < 2 * SR / VW; v++) {
            /* (by select: Oclgrind made the compare's -1 negated, or and-ed with 1, into 255) */
            SECOND(LO1, HI1);
#if OUT_MODE == 2
#ifdef PAIR_WORD
            if (((ulong)(out + out_off) & (2 * ES - 1)) == 0) {
                const PAIRS_T w = select((PAIRS_T)ONE_BITS, (PAIRS_T)ONE_BITS << (8 * ES),
                                         CAT(convert_, PAIRS_T)(second) != 0);
                VSTORE_H(w, v, (__global PAIR_WORD *)(out + out_off + r0 * 2));
                continue;
            }
#endif
            const CAT(RAW_T, HVW) o = CAT(convert_, CAT(RAW_T, HVW))(second) * (RAW_T)ONE_BITS;
            const CAT(RAW_T, HVW) e = (CAT(RAW_T, HVW))((RAW_T)ONE_BITS) - o;
            VSTORE(shuffle2(e, o, (RAWV)PAIR_MIX), v, out + out_off + r0 * 2);
#else
            PAIR_INDICES();
#endif
        }
    } else if (inner == 2) {
        PAIR_LOOP(2)
#if VW >= 8
    } else if (inner == 4) {
        PAIR_LOOP(4)
#endif
#if VW == 16
    } else {
        PAIR_LOOP(8)
#endif
    }
}
void rows_short(REDUCE_ARGS, int fz)
{
    const ulong part_nq = count;
    const KEY_T km = KEY_MASK(flags);
    ulong r0 = get_global_id(0) * SR;
    if (r0 >= count) return;
    uint rows = (uint)min((ulong)SR, count - r0);
    uint len = (uint)n;
    __global const RAW_T *p = x + x_off + r0 * n;
#if POW2_ROWS_FIT
    if ((len == 4 || len == 8) && rows == SR) {
        rows_pow2(x, x_off, n, inner, count, nseg, seg_len, j0, flags, part, state, out, out_off, p,
                  r0, len, km, fz);
        return;
    }
#endif
#if MASKED_ROWS
    /* (the last row's vector reads VW - len elements past it: only where the box holds them) */
    if (len >= MASKED_MIN && len < VW && rows == SR &&
        (count - r0) * n >= (ulong)(SR - 1) * len + VW) {
        rows_masked(x, x_off, n, inner, count, nseg, seg_len, j0, flags, part, state, out, out_off,
                    p, r0, len, km, fz);
        return;
    }
#endif
    if (len >= VW) {
        uint lastv = len - VW;
#if PACK
#if SR == 16 && VW == 16
        if (rows == SR) {
            /* Keys of at most 16 bits, a full work-item: the 16 rows' vectors are reduced
             * together, two ROWS8 and a last level, after which one vector holds the 16 rows'
             * winners in row order. (32-bit keys: below.) */
/* Row r_ as packed pairs: rows of exactly one vector (vector r_ of the work-item's: lastv is 0,
 * a constant, so row_packed's loop goes), or any. */
#define ROW_ONE(r_) row_packed(p + (r_)*VW, 0, km)
#define ROW_ANY(r_) row_packed(p + (r_)*len, lastv, km)
            PACKV_T v;
            if (len == VW) {
                /* Without row_packed's loop: its trip count unknown to the compiler, it kept a
                 * test and branch per row. */
                ROWS16(ROW_ONE)
            } else {
                ROWS16(ROW_ANY)
            }
            WINNERS_OUT(16, STORE16, 0)
            return;
        }
#elif SR == 16 && VW == 8 && PACK_SHIFT == 32
        if (rows == SR) {
            /* 32-bit keys, a full work-item: eight rows' packed pairs at a time reduced
             * together (ROWS8), their answers stored as one vector (a horizontal max and a
             * FINISH a row took longer). Rows of exactly two vectors get row_packed's loop
             * unrolled (lastv a constant), which was slower without. */
            for (uint h = 0; h < SR; h += 8) {
                __global const RAW_T *ph = p + h * len;
                PACKV_T v;
                if (len == 2 * VW) { /* the loops go (lastv a constant) */
#define PROW2(r_) row_packed(ph + (r_)*2 * VW, VW, km)
                    ROWS8(PROW2, 0, v)
                } else {
#define PROW(r_) row_packed(ph + (r_)*len, lastv, km)
                    ROWS8(PROW, 0, v)
                }
                WINNERS_OUT(8, STORE8, h)
            }
            return;
        }
#endif
        for (uint r = 0; r < rows; r++, p += len) {
            PACKV_T c = row_packed(p, lastv, km);
            PACK_T m;
            HALF_REDUCE(PACK_T, max, c, m);
            RFINISH(PACK_KEY(m), PACK_INDEX(m), r);
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
            RFINISH(m, bi, r);
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
        RFINISH(m, bi, r);
    }
}

__kernel void reduce_rows_short(REDUCE_ARGS)
{
#if FUSED_ZERO
    /* Hardmax of rows of at most ONEHOT_ROW bytes: the kernel writes the zeros (the host's
     * clmax_cl_fused_zeros agrees), as the run above where the item's rows are whole answers. */
    const ulong r0 = get_global_id(0) * SR;
    if (r0 >= count) return;
    if (n * ES <= ONEHOT_ROW) {
        const uint rows = (uint)min((ulong)SR, count - r0);
        if (nseg == 1 && ONLY_FINAL(flags) && j0 == 0) {
            zrun z = zero_edges(out, out_off + r0 * n, rows * n);
            for (uint w = 0; w < z.words; w++)
                z.w[w] = (uint4)(0, 0, 0, 0);
            rows_short(x, x_off, n, inner, count, nseg, seg_len, j0, flags, part, state, out,
                       out_off, 1);
            return;
        }
        zero_out(out, out_off + r0 * n, rows * n);
        NT_FENCE(); /* the zeros before the ones */
    }
#endif
    rows_short(x, x_off, n, inner, count, nseg, seg_len, j0, flags, part, state, out, out_off, 0);
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

/* Axes of two whose answers go straight out, contiguous rows or slices of 2 to VW / 2 lanes (a
 * power of two; the host launches it in place of reduce_rows_short or reduce_slices_short for
 * those: one segment, FINAL only): SR answers a work-item, rows_pairs where they are all there,
 * else an answer at a time. Hardmax writes the whole one-hot, zeros too. A kernel of its own, which
 * leaves reduce_rows_short as it was: PoCL's code for it is touchy (a line moved up in it once
 * cost float32 Hardmax rows of 3 x0.87). */
__kernel void reduce_rows_pairs(REDUCE_ARGS)
{
    const KEY_T km = KEY_MASK(flags);
    const ulong r0 = get_global_id(0) * SR, answers = count * inner;
    if (r0 + SR <= answers) {
        rows_pairs(x, x_off, n, inner, count, nseg, seg_len, j0, flags, part, state, out, out_off,
                   x + x_off + r0 * 2, r0, km);
        return;
    }
    for (ulong q = r0; q < answers; q++) {
        const ulong e = q / inner * 2 * inner + q % inner; /* the answer's first row's element */
        const int second = REPLACES(KEY(x[x_off + e + inner]), KEY(x[x_off + e]));
#if OUT_MODE == 2
        out[out_off + e] = second ? 0 : (OUT_T)ONE_BITS;
        out[out_off + e + inner] = second ? (OUT_T)ONE_BITS : 0;
#else
        store_index(out, out_off + q, j0 + (ulong)second, flags);
#endif
    }
}

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
