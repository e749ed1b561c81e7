/* Ordered integer keys (DESIGN.md section 2): each element maps to an unsigned key whose unsigned
 * order is the contract's order. NaN is the largest key, -0 maps like +0, denormals keep their
 * order by value, signed integers flip the sign bit. kernels/common.cl holds the same maps. */
#ifndef CLMAX_KEYS_H
#define CLMAX_KEYS_H

#include <stdint.h>

/* Branch- and select-free, so that loops over them vectorise (a chain of selects defeats GCC's
 * vectoriser): both zeros become +0; then sign set -> ~u, else u with the sign set; NaN -> all
 * ones. The NaN test compares |u| as signed (its sign bit is clear, so the order is the same):
 * AVX2 has a signed compare but no unsigned one, and GCC made the unsigned form a min, a compare
 * and a blend. One function a width, the infinity's bits an argument, so that a loop serving
 * float16 and bfloat16 alike (cpu_interleaved.c) keeps the same map. */
#define CLMAX_FLOAT_KEY_BITS(W, T, ST)                                                             \
    static inline T clmax_key_bits##W(T u, T inf)                                                  \
    {                                                                                              \
        const T sign = (T)((T)1 << (W - 1)), a = (T)(u & (T)(sign - 1));                           \
        const T v = (T)(u & (T)((T)0 - (T)(a != 0)));                                              \
        const T k = (T)(v ^ (T)((T)((ST)v >> (W - 1)) | sign));                                    \
        return (T)(k | (T)((T)0 - (T)((ST)a > (ST)inf)));                                          \
    }
CLMAX_FLOAT_KEY_BITS(16, uint16_t, int16_t)
CLMAX_FLOAT_KEY_BITS(32, uint32_t, int32_t)
CLMAX_FLOAT_KEY_BITS(64, uint64_t, int64_t)
#undef CLMAX_FLOAT_KEY_BITS

static inline uint16_t clmax_key_f16(uint16_t u)
{
    return clmax_key_bits16(u, 0x7C00u);
}

static inline uint16_t clmax_key_bf16(uint16_t u)
{
    return clmax_key_bits16(u, 0x7F80u);
}

static inline uint32_t clmax_key_f32(uint32_t u)
{
    return clmax_key_bits32(u, 0x7F800000u);
}

static inline uint64_t clmax_key_f64(uint64_t u)
{
    return clmax_key_bits64(u, 0x7FF0000000000000ull);
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
 * largest, so the first NaN still wins as in the ONNX reference. Branch-free like the above. */
#define CLMAX_MIN_FLOAT_KEY(T, k) ((T)(~(k) | (T)((T)0 - (T)((k) == (T) ~(T)0))))

static inline uint16_t clmax_mkey_f16(uint16_t u)
{
    return CLMAX_MIN_FLOAT_KEY(uint16_t, clmax_key_f16(u));
}
static inline uint16_t clmax_mkey_bf16(uint16_t u)
{
    return CLMAX_MIN_FLOAT_KEY(uint16_t, clmax_key_bf16(u));
}
static inline uint32_t clmax_mkey_f32(uint32_t u)
{
    return CLMAX_MIN_FLOAT_KEY(uint32_t, clmax_key_f32(u));
}
static inline uint64_t clmax_mkey_f64(uint64_t u)
{
    return CLMAX_MIN_FLOAT_KEY(uint64_t, clmax_key_f64(u));
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
