/* Rows on CPU devices: contiguous rows (inner == 1) in vectors of VW elements (reduce_rows_vec).
 * After common.cl and vec.cl. */
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
    const KEY_T km = KEY_MASK(flags);
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
    /* A whole row of at most WHOLE_ROW_BYTES is written after it is read, the one in its word
     * (write_onehot): the zeros' non-temporal stores, then the one, read the one's line back. */
    const int whole =
        nseg == 1 && ONLY_FINAL(flags) && j0 == 0 && (ulong)len * ES <= WHOLE_ROW_BYTES;
    zrun z = zero_edges(out, out_off + q * n + b, whole ? 0 : len);
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
    if (whole) {
        write_onehot(out, out_off + q * n, len, bi);
        return;
    }
    ZERO_WORDS(z, zd, z.words - min(zd, z.words));
    NT_FENCE(); /* the zeros before the one */
#endif
    FINISH(bk, j0 + b + bi, q, seg);
}
