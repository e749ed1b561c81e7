/* Short contiguous rows on CPU devices (reduce_rows_short) and axes of two of 1 to VW / 2 lanes
 * (reduce_rows_pairs). After common.cl and vec.cl; slices_short.cl follows it in the ROWS_SHORT
 * family's program. */
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
