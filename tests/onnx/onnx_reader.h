/*
 * A small reader for ONNX backend node tests: the one node of a model.onnx (op type, default-domain
 * opset, integer attributes) and TensorProto .pb files (type, shape, data in host byte order).
 * Built on the protobuf-c code generated from onnx.proto; independent of clmax.
 */
#ifndef CLMAX_ONNX_READER_H
#define CLMAX_ONNX_READER_H

#include <stddef.h>
#include <stdint.h>

#define ONNX_READER_MAX_RANK 32
#define ONNX_READER_MAX_ATTRS 16

/* TensorProto.DataType values the reader understands. */
enum {
    ONNX_DT_FLOAT = 1,
    ONNX_DT_UINT8 = 2,
    ONNX_DT_INT8 = 3,
    ONNX_DT_UINT16 = 4,
    ONNX_DT_INT16 = 5,
    ONNX_DT_INT32 = 6,
    ONNX_DT_INT64 = 7,
    ONNX_DT_BOOL = 9,
    ONNX_DT_FLOAT16 = 10,
    ONNX_DT_DOUBLE = 11,
    ONNX_DT_UINT32 = 12,
    ONNX_DT_UINT64 = 13,
    ONNX_DT_BFLOAT16 = 16
};

/* Size in bytes of one element of a TensorProto.DataType, 0 if the reader does not support it. */
size_t onnx_dtype_size(int32_t data_type);
/* Lower-case name of a TensorProto.DataType ("float", "int64", ...), or "unsupported". */
const char *onnx_dtype_name(int32_t data_type);

typedef struct onnx_attr {
    char name[64];
    int is_int; /* 1 for an INT attribute (value in i); other types are recorded but not read */
    int64_t i;
} onnx_attr;

typedef struct onnx_node_model {
    char op_type[64];
    char domain[64]; /* the node's domain; "" for the default domain */
    int64_t opset;   /* the opset_import version of the default domain ("" or "ai.onnx") */
    int num_inputs;  /* inputs of the node */
    int num_outputs; /* outputs of the node */
    int num_attrs;
    onnx_attr attrs[ONNX_READER_MAX_ATTRS];
} onnx_node_model;

/* A tensor with its data converted to host byte order (count * onnx_dtype_size(data_type) bytes).
 */
typedef struct onnx_tensor {
    int32_t data_type;
    int rank; /* 0 for a scalar */
    int64_t dims[ONNX_READER_MAX_RANK];
    uint64_t count; /* product of dims; 1 for a scalar */
    size_t nbytes;  /* count * element size */
    void *data;     /* malloc'd, at least one byte even when nbytes is 0 */
    int used_raw;   /* 1 when the data came from raw_data, 0 from a typed field */
} onnx_tensor;

/* Read a model with exactly one node. Returns 0 on success, -1 with a message in err on failure. */
int onnx_read_model(const char *path, onnx_node_model *model, char *err, size_t err_size);

/* The attribute named name, or NULL when the node does not have it. */
const onnx_attr *onnx_model_attr(const onnx_node_model *model, const char *name);

/* Read a serialized TensorProto. Returns 0 on success, -1 with a message in err on failure; on
 * success release the tensor with onnx_tensor_free(). */
int onnx_read_tensor(const char *path, onnx_tensor *tensor, char *err, size_t err_size);

void onnx_tensor_free(onnx_tensor *tensor);

#endif /* CLMAX_ONNX_READER_H */
