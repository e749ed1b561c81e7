/* Small kernels beside the reductions: Hardmax's zeros (fill_zero), the merge of the narrow
 * classes (narrow_merge) and the values at the winners (gather_values). After common.cl. */
/* Hardmax's zeros on CPU devices, before the ones: bytes [off, off + n) of y. clEnqueueFillBuffer
 * filled them on one thread there (PoCL), at about half the speed of this kernel on all cores. The
 * whole 16-byte words of the range go per consecutive words to a work-item (long runs, as CPU
 * devices want), grid-stride; work-item 0 also writes the bytes before the first whole word and
 * after the last. Buffers start at CL_DEVICE_MEM_BASE_ADDR_ALIGN (at least 16 bytes), so the words
 * are aligned. The words go out with non-temporal stores where the device has them: no line is
 * read in before it is written, several times faster than plain stores on PoCL. */
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
 * row under the tie rule (flags: KEY_MIN for ArgMin). Written as OUT_MODE and OUT32 say (Hardmax:
 * the one, the zeros already there). */
__kernel void narrow_merge(__global const RAW_T *x, ulong x_off, ulong n, ulong inner, ulong g,
                           ulong count, __global const long *widx, ulong widx_off,
                           __global OUT_T *out, ulong out_off, int flags)
{
    const ulong q = get_global_id(0);
    if (q >= count) return;
    const KEY_T km = KEY_MASK(flags);
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
    store_index(out, out_off + q, br, flags);
#endif
}

/* clmax_enqueue_max_with_indices: the winners' values, once the indices are in idx (int64, or
 * int32 with the flag OUT32): values[v_off + q] = x[x_off + (o * n + idx[idx_off + q]) * inner +
 * l] for q = o * inner + l. The raw bits are copied, so a NaN winner keeps its payload. Hardmax
 * programs (OUT_MODE 2) have it too, unused. */
__kernel void gather_values(__global const RAW_T *x, ulong x_off, ulong n, ulong inner, ulong count,
                            __global const long *idx, ulong idx_off, __global RAW_T *values,
                            ulong v_off, int flags)
{
    const ulong q = get_global_id(0);
    if (q >= count) return;
    const ulong o = q / inner, l = q % inner;
    const ulong j =
        (flags & OUT32) ? (ulong)((__global const int *)idx)[idx_off + q] : (ulong)idx[idx_off + q];
    values[v_off + q] = x[x_off + (o * n + j) * inner + l];
}
