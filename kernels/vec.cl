/* CPU devices: explicit vectors, shared by rows_cpu.cl, rows_short.cl, slices_short.cl and
 * strided.cl (after common.cl).
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
/* Software prefetch distance in bytes for the sequential scans of rows (0: none). The host sets it
 * for CPU devices whose compiler was found to take a prefetch (CLMAX_PREFETCH, spelled by
 * host/opencl/cl_features.c): on this project's development machine, loops that do some work per
 * element waited on memory. OpenCL C's own prefetch() does nothing on PoCL. */
#ifndef PF_BYTES
#define PF_BYTES 0
#endif
#if PF_BYTES && defined(CLMAX_PREFETCH)
#define PREFETCH_AHEAD(p_) CLMAX_PREFETCH((const __global char *)(p_) + PF_BYTES)
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
#define VKEY(x_) CAT(v, KEYFN)(x_, km)
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
/* N answers at once, the indices in integer vector iv (of N) plus base, stored as int64 (int32 with
 * OUT32) from answer at of out: where a kernel's answers are final and consecutive. */
#define STORE_ANSWERS(N, iv, base, at)                                                             \
    do {                                                                                           \
        if (flags & OUT32)                                                                         \
            STORE_ANSWERS_AS(int, N, iv, base, at);                                                \
        else                                                                                       \
            STORE_ANSWERS_AS(long, N, iv, base, at);                                               \
    } while (0)
#define STORE_ANSWERS_AS(T, N, iv, base, at)                                                       \
    CAT(vstore, N)(CAT(convert_, CAT(T, N))(iv) + (T)(base), 0, (__global T *)out + (at))
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
KEYV vkey_f64(RAWV v, KEY_T km)
{
    KEYV u = KEY_CONVERT(v);
    KEYV a = u & 0x7FFFFFFFFFFFFFFFul;
    u &= AS_KEYV(a != (KEYV)0);
    KEYV s = (KEYV)0 - (u >> 63);
    return (u ^ ((s | 0x8000000000000000ul) ^ km)) | AS_KEYV(a > (KEYV)0x7FF0000000000000ul);
}
#define vkey_u64(x_, km) (KEY_CONVERT(x_) ^ (km))
#define vkey_i64(x_, km) (KEY_CONVERT(x_) ^ (0x8000000000000000ul ^ (km)))
#else
KEYV vkey_f32(RAWV v, KEY_T km)
{
    KEYV u = KEY_CONVERT(v);
    KEYV a = u & 0x7FFFFFFFu;
    u &= AS_KEYV(a != (KEYV)0);
    KEYV s = (KEYV)0 - (u >> 31);
    return (u ^ ((s | 0x80000000u) ^ km)) | AS_KEYV(a > (KEYV)0x7F800000u);
}
#define VKEY16(name, INF)                                                                          \
    KEYV name(RAWV v, KEY_T km)                                                                    \
    {                                                                                              \
        KEYV u = KEY_CONVERT(v);                                                                   \
        KEYV a = u & 0x7FFFu;                                                                      \
        u &= AS_KEYV(a != (KEYV)0);                                                                \
        KEYV s = (KEYV)0 - (u >> 15);                                                              \
        return ((u ^ ((s | 0x8000u) ^ km)) | AS_KEYV(a > (KEYV)(INF))) & 0xFFFFu;                  \
    }
VKEY16(vkey_f16, 0x7C00u)
VKEY16(vkey_bf16, 0x7F80u)
#define vkey_u8(x_, km) (KEY_CONVERT(x_) ^ (km))
#define vkey_i8(x_, km) (KEY_CONVERT(x_) ^ (0x80u ^ (km)))
#define vkey_u16(x_, km) (KEY_CONVERT(x_) ^ (km))
#define vkey_i16(x_, km) (KEY_CONVERT(x_) ^ (0x8000u ^ (km)))
#define vkey_u32(x_, km) (KEY_CONVERT(x_) ^ (km))
#define vkey_i32(x_, km) (KEY_CONVERT(x_) ^ (0x80000000u ^ (km)))
#endif

/* One step of VW running pairs: element keys k at relative index vector j. */
#define VSTEP(vk, vi, k, j)                                                                        \
    do {                                                                                           \
        KMASK up_ = REPLACES(k, vk);                                                               \
        vk = select(vk, k, up_);                                                                   \
        vi = select(vi, j, IDX_MASK(up_));                                                         \
    } while (0)

/* The 16-byte words that lie whole in bytes [a, a + bytes) of memory: the bytes before the first
 * (head), and how many. */
typedef struct wspan {
    uint head, words;
} wspan;
wspan whole_words(ulong a, ulong bytes)
{
    const uint head = (uint)min((16 - (a & 15)) & 15, bytes);
    wspan s = {head, (uint)((bytes - head) / 16)};
    return s;
}

/* Hardmax on CPU devices: reduce_rows_vec and reduce_strided_blk write the zeros of the elements
 * they read themselves (the host then enqueues no fill), so the output is written in the same pass
 * as the input is read, like the read + write that is its limit, instead of in a pass of its own.
 * The one of a winner is written after the zeros: by the same work-item, after NT_FENCE, or by
 * combine, a later command; or with them, in a whole slice's one pass (WHOLE in strided.cl).
 * Host side: clmax_cl_fused_zeros, which must agree. */
#if OUT_MODE == 2 && NT
#define FUSED_ZERO 1
/* The zeros go out in the reading loops, a few 16-byte words a step: zeroing each 2 KiB run, or
 * each whole row, in a loop of its own after reading it gained little or lost against the
 * separate fill (docs/PERFORMANCE.md). */
typedef struct zrun {
    __global uint4 *w; /* the whole 16-byte words of a run of output elements */
    uint words;        /* how many; a run is at most a segment or a lane block */
} zrun;
/* Zeroes the elements of [a, a + len) of out before its first 16-byte aligned word and after its
 * last, and returns the words between. Aligned by address, not by offset: a buffer over the
 * caller's memory (CL_MEM_USE_HOST_PTR, clmax_cl_hardmax_in_place) may start anywhere. */
zrun zero_edges(__global OUT_T *out, ulong a, ulong len)
{
    __global OUT_T *h = out + a;
    const wspan s = whole_words((ulong)h, len * sizeof(OUT_T));
    for (uint e = 0; e < s.head / sizeof(OUT_T); e++)
        h[e] = 0;
    for (ulong e = (s.head + s.words * 16ul) / sizeof(OUT_T); e < len; e++)
        h[e] = 0;
    zrun z = {(__global uint4 *)(h + s.head / sizeof(OUT_T)), s.words};
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
/* Hardmax outputs of at most WHOLE_BYTES held by one work-item are written after they are read,
 * zeros and ones together (WHOLE in strided.cl; rows: write_onehot, up to WHOLE_ROW_BYTES).
 * Larger slices measured no different (up to 16 MiB) and rows of 2 to 4 KiB slower (float32
 * [B, 1000] 0.94 -> 0.67 of the limit on PoCL), so they keep the zeros written while reading. */
#define WHOLE_BYTES 65536u
#define WHOLE_ROW_BYTES 1024u
/* Elements [a, a + len) of out, the one at a + i and zeros elsewhere: Hardmax of a whole row in
 * one pass, the words between the edges (zero_edges) in non-temporal stores, the one's word
 * among them; a one on an edge goes over its zero, in the cache. */
void write_onehot(__global OUT_T *out, ulong a, ulong len, ulong i)
{
    zrun z = zero_edges(out, a, len);
    __global OUT_T *one = out + a + i, *h = (__global OUT_T *)z.w;
    union {
        uint4 v;
        OUT_T e[16 / ES];
    } w;
    w.v = (uint4)(0, 0, 0, 0);
    ulong at = z.words;
    if (one >= h && one < h + z.words * (16 / ES)) {
        at = (ulong)(one - h) / (16 / ES);
        w.e[(one - h) % (16 / ES)] = (OUT_T)ONE_BITS;
    } else {
        *one = (OUT_T)ONE_BITS;
    }
    for (ulong k = 0; k < z.words; k++)
        NT_STORE(k == at ? w.v : (uint4)(0, 0, 0, 0), z.w + k);
    NT_FENCE();
}
/* Output words per vector of input (VW * sizeof(RAW_T) is 32 bytes for every Hardmax type). */
#define ZSTEP (VW * (uint)sizeof(RAW_T) / 16)
#else
#define FUSED_ZERO 0
#endif

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
