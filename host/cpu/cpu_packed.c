/* Small slices [n, inner] of one-, two- and four-byte types, from cpu_packed.inc (packed_*): each
 * slice's n * inner elements are read as one stream, PACK_WORDS at a time, each position of the
 * step fixed to one lane of the slice, and a lane's key and row are packed into one word (32 bits,
 * 64 for 32-bit keys), so that a plain vector max finds the winner with its tie rule. No shuffle
 * pass (the dealt slices, cpu_deal.c, transpose first) and no running index (the lanes code
 * updates two). */
#include "cpu_kernels.h"
#include "keys.h"

/* Words a step: four AVX2 vectors of 32-bit words, and 2 to 16 lanes fill at least 30 of them. */
#define PACK_WORDS 32
#define PACKS_uint8_t 1
#define PACKS_uint16_t 1
#define PACKS_uint32_t 1
#define PACK_WORD_uint8_t uint32_t
#define PACK_WORD_uint16_t uint32_t
#define PACK_WORD_uint32_t uint64_t

/* In AVX2 (or the baseline), and in 512-bit vectors where the lanes have them: on this machine
 * float16 [B, 256, 7] 0.67 -> 0.80 of the limit, [B, 21, 16] 0.57 -> 0.65, uint8 within noise. */
#define PACKED_TARGET CLMAX_CPU_CLONES
#define PACKED_NAME(name) CLMAX_T_PASTE(packed_, name)
#define CLMAX_TEMPLATE "cpu_packed.inc"
#include "cpu_types.inc"
#undef CLMAX_TEMPLATE
#undef PACKED_TARGET
#undef PACKED_NAME
#if CLMAX_LANES_512
#define PACKED_TARGET LANES_512_TARGET
#define PACKED_NAME(name) CLMAX_T_PASTE(packed512_, name)
#define CLMAX_TEMPLATE "cpu_packed.inc"
#include "cpu_types.inc"
#define PACKED(name)                                                                               \
    return wide ? (min ? packed512_##name##_min : packed512_##name)                                \
                : (min ? packed_##name##_min : packed_##name)
#else
#define PACKED(name) return min ? packed_##name##_min : packed_##name
#endif

packed_fn clmax_cpu_packed(clmax_type t, int min, int wide)
{
    (void)wide;
    switch (t) {
    case CLMAX_TYPE_UINT8:
        PACKED(u8);
    case CLMAX_TYPE_INT8:
        PACKED(i8);
    case CLMAX_TYPE_UINT16:
        PACKED(u16);
    case CLMAX_TYPE_INT16:
        PACKED(i16);
    case CLMAX_TYPE_FLOAT16:
        PACKED(f16);
    case CLMAX_TYPE_BFLOAT16:
        PACKED(bf16);
    case CLMAX_TYPE_UINT32:
        PACKED(u32);
    case CLMAX_TYPE_INT32:
        PACKED(i32);
    case CLMAX_TYPE_FLOAT32:
        PACKED(f32);
    default:
        return NULL;
    }
#undef PACKED
}
