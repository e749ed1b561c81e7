/* Ordered integer keys (DESIGN.md section 2): each element maps to an unsigned key whose unsigned
 * order is the contract's order. NaN is the largest key, -0 maps like +0, denormals keep their
 * order by value, signed integers flip the sign bit. kernels/common.cl keeps the same order (its
 * float keys' values differ: no key of one side meets one of the other). */
#ifndef CLMAX_KEYS_H
#define CLMAX_KEYS_H

#include <stdint.h>

/* Float keys of W bits: the magnitude a, negated where the sign bit xor m is set (m: 0 for
 * ArgMax, all ones for ArgMin, whose order is the reverse), so that +0 and -0 are both 0; as
 * signed (skey) every NaN the largest ST, as unsigned (key) the sign bit flipped and every NaN all
 * ones. Branch- and select-free, so that loops over them vectorise (a chain of selects defeats
 * GCC's vectoriser): seven vector operations, where the map of the sign bit (u's ones flipped or
 * the sign set) took eight and ArgMin's reversal of it four more. The NaN test compares a as
 * signed (its sign bit is clear, so the order is the same): AVX2 has a signed compare but no
 * unsigned one. One function a width, the infinity's bits an argument, so that a loop serving
 * float16 and bfloat16 alike (cpu_interleaved.c) keeps the same map. */
#define CLMAX_FLOAT_KEY_BITS(W, T, ST)                                                             \
    static inline T clmax_key_neg##W(T u, T m)                                                     \
    {                                                                                              \
        const T a = (T)(u & (T)((T) ~(T)0 >> 1)), s = (T)((T)((ST)u >> (W - 1)) ^ m);              \
        return (T)((T)(a ^ s) - s);                                                                \
    }                                                                                              \
    static inline T clmax_key_nan##W(T u, T inf)                                                   \
    {                                                                                              \
        return (T)((T)0 - (T)((ST)(T)(u & (T)((T) ~(T)0 >> 1)) > (ST)inf));                        \
    }                                                                                              \
    static inline ST clmax_skey_bits##W(T u, T inf, T m)                                           \
    {                                                                                              \
        const T nan = clmax_key_nan##W(u, inf);                                                    \
        return (ST)((T)(clmax_key_neg##W(u, m) & (T)~nan) | (T)(nan & (T)((T) ~(T)0 >> 1)));       \
    }                                                                                              \
    static inline T clmax_key_bits##W(T u, T inf, T m)                                             \
    {                                                                                              \
        const T sign = (T)((T)1 << (W - 1));                                                       \
        return (T)((T)(clmax_key_neg##W(u, m) ^ sign) | clmax_key_nan##W(u, inf));                 \
    }                                                                                              \
    /* The inverse: the bits of the value whose key under m is k (not NaN's; either zero: +0) */   \
    static inline T clmax_key_value##W(T k, T m)                                                   \
    {                                                                                              \
        const T sign = (T)((T)1 << (W - 1));                                                       \
        const T neg = (T)((T)((T)(k ^ sign) ^ m) - m); /* ArgMax's negated magnitude */            \
        return (ST)neg >= 0 ? neg : (T)(sign | (T)((T)0 - neg));                                   \
    }
CLMAX_FLOAT_KEY_BITS(16, uint16_t, int16_t)
CLMAX_FLOAT_KEY_BITS(32, uint32_t, int32_t)
CLMAX_FLOAT_KEY_BITS(64, uint64_t, int64_t)
#undef CLMAX_FLOAT_KEY_BITS

static inline uint16_t clmax_key_f16(uint16_t u)
{
    return clmax_key_bits16(u, 0x7C00u, 0);
}

static inline uint16_t clmax_key_bf16(uint16_t u)
{
    return clmax_key_bits16(u, 0x7F80u, 0);
}

static inline uint32_t clmax_key_f32(uint32_t u)
{
    return clmax_key_bits32(u, 0x7F800000u, 0);
}

static inline uint64_t clmax_key_f64(uint64_t u)
{
    return clmax_key_bits64(u, 0x7FF0000000000000ull, 0);
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

/* ArgMin keys: the order reversed, except that NaN (the all-ones key of a float type) stays the
 * largest, so the first NaN still wins as in the ONNX reference. */

static inline uint16_t clmax_mkey_f16(uint16_t u)
{
    return clmax_key_bits16(u, 0x7C00u, (uint16_t) ~(uint16_t)0);
}
static inline uint16_t clmax_mkey_bf16(uint16_t u)
{
    return clmax_key_bits16(u, 0x7F80u, (uint16_t) ~(uint16_t)0);
}
static inline uint32_t clmax_mkey_f32(uint32_t u)
{
    return clmax_key_bits32(u, 0x7F800000u, (uint32_t) ~(uint32_t)0);
}
static inline uint64_t clmax_mkey_f64(uint64_t u)
{
    return clmax_key_bits64(u, 0x7FF0000000000000ull, (uint64_t) ~(uint64_t)0);
}
static inline uint8_t clmax_mkey_u8(uint8_t u)
{
    return (uint8_t)~u;
}
static inline uint8_t clmax_mkey_i8(uint8_t u)
{
    return (uint8_t)~clmax_key_i8(u);
}
static inline uint16_t clmax_mkey_u16(uint16_t u)
{
    return (uint16_t)~u;
}
static inline uint16_t clmax_mkey_i16(uint16_t u)
{
    return (uint16_t)~clmax_key_i16(u);
}
static inline uint32_t clmax_mkey_u32(uint32_t u)
{
    return ~u;
}
static inline uint32_t clmax_mkey_i32(uint32_t u)
{
    return ~clmax_key_i32(u);
}
static inline uint64_t clmax_mkey_u64(uint64_t u)
{
    return ~u;
}
static inline uint64_t clmax_mkey_i64(uint64_t u)
{
    return ~clmax_key_i64(u);
}

#endif
