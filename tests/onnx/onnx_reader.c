#include "onnx_reader.h"

#include "onnx.pb-c.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t err_size, const char *fmt, ...)
{
    if (err && err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

size_t onnx_dtype_size(int32_t data_type)
{
    switch (data_type) {
    case ONNX_DT_UINT8:
    case ONNX_DT_INT8:
    case ONNX_DT_BOOL:
        return 1;
    case ONNX_DT_UINT16:
    case ONNX_DT_INT16:
    case ONNX_DT_FLOAT16:
    case ONNX_DT_BFLOAT16:
        return 2;
    case ONNX_DT_FLOAT:
    case ONNX_DT_INT32:
    case ONNX_DT_UINT32:
        return 4;
    case ONNX_DT_INT64:
    case ONNX_DT_DOUBLE:
    case ONNX_DT_UINT64:
        return 8;
    default:
        return 0;
    }
}

const char *onnx_dtype_name(int32_t data_type)
{
    switch (data_type) {
    case ONNX_DT_FLOAT:
        return "float";
    case ONNX_DT_UINT8:
        return "uint8";
    case ONNX_DT_INT8:
        return "int8";
    case ONNX_DT_UINT16:
        return "uint16";
    case ONNX_DT_INT16:
        return "int16";
    case ONNX_DT_INT32:
        return "int32";
    case ONNX_DT_INT64:
        return "int64";
    case ONNX_DT_BOOL:
        return "bool";
    case ONNX_DT_FLOAT16:
        return "float16";
    case ONNX_DT_DOUBLE:
        return "double";
    case ONNX_DT_UINT32:
        return "uint32";
    case ONNX_DT_UINT64:
        return "uint64";
    case ONNX_DT_BFLOAT16:
        return "bfloat16";
    default:
        return "unsupported";
    }
}

/* Read a whole file into a malloc'd buffer. */
static int read_file(const char *path, uint8_t **data, size_t *size, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;

    if (!f) return fail(err, err_size, "cannot open %s: %s", path, strerror(errno));
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 4096;
            uint8_t *nbuf = realloc(buf, ncap);
            if (!nbuf) {
                free(buf);
                fclose(f);
                return fail(err, err_size, "out of memory reading %s", path);
            }
            buf = nbuf;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        return fail(err, err_size, "error reading %s", path);
    }
    fclose(f);
    *data = buf;
    *size = len;
    return 0;
}

static void copy_str(char *dst, size_t dst_size, const char *src)
{
    snprintf(dst, dst_size, "%s", src ? src : "");
}

int onnx_read_model(const char *path, onnx_node_model *model, char *err, size_t err_size)
{
    uint8_t *buf = NULL;
    size_t size = 0;
    Onnx__ModelProto *m = NULL;
    int rc = -1;
    int found_opset = 0;

    memset(model, 0, sizeof *model);
    if (read_file(path, &buf, &size, err, err_size)) return -1;
    m = onnx__model_proto__unpack(NULL, size, buf);
    if (!m) {
        fail(err, err_size, "%s: not a valid ModelProto", path);
        goto done;
    }
    for (size_t k = 0; k < m->n_opset_import; k++) {
        const Onnx__OperatorSetIdProto *op = m->opset_import[k];
        const char *dom = op->domain ? op->domain : "";
        if (strcmp(dom, "") != 0 && strcmp(dom, "ai.onnx") != 0) continue;
        if (!op->has_version) {
            fail(err, err_size, "%s: default-domain opset_import without a version", path);
            goto done;
        }
        if (found_opset && op->version != model->opset) {
            fail(err, err_size, "%s: conflicting default-domain opset imports %lld and %lld", path,
                 (long long)model->opset, (long long)op->version);
            goto done;
        }
        model->opset = op->version;
        found_opset = 1;
    }
    if (!found_opset) {
        fail(err, err_size, "%s: no opset_import for the default domain", path);
        goto done;
    }
    if (!m->graph || m->graph->n_node != 1) {
        fail(err, err_size, "%s: expected a graph with exactly one node, found %zu", path,
             m->graph ? m->graph->n_node : (size_t)0);
        goto done;
    }
    const Onnx__NodeProto *node = m->graph->node[0];
    copy_str(model->op_type, sizeof model->op_type, node->op_type);
    copy_str(model->domain, sizeof model->domain, node->domain);
    model->num_inputs = (int)node->n_input;
    model->num_outputs = (int)node->n_output;
    if (node->n_attribute > ONNX_READER_MAX_ATTRS) {
        fail(err, err_size, "%s: too many attributes (%zu)", path, node->n_attribute);
        goto done;
    }
    for (size_t k = 0; k < node->n_attribute; k++) {
        const Onnx__AttributeProto *a = node->attribute[k];
        onnx_attr *out = &model->attrs[model->num_attrs++];
        copy_str(out->name, sizeof out->name, a->name);
        /* Old writers may leave type unset; an INT attribute is then recognised by has_i. */
        if ((a->has_type && a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT) ||
            (!a->has_type && a->has_i)) {
            out->is_int = 1;
            out->i = a->i;
        }
    }
    rc = 0;
done:
    if (m) onnx__model_proto__free_unpacked(m, NULL);
    free(buf);
    return rc;
}

const onnx_attr *onnx_model_attr(const onnx_node_model *model, const char *name)
{
    for (int k = 0; k < model->num_attrs; k++)
        if (strcmp(model->attrs[k].name, name) == 0) return &model->attrs[k];
    return NULL;
}

/* An unsigned little-endian integer of size bytes (1..8). */
static uint64_t load_le(const uint8_t *p, size_t size)
{
    uint64_t v = 0;
    for (size_t b = size; b-- > 0;)
        v = (v << 8) | p[b];
    return v;
}

/* Store the low size bytes of v at dst in host byte order. */
static void store_host(void *dst, uint64_t v, size_t size)
{
    switch (size) {
    case 1: {
        uint8_t x = (uint8_t)v;
        memcpy(dst, &x, 1);
        break;
    }
    case 2: {
        uint16_t x = (uint16_t)v;
        memcpy(dst, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = (uint32_t)v;
        memcpy(dst, &x, 4);
        break;
    }
    default:
        memcpy(dst, &v, 8);
        break;
    }
}

/* Copy a typed repeated field into the host buffer. The field to use per data type is fixed by
 * onnx.proto: float_data for FLOAT; int32_data for the small integers, BOOL, FLOAT16 and BFLOAT16
 * (the latter two as their bit patterns); int64_data for INT64; double_data for DOUBLE;
 * uint64_data for UINT32 and UINT64. */
static int copy_typed(const Onnx__TensorProto *t, const char *path, onnx_tensor *out, char *err,
                      size_t err_size)
{
    size_t n, es = onnx_dtype_size(out->data_type);
    uint8_t *dst = out->data;
    const char *field;

    switch (out->data_type) {
    case ONNX_DT_FLOAT:
        n = t->n_float_data;
        field = "float_data";
        break;
    case ONNX_DT_UINT8:
    case ONNX_DT_INT8:
    case ONNX_DT_UINT16:
    case ONNX_DT_INT16:
    case ONNX_DT_INT32:
    case ONNX_DT_BOOL:
    case ONNX_DT_FLOAT16:
    case ONNX_DT_BFLOAT16:
        n = t->n_int32_data;
        field = "int32_data";
        break;
    case ONNX_DT_INT64:
        n = t->n_int64_data;
        field = "int64_data";
        break;
    case ONNX_DT_DOUBLE:
        n = t->n_double_data;
        field = "double_data";
        break;
    default: /* UINT32, UINT64 */
        n = t->n_uint64_data;
        field = "uint64_data";
        break;
    }
    if ((uint64_t)n != out->count)
        return fail(err, err_size, "%s: %s has %zu values, the shape needs %llu", path, field, n,
                    (unsigned long long)out->count);
    for (size_t k = 0; k < n; k++, dst += es) {
        switch (out->data_type) {
        case ONNX_DT_FLOAT:
            memcpy(dst, &t->float_data[k], 4);
            break;
        case ONNX_DT_DOUBLE:
            memcpy(dst, &t->double_data[k], 8);
            break;
        case ONNX_DT_INT64:
            memcpy(dst, &t->int64_data[k], 8);
            break;
        case ONNX_DT_UINT32:
        case ONNX_DT_UINT64:
            store_host(dst, t->uint64_data[k], es);
            break;
        default:
            store_host(dst, (uint64_t)(uint32_t)t->int32_data[k], es);
            break;
        }
    }
    return 0;
}

int onnx_read_tensor(const char *path, onnx_tensor *tensor, char *err, size_t err_size)
{
    uint8_t *buf = NULL;
    size_t size = 0;
    Onnx__TensorProto *t = NULL;
    int rc = -1;

    memset(tensor, 0, sizeof *tensor);
    if (read_file(path, &buf, &size, err, err_size)) return -1;
    t = onnx__tensor_proto__unpack(NULL, size, buf);
    if (!t) {
        fail(err, err_size, "%s: not a valid TensorProto", path);
        goto done;
    }
    if (!t->has_data_type) {
        fail(err, err_size, "%s: tensor without data_type", path);
        goto done;
    }
    tensor->data_type = t->data_type;
    size_t es = onnx_dtype_size(t->data_type);
    if (es == 0) {
        fail(err, err_size, "%s: unsupported data_type %d", path, (int)t->data_type);
        goto done;
    }
    if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        fail(err, err_size, "%s: external data is not supported", path);
        goto done;
    }
    if (t->segment) {
        fail(err, err_size, "%s: segmented tensors are not supported", path);
        goto done;
    }
    if (t->n_dims > ONNX_READER_MAX_RANK) {
        fail(err, err_size, "%s: rank %zu too large", path, t->n_dims);
        goto done;
    }
    tensor->rank = (int)t->n_dims;
    tensor->count = 1;
    for (size_t k = 0; k < t->n_dims; k++) {
        if (t->dims[k] < 0) {
            fail(err, err_size, "%s: negative dimension %lld", path, (long long)t->dims[k]);
            goto done;
        }
        tensor->dims[k] = t->dims[k];
        uint64_t d = (uint64_t)t->dims[k];
        if (d != 0 && tensor->count > SIZE_MAX / es / d) {
            fail(err, err_size, "%s: tensor too large", path);
            goto done;
        }
        tensor->count *= d;
    }
    tensor->nbytes = (size_t)tensor->count * es;
    tensor->data = malloc(tensor->nbytes ? tensor->nbytes : 1);
    if (!tensor->data) {
        fail(err, err_size, "%s: out of memory", path);
        goto done;
    }
    if (t->has_raw_data) {
        if (t->raw_data.len != tensor->nbytes) {
            fail(err, err_size, "%s: raw_data has %zu bytes, the shape needs %zu", path,
                 t->raw_data.len, tensor->nbytes);
            goto done;
        }
        for (uint64_t k = 0; k < tensor->count; k++)
            store_host((uint8_t *)tensor->data + k * es, load_le(t->raw_data.data + k * es, es),
                       es);
        tensor->used_raw = 1;
    } else if (copy_typed(t, path, tensor, err, err_size)) {
        goto done;
    }
    rc = 0;
done:
    if (rc) onnx_tensor_free(tensor);
    if (t) onnx__tensor_proto__free_unpacked(t, NULL);
    free(buf);
    return rc;
}

void onnx_tensor_free(onnx_tensor *tensor)
{
    if (!tensor) return;
    free(tensor->data);
    tensor->data = NULL;
}
