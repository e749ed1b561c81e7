/* The combine pass of a split axis: the partial pairs of the segments merged into the answer.
 * After common.cl. */
/* Merges the nseg partial pairs of each q (segments in index order), then finishes as a reduce
 * kernel would. */
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
