/* A strided axis (inner > 1): reduce_strided, a lane per work-item (GPUs); reduce_strided_blk and
 * reduce_strided_wide, blocks of lanes in vectors (CPU devices). After common.cl and vec.cl. */
/* Work-items along the inner dimension (dimension 0) so that reads are contiguous; dimension 1
 * enumerates (row, segment). The strategy for a strided axis. */
__kernel void reduce_strided(REDUCE_ARGS)
{
    const ulong part_nq = count * inner;
    const KEY_T km = KEY_MASK(flags);
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

/* ---- CPU devices: blocks of lanes in vectors (after vec.cl) -------------------------------- */
#ifndef LB
#define LB 256 /* inner lanes per work-item of reduce_strided_blk, a multiple of VW */
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
/* The row indices (relative to b) of running-pair vector v */
#if PACK
#define SVEC_IDX(v) PACK_IDX(CAT(convert_uint, VW)(sp[v] & (PACK_T)PACK_LOW))
#else
#define SVEC_IDX(v) vi[v]
#endif
/* ArgMax's answers of vector v straight out as one vector, where they are final (one segment):
 * FINISH stored them a lane at a time, 8 bytes for every n elements read (PoCL, in turns: uint8
 * [B, 2..8, 256..4096] x1.6-1.9, float16 [B, 2..4, 256] x1.8-1.9, float32 x1.1-1.5). */
#if OUT_MODE != 2
#define SVEC_OUT(v)                                                                                \
    if (nseg == 1 && ONLY_FINAL(flags)) {                                                          \
        STORE_ANSWERS(VW, SVEC_IDX(v), j0 + b, out_off + row * inner + lane0 + v * VW);            \
        continue;                                                                                  \
    }
#else
#define SVEC_OUT(v)
#endif
/* Finishes the lanes of a strided work-item: nv vectors of pairs in sp (and vi), the lanes past
 * them in sk and si; indices relative to b. */
#define STRIDED_FINISH()                                                                           \
    for (uint v = 0; v < nv; v++) {                                                                \
        SVEC_OUT(v)                                                                                \
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
    const KEY_T km = KEY_MASK(flags);                                                              \
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
    if (WHOLE) {                                                                                   \
        WHOLE_WRITE();                                                                             \
    } else {                                                                                       \
        ZERO_FENCE();                                                                              \
        STRIDED_FINISH();                                                                          \
    }
/* Hardmax of a whole slice (FUSED_ZERO; the axis in one segment, at most WHOLE_BYTES of output
 * (vec.cl), rows of whole vectors at 16-byte boundaries): no zeros go out while reading; at the end
 * each vector of a row is made from its lanes' winners, zeros and ones together, in two
 * non-temporal 16-byte stores. Ones stored after the zeros' non-temporal stores read each of their
 * lines back from memory: on PoCL float32 [B, 2, 16] ran at 0.04 of the limit so, 0.15 now; float16
 * [B, 2..32, 64..4096] 0.04-0.52 -> 0.16-0.92. */
#if FUSED_ZERO
#define WHOLE whole
#define WHOLE_START()                                                                              \
    __global OUT_T *wo = out + out_off + row * n * inner + lane0;                                  \
    const int whole = nseg == 1 && ONLY_FINAL(flags) && j0 == 0 && nv * VW == lanes &&             \
                      (inner * ES) % 16 == 0 && ((ulong)wo & 15) == 0 &&                           \
                      (ulong)len * lanes * ES <= WHOLE_BYTES;                                      \
    const uint zlanes = whole ? 0 : lanes
#if ES == 2
#define OMASK_T ushort16
#define OMASK(m_) as_ushort16(convert_short16(m_))
#elif ES == 4
#define OMASK_T uint8
#define OMASK(m_) as_uint8(m_)
#else
#define OMASK_T ulong4
#define OMASK(m_) as_ulong4(convert_long4(m_))
#endif
#define WHOLE_WRITE()                                                                              \
    for (uint jj = 0; jj < len; jj++) {                                                            \
        __global uint4 *o_ = (__global uint4 *)(wo + (ulong)jj * inner);                           \
        for (uint v = 0; v < nv; v++) {                                                            \
            uint8 w_ = as_uint8(OMASK(SVEC_IDX(v) == (IDXV)jj) & (OMASK_T)ONE_BITS);               \
            NT_STORE(w_.lo, o_ + 2 * v);                                                           \
            NT_STORE(w_.hi, o_ + 2 * v + 1);                                                       \
        }                                                                                          \
    }                                                                                              \
    NT_FENCE()
#else
#define WHOLE 0
#define WHOLE_START()
#define WHOLE_WRITE()
#endif
/* One-byte keys, where no zeros go out in the loops (CPU devices' Hardmax keeps the packed loops
 * below): rows are taken in blocks of up to 256, each vector of lanes keeping its best key and
 * that key's row in the block as two uchar16, so an element costs a compare, a masked move and a
 * max on bytes where packing takes a widening to uint16, a shift, an or and a max on 32-bit
 * words; each block's pairs then join the packed ones.
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
    WHOLE_START();
/* FUSED_ZERO: the zeros of the lanes of row r_ (as read; its output has the same offset), and in
 * STRIDED_VEC4 of its four rows: ZSTEP words of each per vector, the rest after. */
#if FUSED_ZERO
#define ZOFF(r_) (out_off + (ulong)((r_)-x) - x_off)
#define ZERO_ROW(r_) zero_out(out, ZOFF(r_), zlanes)
#define ZROWS_BEGIN(ra, rb)                                                                        \
    zrun z0 = zero_edges(out, ZOFF(ra), zlanes), z1 = zero_edges(out, ZOFF(ra) + inner, zlanes);   \
    zrun z2 = zero_edges(out, ZOFF(rb), zlanes), z3 = zero_edges(out, ZOFF(rb) + inner, zlanes)
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
 * per 64 bytes: spread over the loop, not issued in a run of a step's lines before it, on which
 * whole rows read as one stream (the middle axis) waited. */
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
         * One stream per work-item left these well short of the read's bandwidth; float32
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
 * of 8 KiB did not. Each vector of the four rows is prefetched PF_BYTES ahead, once per 64
 * bytes. */
__kernel void reduce_strided_wide(REDUCE_ARGS, ulong tile, __local SVEC_T *sp, __local IDXV *vi)
{
    STRIDED_ITEM(tile);
    STRIDED_START();
    WHOLE_START();
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
