/*
 * Fuzz harness: the clmax CLI's .npy reader (tools/cli/npy_read.c), then the operators on what
 * it accepts.
 *
 * The reader only opens paths, so each input is written to one memfd (a temporary file where
 * memfds are missing) and read back through /proc/self/fd, both as plain and as bfloat16 (--bf16).
 * A refusal must come with a message. An accepted file must describe itself consistently (type,
 * rank, dims, byte count, alignment), and its data must equal the file's bytes as the header
 * lays them out (converted to native byte order and C order where the reader says it converted).
 * Then ArgMax and Hardmax run on the CPU path over a few axes, opsets and attributes chosen from
 * a hash of the input, each checked against the scalar reference (fuzz_common.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int file_fd = -1;
static char file_path[4096];
static char tmp_path[4096]; /* set when a temporary file stands in for the memfd */

static void remove_tmp(void)
{
    if (tmp_path[0] != '\0') unlink(tmp_path);
}

static void open_file(void)
{
    file_fd = memfd_create("clmax-fuzz-npy", MFD_CLOEXEC);
    if (file_fd >= 0) {
        snprintf(file_path, sizeof file_path, "/proc/self/fd/%d", file_fd);
        if (access(file_path, R_OK) == 0) return;
        close(file_fd);
    }
    const char *dir = getenv("TMPDIR");
    snprintf(tmp_path, sizeof tmp_path, "%s/clmax-fuzz-npy-XXXXXX",
             dir != NULL && dir[0] != '\0' ? dir : "/tmp");
    file_fd = mkstemp(tmp_path);
    if (file_fd < 0) fuzz_fail("cannot create a temporary file: %s", strerror(errno));
    snprintf(file_path, sizeof file_path, "%s", tmp_path);
    atexit(remove_tmp);
}

static void write_file(const uint8_t *data, size_t size)
{
    if (file_fd < 0) open_file();
    if (ftruncate(file_fd, 0) != 0) fuzz_fail("ftruncate: %s", strerror(errno));
    for (size_t done = 0; done < size;) {
        ssize_t n = pwrite(file_fd, data + done, size - done, (off_t)done);
        if (n <= 0) fuzz_fail("pwrite: %s", strerror(errno));
        done += (size_t)n;
    }
}

static uint32_t hash_bytes(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    return h;
}

/* Whether the header (the bytes before the data) sets 'fortran_order' to True. The reader has
 * accepted it, so the key appears once, quoted, followed by optional spaces and a colon. */
static int header_says_fortran(const uint8_t *file, size_t header_end)
{
    static const char key[] = "fortran_order";
    const size_t klen = sizeof key - 1;

    for (size_t i = 0; i + klen + 1 < header_end; i++) {
        if (memcmp(file + i, key, klen) != 0 || (file[i + klen] != '\'' && file[i + klen] != '"'))
            continue;
        size_t j = i + klen + 1;
        while (j < header_end && (file[j] == ' ' || file[j] == '\t' || file[j] == '\n' ||
                                  file[j] == '\r' || file[j] == ':'))
            j++;
        return j + 4 <= header_end && memcmp(file + j, "True", 4) == 0;
    }
    return 0;
}

/* The accepted array must be what the file says: compare every element with the file's bytes,
 * through an independent index computation for Fortran order and byte swapping. */
static void check_accepted(const npy_input *in, const uint8_t *file, size_t size, int bf16)
{
    char buf[512];
    const clmax_tensor_desc *d = &in->desc;
    size_t es = clmax_type_size(d->type);

    if (in->data == NULL) fuzz_fail("accepted with data NULL");
    if (es == 0) fuzz_fail("accepted with type %d", (int)d->type);
    if ((d->type == CLMAX_TYPE_BFLOAT16) != (bf16 != 0))
        fuzz_fail("bf16=%d read type %s", bf16, clmax_type_name(d->type));
    if (d->rank < 0 || d->rank > CLMAX_MAX_RANK) fuzz_fail("accepted rank %d", d->rank);
    uint64_t count = fuzz_desc_elements(d);
    if (count == UINT64_MAX) fuzz_fail("accepted %s", fuzz_desc_str(d, buf, sizeof buf));
    if (count > UINT64_MAX / es || in->nbytes != count * es)
        fuzz_fail("%s holds %llu bytes", fuzz_desc_str(d, buf, sizeof buf),
                  (unsigned long long)in->nbytes);
    if (in->nbytes > size)
        fuzz_fail("%llu bytes of data in a %zu-byte file", (unsigned long long)in->nbytes, size);
    if (in->nbytes != 0 && (uintptr_t)in->data % es != 0)
        fuzz_fail("data at %p is not aligned for %zu-byte elements", in->data, es);
    if (memchr(in->descr, '\0', sizeof in->descr) == NULL) fuzz_fail("descr not terminated");

    /* The reader takes no trailing bytes, so the data is the end of the file. */
    const uint8_t *src = file + (size - (size_t)in->nbytes);
    int fortran = in->conversion != NULL && strstr(in->conversion, "Fortran") != NULL;
    int swap = in->conversion != NULL && strstr(in->conversion, "big-endian") != NULL;

    /* What the conversion should have been, from the header text itself: big-endian elements
     * of more than one byte ('V2' has no byte order), and Fortran order where it differs from C
     * order (two or more dims above 1). */
    int want_swap =
        npy_native_order() == '<' && in->descr[0] == '>' && es > 1 && in->descr[1] != 'V';
    int big = 0;
    for (int k = 0; k < d->rank; k++)
        big += d->dims[k] > 1;
    int want_fortran = big > 1 && header_says_fortran(file, size - (size_t)in->nbytes);
    if (swap != want_swap || fortran != want_fortran)
        fuzz_fail("%s '%s': the reader says \"%s\", expected swap %d, Fortran order %d",
                  fuzz_desc_str(d, buf, sizeof buf), in->descr,
                  in->conversion ? in->conversion : "(none)", want_swap, want_fortran);
    uint64_t index[CLMAX_MAX_RANK] = {0};
    const uint8_t *got = in->data;
    for (uint64_t e = 0; e < count; e++) {
        /* e is the C-order position of index[]; in Fortran order the first index varies fastest */
        uint64_t at = e;
        if (fortran) {
            at = 0;
            for (int k = d->rank - 1; k >= 0; k--)
                at = at * (uint64_t)d->dims[k] + index[k];
        }
        for (size_t b = 0; b < es; b++) {
            uint8_t want = src[at * es + (swap ? es - 1 - b : b)];
            if (got[e * es + b] != want)
                fuzz_fail("%s (%s, %s): element %llu byte %zu is %#x, the file says %#x",
                          fuzz_desc_str(d, buf, sizeof buf), in->descr,
                          in->conversion ? in->conversion : "mapped", (unsigned long long)e, b,
                          got[e * es + b], want);
        }
        for (int k = d->rank - 1; k >= 0; k--) {
            if (++index[k] < (uint64_t)d->dims[k]) break;
            index[k] = 0;
        }
    }
}

static int is_float(clmax_type t)
{
    return t == CLMAX_TYPE_FLOAT16 || t == CLMAX_TYPE_BFLOAT16 || t == CLMAX_TYPE_FLOAT32 ||
           t == CLMAX_TYPE_FLOAT64;
}

/* ArgMax and Hardmax over up to four axes, opsets and attributes picked by the hash h. */
static void run_ops(const npy_input *in, uint32_t h)
{
    static const int argmax_opsets[4] = {1, 11, 12, 13};
    static const int hardmax_opsets[3] = {1, 11, 13};
    const clmax_tensor_desc *d = &in->desc;
    clmax_context *ctx = fuzz_cpu_context((int)(h & 1));
    int r = d->rank;

    if (r < 1) {
        /* Rank 0 (shape ()) is refused by clmax: check the refusal path once. */
        fuzz_run_argmax(ctx, d, in->data, (size_t)in->nbytes, NULL);
        fuzz_run_argmin(ctx, d, in->data, (size_t)in->nbytes, NULL);
        if (is_float(d->type)) fuzz_run_hardmax(ctx, d, in->data, (size_t)in->nbytes, NULL);
        return;
    }
    int axes = r < 4 ? r : 4;
    for (int j = 0; j < axes; j++) {
        uint32_t g = h * 2654435761u + (uint32_t)j * 0x9E3779B9u;
        g ^= g >> 15;
        int k = r <= 4 ? j : (int)((g >> 3) % (uint32_t)r);

        clmax_argmax_attrs a;
        int opset = d->type == CLMAX_TYPE_BFLOAT16 ? 13 : argmax_opsets[(g >> 8) & 3];
        clmax_argmax_attrs_init(&a, opset);
        a.axis = (g >> 1) & 1 ? k - r : k;
        a.keepdims = (int)((g >> 2) & 1);
        a.select_last_index = opset >= 12 ? (int)((g >> 10) & 1) : 0;
        fuzz_run_argmax(ctx, d, in->data, (size_t)in->nbytes, &a);
        fuzz_run_argmin(ctx, d, in->data, (size_t)in->nbytes, &a);

        if (is_float(d->type)) {
            clmax_hardmax_attrs b;
            opset = d->type == CLMAX_TYPE_BFLOAT16 ? 13 : hardmax_opsets[((g >> 12) & 3) % 3];
            clmax_hardmax_attrs_init(&b, opset);
            b.axis = a.axis;
            fuzz_run_hardmax(ctx, d, in->data, (size_t)in->nbytes, &b);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_init("npy");
    fuzz_counters.inputs++;
    write_file(data, size);
    uint32_t h = hash_bytes(data, size);

    for (int bf16 = 0; bf16 < 2; bf16++) {
        npy_input in;
        char err[NPY_ERROR_SIZE];

        memset(err, 'X', sizeof err);
        if (npy_input_open(&in, file_path, bf16, err, sizeof err) != 0) {
            fuzz_counters.refused++;
            if (memchr(err, '\0', sizeof err) == NULL || err[0] == '\0')
                fuzz_fail("the reader refused the file without a message");
            npy_input_close(&in); /* documented safe on a failed open */
            continue;
        }
        fuzz_counters.accepted++;
        check_accepted(&in, data, size, bf16);
        if (fuzz_desc_elements(&in.desc) <= FUZZ_MAX_ELEMENTS)
            run_ops(&in, h);
        else
            fuzz_counters.too_large++;
        npy_input_close(&in);
        npy_input_close(&in); /* and on a closed one */
    }
    return 0;
}
