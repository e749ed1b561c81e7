/*
 * clmax: exact ONNX ArgMax and Hardmax on OpenCL, with a CPU path.
 *
 * Every function that can fail returns a clmax_status; none ever exits or aborts the process.
 * When a call fails, clmax_last_error() gives a detailed message (the argument at fault, the
 * failing OpenCL call and its code, the program build log) for the calling thread.
 *
 * Tensors are dense and row-major (C order). Sizes are 64-bit throughout.
 */
#ifndef CLMAX_H
#define CLMAX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(CLMAX_BUILDING)
#define CLMAX_API __declspec(dllexport)
#elif defined(__GNUC__)
#define CLMAX_API __attribute__((visibility("default")))
#else
#define CLMAX_API
#endif

#define CLMAX_VERSION_MAJOR 0
#define CLMAX_VERSION_MINOR 1
#define CLMAX_VERSION_PATCH 0
#define CLMAX_VERSION_NUMBER                                                                       \
    (CLMAX_VERSION_MAJOR * 10000 + CLMAX_VERSION_MINOR * 100 + CLMAX_VERSION_PATCH)

/* The version of the library actually loaded: CLMAX_VERSION_NUMBER at the time it was built. */
CLMAX_API unsigned clmax_version_number(void);
/* The same as a string, "MAJOR.MINOR.PATCH". Static storage. */
CLMAX_API const char *clmax_version_string(void);

/* Status codes. Values are stable: they never change meaning between versions. */
typedef enum clmax_status {
    CLMAX_OK = 0,
    CLMAX_ERROR_INVALID_ARGUMENT = 1,  /* a NULL pointer where one is required, a bad option */
    CLMAX_ERROR_UNSUPPORTED_OPSET = 2, /* opset not among ArgMax 1/11/12/13, Hardmax 1/11/13 */
    CLMAX_ERROR_UNSUPPORTED_TYPE = 3,  /* element type not taken by this operator and opset */
    CLMAX_ERROR_INVALID_RANK = 4,      /* rank 0, negative, or above CLMAX_MAX_RANK */
    CLMAX_ERROR_INVALID_SHAPE = 5,     /* a negative dimension */
    CLMAX_ERROR_INVALID_AXIS = 6,      /* axis outside [-rank, rank-1] */
    CLMAX_ERROR_INVALID_ATTRIBUTE = 7, /* keepdims or select_last_index not 0/1, or not in opset */
    CLMAX_ERROR_EMPTY_AXIS = 8,        /* ArgMax over an axis of length 0 with a non-empty output */
    CLMAX_ERROR_SIZE_OVERFLOW = 9,     /* the product of the non-zero dims exceeds INT64_MAX */
    CLMAX_ERROR_OUT_OF_MEMORY = 10,    /* host or device memory could not be allocated */
    CLMAX_ERROR_NO_DEVICE = 11,        /* OpenCL requested but no usable platform or device */
    CLMAX_ERROR_OPENCL = 12,           /* an OpenCL call failed; clmax_last_error() names it */
    CLMAX_ERROR_BUILD = 13,            /* an OpenCL program failed to build; message has the log */
    CLMAX_ERROR_INTERNAL = 14,         /* a bug in clmax; please report it with the message */
    CLMAX_ERROR_INDEX_OVERFLOW = 15    /* int32 indices asked for an axis longer than 2^31 */
} clmax_status;

/* A short constant description of a status ("invalid axis", ...). Never NULL. */
CLMAX_API const char *clmax_status_string(clmax_status status);

/* The detailed message of the last failing clmax call made on this thread, or "" if none failed.
 * Valid until the next clmax call on this thread. Never NULL. */
CLMAX_API const char *clmax_last_error(void);

/* Element types. The values are those of ONNX TensorProto.DataType. */
typedef enum clmax_type {
    CLMAX_TYPE_FLOAT32 = 1,
    CLMAX_TYPE_UINT8 = 2,
    CLMAX_TYPE_INT8 = 3,
    CLMAX_TYPE_UINT16 = 4,
    CLMAX_TYPE_INT16 = 5,
    CLMAX_TYPE_INT32 = 6,
    CLMAX_TYPE_INT64 = 7,
    CLMAX_TYPE_FLOAT16 = 10,
    CLMAX_TYPE_FLOAT64 = 11,
    CLMAX_TYPE_UINT32 = 12,
    CLMAX_TYPE_UINT64 = 13,
    CLMAX_TYPE_BFLOAT16 = 16
} clmax_type;

/* Size of one element in bytes, or 0 for a value that is not a clmax_type. */
CLMAX_API size_t clmax_type_size(clmax_type type);
/* Lower-case name ("float32", "bfloat16", ...), or "unknown". Static storage. */
CLMAX_API const char *clmax_type_name(clmax_type type);

#define CLMAX_MAX_RANK 16

/* A dense row-major tensor: element type, rank and dimensions (dims[0] outermost). */
typedef struct clmax_tensor_desc {
    clmax_type type;
    int rank;                     /* 1 .. CLMAX_MAX_RANK for inputs; outputs may have rank 0 */
    int64_t dims[CLMAX_MAX_RANK]; /* each >= 0; entries at and beyond rank are ignored */
} clmax_tensor_desc;

/* Number of elements of a descriptor into *count. Fails on bad rank, negative dims or overflow. */
CLMAX_API clmax_status clmax_tensor_desc_count(const clmax_tensor_desc *desc, uint64_t *count);

/* ---- Attributes ---------------------------------------------------------------------------- */

/* ONNX ArgMax attributes. Fill with clmax_argmax_attrs_init() and change what you need. */
typedef struct clmax_argmax_attrs {
    int opset;             /* 1, 11, 12 or 13 */
    int64_t axis;          /* default 0; negative counts from the end (all opsets accept it) */
    int keepdims;          /* default 1: keep the reduced axis with length 1; 0 drops it */
    int select_last_index; /* default 0: ties go to the first index; 1: to the last (opset >= 12) */
} clmax_argmax_attrs;

/* ONNX Hardmax attributes. */
typedef struct clmax_hardmax_attrs {
    int opset;    /* 1, 11 or 13 */
    int64_t axis; /* default 1 for opsets 1 and 11 (input coerced to 2-D at axis), -1 for 13 */
} clmax_hardmax_attrs;

/* Set *attrs to the ONNX defaults of the given opset. Fails with CLMAX_ERROR_UNSUPPORTED_OPSET for
 * an opset that does not define the operator (attrs is then filled with the opset 13 defaults). */
CLMAX_API clmax_status clmax_argmax_attrs_init(clmax_argmax_attrs *attrs, int opset);
CLMAX_API clmax_status clmax_hardmax_attrs_init(clmax_hardmax_attrs *attrs, int opset);

/* Output-shape inference. Checks the input descriptor and the attributes exactly as the operator
 * would, then writes the output descriptor (ArgMax: int64; Hardmax: the input's type and shape).
 * attrs NULL means the opset 13 defaults. */
CLMAX_API clmax_status clmax_argmax_output_desc(const clmax_tensor_desc *input,
                                                const clmax_argmax_attrs *attrs,
                                                clmax_tensor_desc *output);
CLMAX_API clmax_status clmax_hardmax_output_desc(const clmax_tensor_desc *input,
                                                 const clmax_hardmax_attrs *attrs,
                                                 clmax_tensor_desc *output);

/* ---- Contexts ------------------------------------------------------------------------------ */

typedef enum clmax_backend {
    CLMAX_BACKEND_AUTO = 0,   /* OpenCL when a usable device exists, else the CPU path */
    CLMAX_BACKEND_OPENCL = 1, /* OpenCL only: fails with CLMAX_ERROR_NO_DEVICE when there is none */
    CLMAX_BACKEND_CPU = 2     /* the multi-threaded CPU path, no OpenCL at all */
} clmax_backend;

/* Forces one kernel strategy instead of the planner's choice (for tests and benchmarks). */
typedef enum clmax_strategy {
    CLMAX_STRATEGY_AUTO = 0,
    CLMAX_STRATEGY_ROWS = 1,    /* contiguous axis: one row per work-group or work-item */
    CLMAX_STRATEGY_STRIDED = 2, /* strided axis: work-items along the inner dimension */
    CLMAX_STRATEGY_SPLIT = 3    /* the axis split across work-groups, partials combined */
} clmax_strategy;

/* Options of a context. Fill with clmax_context_options_init(), then change what you need.
 *
 * Environment (read when the context is created):
 *   CLMAX_BACKEND=auto|opencl|cpu   used when backend is CLMAX_BACKEND_AUTO
 *   CLMAX_DEVICE=<index>|<text>     used when device is NULL: the index of a device in the order
 *                                   `clmax devices` lists them, or a case-insensitive substring of
 *                                   "<platform name> <device name>"
 *   CLMAX_MAX_CHUNK_BYTES=<n>       used when max_chunk_bytes is 0 (testing aid)
 *   CLMAX_STRATEGY=rows|strided|split  used when strategy is CLMAX_STRATEGY_AUTO (testing aid)
 *   CLMAX_PLAN=auto|cpu|gpu         plan the OpenCL work as for the device's real kind (auto, the
 *                                   default), a CPU device, or a discrete GPU whose chunks are
 *                                   copied rather than used in place (testing aid: runs either
 *                                   kind's kernels and tuning on any device; no option)
 *   CLMAX_AUTO_PATH=model|cpu|opencl  how an auto context with a device picks each host-pointer
 *                                   call's path: by its cost model (default: measured once per
 *                                   device, kept in the cache folder), or always the CPU path or
 *                                   always the device (testing aid; no option)
 *   CLMAX_CPU_AVX512=auto|off|full  the CPU path's lanes (strided axes) in 512-bit vectors where
 *                                   the CPU has AVX-512BW (auto, the default; a code that pays
 *                                   only on some such CPUs times itself once per process first),
 *                                   in 256-bit ones (off), or every 512-bit code untimed (full);
 *                                   off and full are testing aids with no option
 *   CLMAX_CACHE_DIR=<dir>|off       used when cache_dir is NULL: where built OpenCL programs
 *                                   are cached on disk (default $XDG_CACHE_HOME/clmax, else
 *                                   ~/.cache/clmax); off disables the cache
 *   CLMAX_CACHE_MAX_BYTES=<n>[K|M|G]  used when cache_max_bytes is 0: the cache folder's size
 *                                   limit (default 256M); least recently used entries go first
 *   CLMAX_CACHE_BINARIES=auto|always  which built programs the cache folder keeps: at
 *                                   once those of drivers that keep no builds of their own,
 *                                   else each once its builds have cost 2 s in all (auto, the
 *                                   default: whether a driver keeps builds is found once by
 *                                   timing a second build; PoCL does), or all at once (always;
 *                                   no option)
 *
 * The program cache trusts only a folder of the user's own that group and others cannot write
 * (else it is not used, and clmax_context_warnings() says why), and in it only regular files of
 * the user's own whose checksum and key match; anything else at an entry's name is rebuilt.
 */
typedef struct clmax_context_options {
    clmax_backend backend;    /* default CLMAX_BACKEND_AUTO */
    const char *device;       /* device selector as for CLMAX_DEVICE; NULL: environment, else the
                                 first GPU, else the first CPU or accelerator, else a device that
                                 claims several kinds (a simulator). Copied; need not outlive the
                                 call */
    int num_threads;          /* CPU path worker threads, also used for the host side of Hardmax;
                                 0 (default): one per online core. Started on first use, kept
                                 until clmax_context_destroy() */
    uint64_t max_chunk_bytes; /* largest device buffer clmax allocates; 0 (default): the device's
                                 CL_DEVICE_MAX_MEM_ALLOC_SIZE. Lower it to force chunking. */
    clmax_strategy strategy;  /* default CLMAX_STRATEGY_AUTO */
    int ignore_environment;   /* nonzero: do not read the CLMAX_* variables above */
    const char *cache_dir;    /* program cache folder, or "off"; NULL (default): CLMAX_CACHE_DIR,
                                 else the default above. Copied; need not outlive the call */
    uint64_t cache_max_bytes; /* program cache size limit; 0 (default): CLMAX_CACHE_MAX_BYTES,
                                 else 256 MiB */
} clmax_context_options;

typedef struct clmax_context clmax_context;

CLMAX_API void clmax_context_options_init(clmax_context_options *options);

/* Create a context. options NULL means the defaults. On success *ctx owns its OpenCL objects and
 * threads; release them with clmax_context_destroy(). In auto mode any failure to bring up OpenCL
 * (no platform, no device, a device that fails to initialise) falls back to the CPU path, and so
 * does a later operator call whose OpenCL work fails (build, allocation or enqueue failure): the
 * CPU path then gives the answer. With CLMAX_BACKEND_OPENCL such failures are returned. An auto
 * context with a device also sends each host-pointer call to the CPU path where its cost model
 * expects that faster (CLMAX_AUTO_PATH above; clmax_call_report.choice says why). */
CLMAX_API clmax_status clmax_context_create(const clmax_context_options *options,
                                            clmax_context **ctx);

/* Destroy a context and everything it owns. NULL is a no-op. Must not race other calls on ctx. */
CLMAX_API void clmax_context_destroy(clmax_context *ctx);

/* The backend a context runs on: CLMAX_BACKEND_OPENCL or CLMAX_BACKEND_CPU (never AUTO). */
CLMAX_API clmax_backend clmax_context_backend(const clmax_context *ctx);

/* A human-readable name of the device: "<platform> / <device>" for OpenCL, "CPU (N threads)" for
 * the CPU path. Owned by the context. */
CLMAX_API const char *clmax_context_device_name(const clmax_context *ctx);

/* What an operator call ran on (clmax_last_call_report()). */
typedef struct clmax_call_report {
    clmax_backend backend;        /* CLMAX_BACKEND_OPENCL: the OpenCL device computed the answer;
                                     CLMAX_BACKEND_CPU: the CPU path computed it, or part of it
                                     after a fallback; CLMAX_BACKEND_AUTO: nothing was computed
                                     (the call was refused, failed, or its output is empty) */
    const char *device;           /* the device that computed it, worded as
                                     clmax_context_device_name() words it; "" when nothing ran */
    clmax_status fallback_status; /* CLMAX_OK, or the OpenCL failure after which the CPU path of
                                     an auto context computed the answer */
    const char *fallback_message; /* that failure's message, as clmax_last_error() had it; "" */
    const char *choice;           /* in an auto context with a device, why the call went where it
                                     did (the cost model's two estimates, or CLMAX_AUTO_PATH); in
                                     any context with a device, an axis of one, answered by the
                                     CPU path without reading the input; "" elsewhere */
} clmax_call_report;

/* The report of the last operator call (clmax_argmax, clmax_argmin, clmax_max/min_with_indices,
 * clmax_hardmax and their clmax_enqueue_* forms) made on this thread: a context may be shared by
 * threads, so the report belongs to the thread's call, not to the context. Valid until the next
 * operator call on this thread. Never NULL. */
CLMAX_API const clmax_call_report *clmax_last_call_report(void);

/* What the context could not do as asked, one line each (ended by a newline), or "" when
 * nothing: an auto context that could not use OpenCL (and the failure), a program cache folder
 * that is not used (and why). Owned by the context. */
CLMAX_API const char *clmax_context_warnings(const clmax_context *ctx);

/* The operators of clmax_prebuild_options.operators, a mask (0: all of them). */
#define CLMAX_PREBUILD_ARGMAX 1u  /* ArgMax, and the maxima with their indices */
#define CLMAX_PREBUILD_ARGMIN 2u  /* ArgMin, the minima with their indices (ArgMax's programs) */
#define CLMAX_PREBUILD_HARDMAX 4u /* Hardmax (float types only) */

/* What clmax_context_prebuild() makes ready. Fill with clmax_prebuild_options_init() (every type
 * and operator, no progress), then change what you need. */
typedef struct clmax_prebuild_options {
    const clmax_type *types; /* the element types; NULL (with ntypes 0): every type */
    size_t ntypes;
    unsigned operators; /* CLMAX_PREBUILD_* bits; 0: every operator. A type an operator does not
                           take (Hardmax's integers) is left out for that operator. */
    /* Called after each program is ready, on the calling thread, with no lock of clmax held:
     * done of total, and whether that one was compiled now. NULL: not called. */
    void (*progress)(void *user, size_t done, size_t total, int compiled);
    void *user;
} clmax_prebuild_options;

/* What clmax_context_prebuild() did: programs = compiled + from_cache + in_context. */
typedef struct clmax_prebuild_report {
    size_t programs;   /* the programs now ready in the context */
    size_t compiled;   /* of them, built from source by this call (and kept in the program cache,
                          unless the driver keeps its own builds and they have cost little so
                          far: CLMAX_CACHE_BINARIES) */
    size_t from_cache; /* read back from the program cache (an earlier process built them) */
    size_t in_context; /* already in the context (an earlier call built or read them) */
} clmax_prebuild_report;

CLMAX_API void clmax_prebuild_options_init(clmax_prebuild_options *options);

/* Builds the OpenCL programs that the given operators use on the given types now (options NULL:
 * every type and operator), so that no operator call pays a build, and keeps them in the program
 * cache (clmax_context_options.cache_dir), so that later processes find them built: a warm-up for
 * images and CI. In an auto context with a device it also measures the cost model's profile if it
 * is not known yet, and waits for it (calls do not wait: until it is known they take the CPU path).
 * On the CPU path there is nothing to build: CLMAX_OK, and a report of zeros. report may be NULL.
 * Errors: CLMAX_ERROR_INVALID_ARGUMENT (ctx NULL, types NULL with ntypes > 0, unknown operator
 * bits), CLMAX_ERROR_UNSUPPORTED_TYPE (not a clmax_type), and a build's own. */
CLMAX_API clmax_status clmax_context_prebuild(clmax_context *ctx,
                                              const clmax_prebuild_options *options,
                                              clmax_prebuild_report *report);

/* ---- Operators on host memory -------------------------------------------------------------- */

/* ONNX ArgMax. input describes x (any ArgMax type); y receives the indices as int64, sized for the
 * descriptor clmax_argmax_output_desc() gives. attrs NULL means the opset 13 defaults.
 * x and y must not overlap. Blocking: the result is in y when the call returns. */
CLMAX_API clmax_status clmax_argmax(clmax_context *ctx, const clmax_tensor_desc *input,
                                    const void *x, const clmax_argmax_attrs *attrs, int64_t *y);

/* ONNX ArgMin (opsets 1, 11, 12, 13): as ArgMax, with the same types, attributes, defaults and
 * output, but the minimum wins. NaN still wins, as in the ONNX reference (numpy's argmin returns
 * the first NaN): the first NaN, or the last with select_last_index. Ties go to the first index
 * (last with select_last_index). Output shape: clmax_argmax_output_desc(). */
CLMAX_API clmax_status clmax_argmin(clmax_context *ctx, const clmax_tensor_desc *input,
                                    const void *x, const clmax_argmax_attrs *attrs, int64_t *y);

/* The maximum (or minimum) values along the axis and their indices in one pass, as torch.max(x,
 * dim) returns them. Every ArgMax type; attrs as for ArgMax (axis, keepdims, select_last_index;
 * NULL means the opset 13 defaults). indices is exactly what clmax_argmax (clmax_argmin) gives;
 * values has the input's element type and the same shape as indices, and holds the bits of the
 * winning element (a row with a NaN gives that NaN, with its index). */
CLMAX_API clmax_status clmax_max_with_indices(clmax_context *ctx, const clmax_tensor_desc *input,
                                              const void *x, const clmax_argmax_attrs *attrs,
                                              void *values, int64_t *indices);
CLMAX_API clmax_status clmax_min_with_indices(clmax_context *ctx, const clmax_tensor_desc *input,
                                              const void *x, const clmax_argmax_attrs *attrs,
                                              void *values, int64_t *indices);

/* ONNX Hardmax. y has the shape and type of x and receives a one-hot along the axis (1 at the
 * first maximum, 0 elsewhere). attrs NULL means the opset 13 defaults. x and y must not overlap. */
CLMAX_API clmax_status clmax_hardmax(clmax_context *ctx, const clmax_tensor_desc *input,
                                     const void *x, const clmax_hardmax_attrs *attrs, void *y);

#ifdef __cplusplus
}
#endif

#endif /* CLMAX_H */
