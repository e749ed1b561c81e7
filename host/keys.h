/* Ordered integer keys (DESIGN.md section 2): each element maps to an unsigned key whose unsigned
 * order is the contract's order. NaN is the largest key, -0 maps like +0, denormals keep their
 * order by value, signed integers flip the sign bit. kernels/keys.cl holds the same functions. */
#ifndef CLMAX_KEYS_H
#define CLMAX_KEYS_H

#include <stdint.h>

static inline uint16_t clmax_key_f16(uint16_t u)
{
    if ((u & 0x7FFFu) > 0x7C00u) return 0xFFFFu;
    if ((u & 0x7FFFu) == 0) u = 0;
    return (u & 0x8000u) ? (uint16_t)~u : (uint16_t)(u | 0x8000u);
}

static inline uint16_t clmax_key_bf16(uint16_t u)
{
    if ((u & 0x7FFFu) > 0x7F80u) return 0xFFFFu;
    if ((u & 0x7FFFu) == 0) u = 0;
    return (u & 0x8000u) ? (uint16_t)~u : (uint16_t)(u | 0x8000u);
}

static inline uint32_t clmax_key_f32(uint32_t u)
{
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0xFFFFFFFFu;
    if ((u & 0x7FFFFFFFu) == 0) u = 0;
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

static inline uint64_t clmax_key_f64(uint64_t u)
{
    if ((u & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull) return ~0ull;
    if ((u & 0x7FFFFFFFFFFFFFFFull) == 0) u = 0;
    return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
}

static inline uint8_t clmax_key_u8(uint8_t u)
{
    return u;
}
static inline uint8_t clmax_key_i8(uint8_t u)
{
    return (uint8_t)(u ^ 0x80u);
}
static inline uint16_t clmax_key_u16(uint16_t u)
{
    return u;
}
static inline uint16_t clmax_key_i16(uint16_t u)
{
    return (uint16_t)(u ^ 0x8000u);
}
static inline uint32_t clmax_key_u32(uint32_t u)
{
    return u;
}
static inline uint32_t clmax_key_i32(uint32_t u)
{
    return u ^ 0x80000000u;
}
static inline uint64_t clmax_key_u64(uint64_t u)
{
    return u;
}
static inline uint64_t clmax_key_i64(uint64_t u)
{
    return u ^ 0x8000000000000000ull;
}

#endif
