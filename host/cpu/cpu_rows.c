/* Contiguous rows (inner == 1) of every type, from cpu_rows.inc: row_* (a row, or a segment of
 * one, in blocks of ROW_BLOCK: the max key of a block, then the position of that key) and
 * short_rows_* (whole rows of at most ROW_BLOCK elements, a group at a time). */
#include "cpu_block.h"
#include "cpu_kernels.h"
#include "keys.h"

/* Rows of up to ROW_BLOCK elements keep the max of chunks of 256 bytes, at least SEARCH_CHUNK
 * elements, and search the chunk that holds the row's max; one-byte rows keep one max a row (a
 * chunk's max is a horizontal reduction, and 256-byte chunks lost a fifth of their speed). */
#define MAX_CHUNK(T)                                                                               \
    (sizeof(T) == 1                         ? ROW_BLOCK                                            \
     : 256 / sizeof(T) > CLMAX_SEARCH_CHUNK ? 256 / sizeof(T)                                      \
                                            : CLMAX_SEARCH_CHUNK)

CLMAX_BLOCK_INT(u8, uint8_t, clmax_key_u8)
CLMAX_BLOCK_INT(i8, uint8_t, clmax_key_i8)
CLMAX_BLOCK_INT(u16, uint16_t, clmax_key_u16)
CLMAX_BLOCK_INT(i16, uint16_t, clmax_key_i16)
CLMAX_BLOCK_INT(u32, uint32_t, clmax_key_u32)
CLMAX_BLOCK_INT(i32, uint32_t, clmax_key_i32)
CLMAX_BLOCK_INT(u64, uint64_t, clmax_key_u64)
CLMAX_BLOCK_INT(i64, uint64_t, clmax_key_i64)
CLMAX_BLOCK_INT(u8_min, uint8_t, clmax_mkey_u8)
CLMAX_BLOCK_INT(i8_min, uint8_t, clmax_mkey_i8)
CLMAX_BLOCK_INT(u16_min, uint16_t, clmax_mkey_u16)
CLMAX_BLOCK_INT(i16_min, uint16_t, clmax_mkey_i16)
CLMAX_BLOCK_INT(u32_min, uint32_t, clmax_mkey_u32)
CLMAX_BLOCK_INT(i32_min, uint32_t, clmax_mkey_i32)
CLMAX_BLOCK_INT(u64_min, uint64_t, clmax_mkey_u64)
CLMAX_BLOCK_INT(i64_min, uint64_t, clmax_mkey_i64)
CLMAX_BLOCK_FLOAT(f16, 16, uint16_t, int16_t, 0x8000u, 0x7C00u, clmax_key_f16, 0)
CLMAX_BLOCK_FLOAT(bf16, 16, uint16_t, int16_t, 0x8000u, 0x7F80u, clmax_key_bf16, 0)
CLMAX_BLOCK_FLOAT(f32, 32, uint32_t, int32_t, 0x80000000u, 0x7F800000u, clmax_key_f32, 0)
CLMAX_BLOCK_FLOAT(f64, 64, uint64_t, int64_t, 0x8000000000000000ull, 0x7FF0000000000000ull,
                  clmax_key_f64, 0)
CLMAX_BLOCK_FLOAT(f16_min, 16, uint16_t, int16_t, 0x8000u, 0x7C00u, clmax_mkey_f16, 1)
CLMAX_BLOCK_FLOAT(bf16_min, 16, uint16_t, int16_t, 0x8000u, 0x7F80u, clmax_mkey_bf16, 1)
CLMAX_BLOCK_FLOAT(f32_min, 32, uint32_t, int32_t, 0x80000000u, 0x7F800000u, clmax_mkey_f32, 1)
CLMAX_BLOCK_FLOAT(f64_min, 64, uint64_t, int64_t, 0x8000000000000000ull, 0x7FF0000000000000ull,
                  clmax_mkey_f64, 1)

CLMAX_FIND_INT(u8, uint8_t, clmax_key_u8)
CLMAX_FIND_INT(u8_min, uint8_t, clmax_mkey_u8)
CLMAX_FIND_INT(i8, uint8_t, clmax_key_i8)
CLMAX_FIND_INT(i8_min, uint8_t, clmax_mkey_i8)
CLMAX_FIND_INT(u16, uint16_t, clmax_key_u16)
CLMAX_FIND_INT(u16_min, uint16_t, clmax_mkey_u16)
CLMAX_FIND_INT(i16, uint16_t, clmax_key_i16)
CLMAX_FIND_INT(i16_min, uint16_t, clmax_mkey_i16)
CLMAX_FIND_INT(u32, uint32_t, clmax_key_u32)
CLMAX_FIND_INT(u32_min, uint32_t, clmax_mkey_u32)
CLMAX_FIND_INT(i32, uint32_t, clmax_key_i32)
CLMAX_FIND_INT(i32_min, uint32_t, clmax_mkey_i32)
CLMAX_FIND_INT(u64, uint64_t, clmax_key_u64)
CLMAX_FIND_INT(u64_min, uint64_t, clmax_mkey_u64)
CLMAX_FIND_INT(i64, uint64_t, clmax_key_i64)
CLMAX_FIND_INT(i64_min, uint64_t, clmax_mkey_i64)
CLMAX_FIND_FLOAT(f16, 16, uint16_t, 0x8000u, 0x7C00u, 0)
CLMAX_FIND_FLOAT(f16_min, 16, uint16_t, 0x8000u, 0x7C00u, 1)
CLMAX_FIND_FLOAT(bf16, 16, uint16_t, 0x8000u, 0x7F80u, 0)
CLMAX_FIND_FLOAT(bf16_min, 16, uint16_t, 0x8000u, 0x7F80u, 1)
CLMAX_FIND_FLOAT(f32, 32, uint32_t, 0x80000000u, 0x7F800000u, 0)
CLMAX_FIND_FLOAT(f32_min, 32, uint32_t, 0x80000000u, 0x7F800000u, 1)
CLMAX_FIND_FLOAT(f64, 64, uint64_t, 0x8000000000000000ull, 0x7FF0000000000000ull, 0)
CLMAX_FIND_FLOAT(f64_min, 64, uint64_t, 0x8000000000000000ull, 0x7FF0000000000000ull, 1)

#define CLMAX_TEMPLATE "cpu_rows.inc"
#include "cpu_types.inc"
