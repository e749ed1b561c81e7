/* NumPy .npy files for the clmax CLI: a memory-mapped reader and an atomic writer.
 *
 * Format: "\x93NUMPY", major and minor version bytes, a little-endian header length (2 bytes in
 * version 1.0, 4 in 2.0 and 3.0), then a Python dict literal with exactly the keys 'descr',
 * 'fortran_order' and 'shape', padded with spaces and ending in '\n', then the raw elements. */
#ifndef CLMAX_CLI_NPY_H
#define CLMAX_CLI_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "clmax.h"

/* Size of the error buffers the functions below fill. */
#define NPY_ERROR_SIZE 512

/* An input array, ready for clmax: native byte order, C order, aligned for its element type. */
typedef struct npy_input {
    clmax_tensor_desc desc; /* rank may be 0 (shape ()), which clmax itself refuses */
    char descr[64];         /* the 'descr' of the file, for messages */
    const void *data;       /* the elements; never NULL, even for an empty array */
    uint64_t nbytes;        /* bytes at data */
    const char *conversion; /* NULL when data points into the mapped file, else why it was copied */
    /* private */
    void *map;
    size_t map_len;
    void *owned;
} npy_input;

/* Open path and check it thoroughly before allocating anything: magic, version, header syntax and
 * keys, element type, shape, and that the data is exactly as long as the header says. The file is
 * memory-mapped; the data is copied only to convert it (big-endian, Fortran order, misaligned).
 * With bf16, a 2-byte unsigned or void ('V2') element is read as bfloat16 bits.
 * Returns 0, or -1 with a message (without the file name) in err. */
int npy_input_open(npy_input *in, const char *path, int bf16, char *err, size_t err_size);

/* Release what npy_input_open() acquired. Safe on a zeroed or already closed npy_input. */
void npy_input_close(npy_input *in);

/* An output array being written: a temporary file beside the destination, renamed into place by
 * npy_output_commit(), removed by npy_output_discard() (or by SIGINT, SIGTERM, SIGHUP). */
typedef struct npy_output {
    void *data; /* where the caller writes nbytes of elements; never NULL */
    uint64_t nbytes;
    /* private */
    char *path;
    char *tmp_path;
    int fd;
    void *map;
    size_t map_len;
    void *buffer;
} npy_output;

/* Create the temporary file for path with a version 1.0 header (2.0 if it would not fit) for
 * descr ("<i8", "<f4", ...) and shape dims[0..rank-1], padded so the data starts at a multiple of
 * 64 bytes, and reserve nbytes of data. Returns 0, or -1 with a message in err. */
int npy_output_create(npy_output *out, const char *path, const char *descr, int rank,
                      const int64_t *dims, uint64_t nbytes, char *err, size_t err_size);

/* Finish the data and rename the temporary file to the destination. On failure the temporary
 * file is removed and the destination untouched. Returns 0, or -1 with a message in err. */
int npy_output_commit(npy_output *out, char *err, size_t err_size);

/* Commit two outputs together, all or nothing: both are finished (written and closed) before
 * either is renamed into place; second is renamed first, and should first then fail to replace
 * its destination, second's old file is put back (kept meanwhile through a hard link) or, where
 * there was none, the new one removed. On failure both temporary files are removed, *failed
 * says which output was at fault (0 first, 1 second) and err why. Returns 0 or -1. */
int npy_output_commit_pair(npy_output *first, npy_output *second, int *failed, char *err,
                           size_t err_size);

/* Remove the temporary file; the destination is untouched. Safe after a failed create or commit. */
void npy_output_discard(npy_output *out);

/* The byte order character of this machine in a descr: '<' or '>'. */
char npy_native_order(void);

#endif /* CLMAX_CLI_NPY_H */
