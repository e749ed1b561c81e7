/*
 * Checks of the TensorProto reader itself. The ONNX data sets store everything as raw_data, so the
 * typed fields (float_data, int32_data, ...) are exercised here with tensors packed by protobuf-c.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "onnx.pb-c.h"
#include "onnx_reader.h"

/* Pack t into a temporary file and read it back with the reader. */
static int roundtrip(const Onnx__TensorProto *t, onnx_tensor *out, char *err, size_t err_size)
{
    char path[] = "/tmp/clmax_onnx_reader_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0, "mkstemp failed");
    size_t n = onnx__tensor_proto__get_packed_size(t);
    uint8_t *buf = malloc(n ? n : 1);
    cr_assert(buf);
    onnx__tensor_proto__pack(t, buf);
    cr_assert(write(fd, buf, n) == (ssize_t)n, "short write");
    close(fd);
    free(buf);
    int rc = onnx_read_tensor(path, out, err, err_size);
    unlink(path);
    return rc;
}

static void check_ok(const Onnx__TensorProto *t, const void *want, size_t want_bytes, int raw)
{
    onnx_tensor out;
    char err[512];
    cr_assert_eq(roundtrip(t, &out, err, sizeof err), 0, "read failed: %s", err);
    cr_assert_eq(out.data_type, t->data_type);
    cr_assert_eq(out.rank, (int)t->n_dims);
    cr_assert_eq(out.nbytes, want_bytes, "nbytes %zu, want %zu", out.nbytes, want_bytes);
    cr_assert_eq(out.used_raw, raw);
    cr_assert(memcmp(out.data, want, want_bytes) == 0, "data differs (type %s)",
              onnx_dtype_name(t->data_type));
    onnx_tensor_free(&out);
}

static void check_error(const Onnx__TensorProto *t, const char *needle)
{
    onnx_tensor out;
    char err[512] = "";
    cr_assert_eq(roundtrip(t, &out, err, sizeof err), -1, "expected an error");
    cr_assert(strstr(err, needle) != NULL, "message '%s' lacks '%s'", err, needle);
}

static Onnx__TensorProto make(int32_t type, int64_t *dims, size_t rank)
{
    Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
    t.has_data_type = 1;
    t.data_type = type;
    t.n_dims = rank;
    t.dims = dims;
    return t;
}

Test(onnx_reader, float_data)
{
    int64_t dims[] = {2, 2};
    float v[] = {1.5f, -0.0f, 3.0e38f, -1.0e-45f};
    Onnx__TensorProto t = make(ONNX_DT_FLOAT, dims, 2);
    t.n_float_data = 4;
    t.float_data = v;
    check_ok(&t, v, sizeof v, 0);
}

Test(onnx_reader, int32_data_small_types)
{
    int64_t dims[] = {4};
    int32_t src[] = {-128, -1, 0, 127};
    Onnx__TensorProto t = make(ONNX_DT_INT8, dims, 1);
    t.n_int32_data = 4;
    t.int32_data = src;
    int8_t i8[] = {-128, -1, 0, 127};
    check_ok(&t, i8, sizeof i8, 0);

    int32_t usrc[] = {0, 1, 200, 255};
    uint8_t u8[] = {0, 1, 200, 255};
    t.data_type = ONNX_DT_UINT8;
    t.int32_data = usrc;
    check_ok(&t, u8, sizeof u8, 0);

    int32_t s16src[] = {-32768, -2, 5, 32767};
    int16_t s16[] = {-32768, -2, 5, 32767};
    t.data_type = ONNX_DT_INT16;
    t.int32_data = s16src;
    check_ok(&t, s16, sizeof s16, 0);

    /* float16 and bfloat16 travel in int32_data as their bit patterns. */
    int32_t hsrc[] = {0x3C00, 0x8000, 0x7E00, 0xFC00};
    uint16_t h[] = {0x3C00, 0x8000, 0x7E00, 0xFC00};
    t.data_type = ONNX_DT_FLOAT16;
    t.int32_data = hsrc;
    check_ok(&t, h, sizeof h, 0);
    t.data_type = ONNX_DT_BFLOAT16;
    check_ok(&t, h, sizeof h, 0);
    t.data_type = ONNX_DT_UINT16;
    check_ok(&t, h, sizeof h, 0);

    int32_t i32[] = {INT32_MIN, -1, 0, INT32_MAX};
    t.data_type = ONNX_DT_INT32;
    t.int32_data = i32;
    check_ok(&t, i32, sizeof i32, 0);
}

Test(onnx_reader, wide_fields)
{
    int64_t dims[] = {3};
    int64_t i64[] = {INT64_MIN, -1, INT64_MAX};
    Onnx__TensorProto t = make(ONNX_DT_INT64, dims, 1);
    t.n_int64_data = 3;
    t.int64_data = i64;
    check_ok(&t, i64, sizeof i64, 0);

    double f64[] = {-0.0, 4.9e-324, 1.0e308};
    t = make(ONNX_DT_DOUBLE, dims, 1);
    t.n_double_data = 3;
    t.double_data = f64;
    check_ok(&t, f64, sizeof f64, 0);

    uint64_t u64[] = {0, UINT64_C(0x8000000000000000), UINT64_MAX};
    t = make(ONNX_DT_UINT64, dims, 1);
    t.n_uint64_data = 3;
    t.uint64_data = u64;
    check_ok(&t, u64, sizeof u64, 0);

    uint64_t u32src[] = {0, 0x80000000u, 0xFFFFFFFFu};
    uint32_t u32[] = {0, 0x80000000u, 0xFFFFFFFFu};
    t = make(ONNX_DT_UINT32, dims, 1);
    t.n_uint64_data = 3;
    t.uint64_data = u32src;
    check_ok(&t, u32, sizeof u32, 0);
}

Test(onnx_reader, raw_data_is_little_endian)
{
    int64_t dims[] = {1, 2};
    uint8_t raw[] = {0x00, 0x00, 0x80, 0x3F, 0x01, 0x00, 0x00, 0xC0}; /* 1.0f, -2.0000002f */
    uint32_t want[] = {0x3F800000u, 0xC0000001u};
    Onnx__TensorProto t = make(ONNX_DT_FLOAT, dims, 2);
    t.has_raw_data = 1;
    t.raw_data.len = sizeof raw;
    t.raw_data.data = raw;
    check_ok(&t, want, sizeof want, 1);

    uint8_t raw16[] = {0x00, 0x3C, 0x01, 0x80};
    uint16_t want16[] = {0x3C00, 0x8001};
    t.data_type = ONNX_DT_FLOAT16;
    t.raw_data.len = sizeof raw16;
    t.raw_data.data = raw16;
    check_ok(&t, want16, sizeof want16, 1);
}

Test(onnx_reader, scalar_and_empty)
{
    int64_t one = 7;
    Onnx__TensorProto t = make(ONNX_DT_INT64, NULL, 0);
    t.n_int64_data = 1;
    t.int64_data = &one;
    check_ok(&t, &one, sizeof one, 0);

    int64_t dims[] = {2, 0, 3};
    t = make(ONNX_DT_FLOAT, dims, 3);
    check_ok(&t, "", 0, 0);
}

Test(onnx_reader, errors)
{
    int64_t dims[] = {3};
    float v[] = {1, 2};
    Onnx__TensorProto t = make(ONNX_DT_FLOAT, dims, 1);
    t.n_float_data = 2;
    t.float_data = v;
    check_error(&t, "float_data has 2 values");

    uint8_t raw[5] = {0};
    t = make(ONNX_DT_FLOAT, dims, 1);
    t.has_raw_data = 1;
    t.raw_data.len = sizeof raw;
    t.raw_data.data = raw;
    check_error(&t, "raw_data has 5 bytes");

    t = make(8 /* STRING */, dims, 1);
    check_error(&t, "unsupported data_type 8");

    char err[512] = "";
    onnx_tensor out;
    cr_assert_eq(onnx_read_tensor("/nonexistent/clmax.pb", &out, err, sizeof err), -1);
    cr_assert(strstr(err, "cannot open") != NULL, "%s", err);
}
