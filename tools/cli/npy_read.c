/* Reading .npy files: a strict header parser, then the data memory-mapped in place (or converted to
 * native byte order and C order when the file has another). Every check runs before anything is
 * allocated, so a malformed or hostile file costs nothing but a message. */
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6

/* What the header dict says. */
typedef struct npy_header {
    char descr[64];
    size_t descr_len;
    int fortran_order;
    int rank; /* may exceed CLMAX_MAX_RANK: only the first CLMAX_MAX_RANK dims are stored */
    int64_t dims[CLMAX_MAX_RANK];
    int have_descr, have_fortran_order, have_shape;
} npy_header;

typedef struct cursor {
    const unsigned char *p, *end;
} cursor;

static int fail(char *err, size_t err_size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int fail(char *err, size_t err_size, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return -1;
}

char npy_native_order(void)
{
    const uint16_t one = 1;
    unsigned char first;

    memcpy(&first, &one, 1);
    return first ? '<' : '>';
}

/* ---- The header dict ----------------------------------------------------------------------- */

static void skip_space(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int peek(const cursor *c)
{
    return c->p < c->end ? *c->p : -1;
}

/* A quoted string (either quote) into buf, NUL-terminated; *len gets its full length even when
 * only the first size - 1 bytes fit. */
static int parse_string(cursor *c, char *buf, size_t size, size_t *len, char *err, size_t err_size)
{
    int quote = peek(c);
    size_t n = 0;

    if (quote != '\'' && quote != '"')
        return fail(err, err_size, "malformed header: expected a string");
    c->p++;
    for (;;) {
        int ch = peek(c);
        if (ch < 0 || ch == '\n')
            return fail(err, err_size, "malformed header: unterminated string");
        if (ch == '\\')
            return fail(err, err_size, "malformed header: escape sequences are not supported");
        /* Python refuses a NUL in source text, and a NUL here would cut the string short
         * when it is compared as a C string ('fortran_order\0x' must not match). */
        if (ch == 0) return fail(err, err_size, "malformed header: NUL byte inside a string");
        c->p++;
        if (ch == quote) break;
        if (n + 1 < size) buf[n] = (char)ch;
        n++;
    }
    buf[n + 1 < size ? n : size - 1] = '\0';
    *len = n;
    return 0;
}

static int is_word_char(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_';
}

static int parse_bool(cursor *c, int *value, char *err, size_t err_size)
{
    const unsigned char *start = c->p;
    size_t len;

    while (c->p < c->end && is_word_char(*c->p))
        c->p++;
    len = (size_t)(c->p - start);
    if (len == 4 && memcmp(start, "True", 4) == 0)
        *value = 1;
    else if (len == 5 && memcmp(start, "False", 5) == 0)
        *value = 0;
    else
        return fail(err, err_size, "malformed header: 'fortran_order' is not True or False");
    return 0;
}

/* A non-negative decimal dimension (Python 2 files may add an 'L'). */
static int parse_dim(cursor *c, int64_t *value, char *err, size_t err_size)
{
    uint64_t v = 0;
    int negative = 0, digits = 0;

    if (peek(c) == '-') {
        negative = 1;
        c->p++;
        skip_space(c);
    }
    while (peek(c) >= '0' && peek(c) <= '9') {
        unsigned d = (unsigned)(*c->p - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10) {
            return fail(err, err_size,
                        "malformed header: a dimension in 'shape' does not fit in 64 bits");
        }
        v = v * 10 + d;
        digits++;
        c->p++;
    }
    if (digits == 0)
        return fail(err, err_size, "malformed header: 'shape' is not a tuple of integers");
    if (peek(c) == 'L' || peek(c) == 'l') c->p++;
    if (is_word_char(peek(c)))
        return fail(err, err_size, "malformed header: 'shape' is not a tuple of integers");
    if (negative && v != 0)
        return fail(err, err_size, "malformed header: negative dimension -%llu in 'shape'",
                    (unsigned long long)v);
    *value = (int64_t)v;
    return 0;
}

static int parse_shape(cursor *c, npy_header *h, char *err, size_t err_size)
{
    int commas = 0;

    if (peek(c) != '(') return fail(err, err_size, "malformed header: 'shape' is not a tuple");
    c->p++;
    h->rank = 0;
    skip_space(c);
    while (peek(c) != ')') {
        int64_t dim = 0;
        if (parse_dim(c, &dim, err, err_size) != 0) return -1;
        if (h->rank < CLMAX_MAX_RANK) h->dims[h->rank] = dim;
        if (h->rank == INT32_MAX) return fail(err, err_size, "malformed header: 'shape' too long");
        h->rank++;
        skip_space(c);
        if (peek(c) == ',') {
            commas++;
            c->p++;
            skip_space(c);
        } else if (peek(c) != ')') {
            return fail(err, err_size, "malformed header: 'shape' is not a tuple of integers");
        }
    }
    c->p++;
    /* "(4)" is the integer 4 in Python, not a tuple. */
    if (h->rank == 1 && commas == 0)
        return fail(err, err_size, "malformed header: 'shape' is not a tuple");
    return 0;
}

static int parse_header(const unsigned char *text, size_t len, npy_header *h, char *err,
                        size_t err_size)
{
    cursor c = {text, text + len};

    memset(h, 0, sizeof *h);
    skip_space(&c);
    if (peek(&c) != '{') return fail(err, err_size, "malformed header: not a dictionary");
    c.p++;
    for (;;) {
        char key[32];
        size_t key_len;
        int *seen;

        skip_space(&c);
        if (peek(&c) == '}') break;
        if (parse_string(&c, key, sizeof key, &key_len, err, err_size) != 0) return -1;
        if (strcmp(key, "descr") == 0)
            seen = &h->have_descr;
        else if (strcmp(key, "fortran_order") == 0)
            seen = &h->have_fortran_order;
        else if (strcmp(key, "shape") == 0)
            seen = &h->have_shape;
        else
            return fail(err, err_size, "malformed header: unexpected key '%s%s'", key,
                        key_len >= sizeof key ? "..." : "");
        if (*seen) return fail(err, err_size, "malformed header: key '%s' appears twice", key);
        *seen = 1;
        skip_space(&c);
        if (peek(&c) != ':')
            return fail(err, err_size, "malformed header: expected ':' after '%s'", key);
        c.p++;
        skip_space(&c);
        if (seen == &h->have_descr) {
            if (peek(&c) == '[')
                return fail(err, err_size,
                            "unsupported element type: structured (record) arrays are not "
                            "supported");
            if (peek(&c) != '\'' && peek(&c) != '"')
                return fail(err, err_size, "malformed header: 'descr' is not a string");
            if (parse_string(&c, h->descr, sizeof h->descr, &h->descr_len, err, err_size) != 0)
                return -1;
        } else if (seen == &h->have_fortran_order) {
            if (parse_bool(&c, &h->fortran_order, err, err_size) != 0) return -1;
        } else {
            if (parse_shape(&c, h, err, err_size) != 0) return -1;
        }
        skip_space(&c);
        if (peek(&c) == ',') {
            c.p++;
        } else if (peek(&c) != '}') {
            return fail(err, err_size, "malformed header: expected ',' or '}' after '%s'", key);
        }
    }
    c.p++;
    skip_space(&c);
    if (c.p != c.end)
        return fail(err, err_size, "malformed header: unexpected text after the dictionary");
    if (!h->have_descr) return fail(err, err_size, "malformed header: no 'descr' key");
    if (!h->have_fortran_order)
        return fail(err, err_size, "malformed header: no 'fortran_order' key");
    if (!h->have_shape) return fail(err, err_size, "malformed header: no 'shape' key");
    return 0;
}

/* ---- Element types ------------------------------------------------------------------------- */

static const char *kind_name(char kind)
{
    switch (kind) {
    case 'b':
        return "bool";
    case 'c':
        return "complex";
    case 'O':
        return "Python object";
    case 'S':
    case 'a':
        return "byte string";
    case 'U':
        return "unicode string";
    case 'M':
        return "datetime64";
    case 'm':
        return "timedelta64";
    case 'V':
        return "raw bytes";
    case 'f':
        return "floating point";
    case 'i':
        return "signed integer";
    case 'u':
        return "unsigned integer";
    default:
        return NULL;
    }
}

/* The clmax type of descr, and whether its bytes need swapping to native order. */
static int resolve_type(const char *descr, size_t descr_len, int bf16, clmax_type *type, int *swap,
                        char *err, size_t err_size)
{
    static const char *const takes = "clmax takes f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8, and u2 or V2 "
                                     "as bfloat16 with --bf16";
    const char *p = descr;
    char order = '|', kind;
    unsigned size = 0;
    const char *name;

    if (descr_len >= 64) return fail(err, err_size, "unsupported element type '%.40s...'", descr);
    if (*p == '<' || *p == '>' || *p == '|' || *p == '=') order = *p++;
    kind = *p;
    if (kind != '\0') p++;
    while (*p >= '0' && *p <= '9' && size < 1000)
        size = size * 10 + (unsigned)(*p++ - '0');
    name = kind_name(kind);
    if (name == NULL || (*p != '\0' && kind != 'M' && kind != 'm'))
        return fail(err, err_size, "unrecognised element type '%s'", descr);

    *swap = 0;
    if (bf16) {
        if ((kind == 'u' || kind == 'V') && size == 2 && *p == '\0') {
            *type = CLMAX_TYPE_BFLOAT16;
            /* V2 has no byte order of its own: its bits are little-endian like every bfloat16 file.
             */
            *swap = (order == '<' || kind == 'V') ? npy_native_order() != '<'
                                                  : order == '>' && npy_native_order() != '>';
            return 0;
        }
        return fail(err, err_size, "--bf16 needs 2-byte elements ('<u2' or '|V2'), not '%s' (%s)",
                    descr, name);
    }
    if (kind == 'V' && size == 2 && *p == '\0')
        return fail(err, err_size,
                    "element type '%s' (raw 2-byte values): use --bf16 to read it as bfloat16",
                    descr);
    *type = 0;
    if (kind == 'f' && size == 2) *type = CLMAX_TYPE_FLOAT16;
    if (kind == 'f' && size == 4) *type = CLMAX_TYPE_FLOAT32;
    if (kind == 'f' && size == 8) *type = CLMAX_TYPE_FLOAT64;
    if (kind == 'i' && size == 1) *type = CLMAX_TYPE_INT8;
    if (kind == 'i' && size == 2) *type = CLMAX_TYPE_INT16;
    if (kind == 'i' && size == 4) *type = CLMAX_TYPE_INT32;
    if (kind == 'i' && size == 8) *type = CLMAX_TYPE_INT64;
    if (kind == 'u' && size == 1) *type = CLMAX_TYPE_UINT8;
    if (kind == 'u' && size == 2) *type = CLMAX_TYPE_UINT16;
    if (kind == 'u' && size == 4) *type = CLMAX_TYPE_UINT32;
    if (kind == 'u' && size == 8) *type = CLMAX_TYPE_UINT64;
    if (*type == 0)
        return fail(err, err_size, "unsupported element type '%s' (%s); %s", descr, name, takes);
    if (size > 1 && order != '|' && order != '=') *swap = order != npy_native_order();
    return 0;
}

/* ---- Conversion to native byte order and C order ------------------------------------------- */

static void copy_element(unsigned char *dst, const unsigned char *src, size_t size, int swap)
{
    switch (size) {
    case 1:
        *dst = *src;
        return;
    case 2:
        memcpy(dst, src, 2);
        break;
    case 4:
        memcpy(dst, src, 4);
        break;
    case 8:
        memcpy(dst, src, 8);
        break;
    default:
        memcpy(dst, src, size);
        break;
    }
    if (swap) {
        for (size_t b = 0; b < size / 2; b++) {
            unsigned char t = dst[b];
            dst[b] = dst[size - 1 - b];
            dst[size - 1 - b] = t;
        }
    }
}

/* dst (C order) from src holding the same array in Fortran order, where element (i0, ..., ir-1)
 * lives at i0 + d0 * (i1 + d1 * (...)). For each value of the middle indices i1..ir-2 this is
 * the transpose of a d0 x dr-1 matrix, done in square tiles so that both sides stay in cache. */
static void transpose_fortran(unsigned char *dst, const unsigned char *src, const npy_header *h,
                              uint64_t count, size_t size, int swap)
{
    enum { TILE = 32 };
    uint64_t fstride[CLMAX_MAX_RANK], cstride[CLMAX_MAX_RANK], index[CLMAX_MAX_RANK] = {0};
    int r = h->rank;
    uint64_t rows = (uint64_t)h->dims[0], cols = (uint64_t)h->dims[r - 1];
    uint64_t src_base = 0, dst_base = 0;

    if (count == 0) return;
    for (int k = 0; k < r; k++)
        fstride[k] = k == 0 ? 1 : fstride[k - 1] * (uint64_t)h->dims[k - 1];
    for (int k = r - 1; k >= 0; k--)
        cstride[k] = k == r - 1 ? 1 : cstride[k + 1] * (uint64_t)h->dims[k + 1];
    for (;;) {
        for (uint64_t a0 = 0; a0 < rows; a0 += TILE) {
            uint64_t a1 = a0 + TILE < rows ? a0 + TILE : rows;
            for (uint64_t b0 = 0; b0 < cols; b0 += TILE) {
                uint64_t b1 = b0 + TILE < cols ? b0 + TILE : cols;
                for (uint64_t a = a0; a < a1; a++) {
                    for (uint64_t b = b0; b < b1; b++) {
                        copy_element(dst + (dst_base + a * cstride[0] + b) * size,
                                     src + (src_base + a + b * fstride[r - 1]) * size, size, swap);
                    }
                }
            }
        }
        /* Next value of the middle indices. */
        int k = r - 2;
        for (; k >= 1; k--) {
            index[k]++;
            src_base += fstride[k];
            dst_base += cstride[k];
            if (index[k] < (uint64_t)h->dims[k]) break;
            src_base -= fstride[k] * (uint64_t)h->dims[k];
            dst_base -= cstride[k] * (uint64_t)h->dims[k];
            index[k] = 0;
        }
        if (k < 1) break;
    }
}

/* Whether Fortran order differs from C order: only when two or more dimensions exceed 1. */
static int fortran_matters(const npy_header *h)
{
    int big = 0;

    for (int k = 0; k < h->rank; k++)
        big += h->dims[k] > 1;
    return big > 1;
}

/* ---- The file ------------------------------------------------------------------------------ */

void npy_input_close(npy_input *in)
{
    if (in->map != NULL) munmap(in->map, in->map_len);
    free(in->owned);
    in->map = NULL;
    in->owned = NULL;
    in->data = NULL;
}

int npy_input_open(npy_input *in, const char *path, int bf16, char *err, size_t err_size)
{
    static const unsigned char empty[8];
    struct stat st;
    const unsigned char *bytes;
    size_t size, preamble, header_len, data_offset, item;
    uint64_t count = 1;
    npy_header h;
    clmax_type type;
    int fd, swap, fortran;

    memset(in, 0, sizeof *in);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail(err, err_size, "cannot open: %s", strerror(errno));
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return fail(err, err_size, "cannot stat: %s", strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return fail(err, err_size, "is a directory, not a .npy file");
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return fail(err, err_size, "not a regular file");
    }
    if ((uint64_t)st.st_size > SIZE_MAX) {
        close(fd);
        return fail(err, err_size, "too large to map on this machine");
    }
    size = (size_t)st.st_size;
    if (size < NPY_MAGIC_LEN + 4) {
        /* Too short for a preamble: read what there is to say why. */
        unsigned char head[NPY_MAGIC_LEN + 4];
        ssize_t got = read(fd, head, size);
        close(fd);
        if (got != (ssize_t)size) return fail(err, err_size, "cannot read the file");
        if (size < NPY_MAGIC_LEN || memcmp(head, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
            return fail(err, err_size, "not a .npy file (no \\x93NUMPY magic)");
        return fail(err, err_size, "truncated .npy header (%zu bytes)", size);
    }
    in->map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (in->map == MAP_FAILED) {
        in->map = NULL;
        return fail(err, err_size, "cannot map: %s", strerror(errno));
    }
    in->map_len = size;
    bytes = in->map;

    if (memcmp(bytes, NPY_MAGIC, NPY_MAGIC_LEN) != 0) {
        npy_input_close(in);
        return fail(err, err_size, "not a .npy file (no \\x93NUMPY magic)");
    }
    if (bytes[6] < 1 || bytes[6] > 3 || bytes[7] != 0) {
        unsigned major = bytes[6], minor = bytes[7];
        npy_input_close(in);
        return fail(err, err_size, "unsupported .npy version %u.%u (clmax reads 1.0, 2.0, 3.0)",
                    major, minor);
    }
    if (bytes[6] == 1) {
        preamble = 10;
        header_len = (size_t)bytes[8] | (size_t)bytes[9] << 8;
    } else {
        preamble = 12;
        if (size < preamble) {
            npy_input_close(in);
            return fail(err, err_size, "truncated .npy header (%zu bytes)", size);
        }
        header_len = (size_t)bytes[8] | (size_t)bytes[9] << 8 | (size_t)bytes[10] << 16 |
                     (size_t)bytes[11] << 24;
    }
    if (header_len > size - preamble) {
        npy_input_close(in);
        return fail(err, err_size, "header length %zu goes beyond the end of the file (%zu bytes)",
                    header_len, size);
    }
    data_offset = preamble + header_len;
    if (parse_header(bytes + preamble, header_len, &h, err, err_size) != 0 ||
        resolve_type(h.descr, h.descr_len, bf16, &type, &swap, err, err_size) != 0) {
        npy_input_close(in);
        return -1;
    }
    if (h.rank > CLMAX_MAX_RANK) {
        npy_input_close(in);
        return fail(err, err_size, "rank %d is above clmax's maximum of %d", h.rank,
                    CLMAX_MAX_RANK);
    }
    item = clmax_type_size(type);
    for (int k = 0; k < h.rank && count != 0; k++) {
        if (h.dims[k] == 0) count = 0;
    }
    for (int k = 0; k < h.rank && count != 0; k++) {
        if ((uint64_t)h.dims[k] > UINT64_MAX / count) {
            npy_input_close(in);
            return fail(err, err_size, "the shape's element count does not fit in 64 bits");
        }
        count *= (uint64_t)h.dims[k];
    }
    if (count > UINT64_MAX / item || count * item > SIZE_MAX) {
        npy_input_close(in);
        return fail(err, err_size, "the shape's byte size does not fit in 64 bits");
    }
    in->nbytes = count * item;
    if (in->nbytes > size - data_offset) {
        npy_input_close(in);
        return fail(err, err_size,
                    "truncated: the header says %llu bytes of data, the file holds %zu",
                    (unsigned long long)in->nbytes, size - data_offset);
    }
    if (in->nbytes < size - data_offset) {
        npy_input_close(in);
        return fail(err, err_size, "%zu unexpected bytes after the %llu bytes of data",
                    size - data_offset - (size_t)in->nbytes, (unsigned long long)in->nbytes);
    }

    in->desc.type = type;
    in->desc.rank = h.rank;
    for (int k = 0; k < h.rank; k++)
        in->desc.dims[k] = h.dims[k];
    snprintf(in->descr, sizeof in->descr, "%s", h.descr);
    fortran = h.fortran_order && fortran_matters(&h);
    if (swap && fortran)
        in->conversion = "converted from big-endian Fortran order";
    else if (swap)
        in->conversion = "converted from big-endian";
    else if (fortran)
        in->conversion = "converted from Fortran order";
    else if (data_offset % item != 0)
        in->conversion = "copied for alignment";
    if (in->conversion == NULL) {
        in->data = in->nbytes ? (const void *)(bytes + data_offset) : (const void *)empty;
        posix_madvise(in->map, size, POSIX_MADV_SEQUENTIAL);
        return 0;
    }
    in->owned = malloc(in->nbytes ? (size_t)in->nbytes : 1);
    if (in->owned == NULL) {
        npy_input_close(in);
        return fail(err, err_size, "out of memory: converting needs %llu bytes",
                    (unsigned long long)count * item);
    }
    if (fortran) {
        transpose_fortran(in->owned, bytes + data_offset, &h, count, item, swap);
    } else {
        for (uint64_t i = 0; i < count; i++)
            copy_element((unsigned char *)in->owned + i * item, bytes + data_offset + i * item,
                         item, swap);
    }
    munmap(in->map, in->map_len);
    in->map = NULL;
    in->data = in->owned;
    return 0;
}
