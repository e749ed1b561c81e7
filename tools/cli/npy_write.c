/* Writing .npy files atomically: the array goes to a temporary file beside the destination, which
 * is renamed over it only when everything succeeded. The data area is reserved up front and
 * memory-mapped, so the library writes its result straight into the file. Two outputs can be
 * committed together, all or nothing. */
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary files a signal handler removes: one per output open at a time. */
#define MAX_PENDING 4
static char *volatile pending_tmp_paths[MAX_PENDING];

static void pending_add(char *path)
{
    for (int k = 0; k < MAX_PENDING; k++)
        if (pending_tmp_paths[k] == NULL) {
            pending_tmp_paths[k] = path;
            return;
        }
}

static void pending_remove(const char *path)
{
    for (int k = 0; k < MAX_PENDING; k++)
        if (pending_tmp_paths[k] == path) pending_tmp_paths[k] = NULL;
}

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

static const int stops[] = {SIGINT, SIGTERM, SIGHUP};
static const int crashes[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};

static pid_t owner; /* the process that made them: not a child forked by a library */

static void remove_pending(void)
{
    if (getpid() != owner) return;
    for (int k = 0; k < MAX_PENDING; k++) {
        char *tmp = pending_tmp_paths[k];
        if (tmp != NULL) unlink(tmp);
    }
}

/* What each watched signal did before: put back before the signal is raised again. */
static struct sigaction previous[65]; /* indexed by signal number: the classic ones are below 32 */

static void on_signal(int sig)
{
    remove_pending();
    sigaction(sig, &previous[sig], NULL);
    raise(sig);
}

/* The temporary files go however the process ends before they are committed: a signal asking it
 * to stop, a crash (inside an OpenCL driver, say: a handler some library installed, such as a
 * sanitizer's, still runs after ours), or exit() called by a library. */
static void watch_signals(void)
{
    static int watching;
    struct sigaction sa;

    if (watching) return;
    watching = 1;
    owner = getpid();
    atexit(remove_pending);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* Leave alone a stop signal the caller of this process chose to ignore. */
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++)
        if (sigaction(stops[i], NULL, &previous[stops[i]]) == 0 &&
            previous[stops[i]].sa_handler != SIG_IGN)
            sigaction(stops[i], &sa, NULL);
    for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++)
        if (sigaction(crashes[i], NULL, &previous[crashes[i]]) == 0)
            sigaction(crashes[i], &sa, NULL);
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The header: preamble, dict, spaces and '\n' up to a multiple of 64 bytes. Returns its length,
 * or 0 when it does not fit in size. */
static size_t format_header(char *buf, size_t size, const char *descr, int rank,
                            const int64_t *dims)
{
    char dict[128 + CLMAX_MAX_RANK * 24];
    size_t len, preamble, total, header_len;
    int n;

    n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    if (n < 0 || (size_t)n >= sizeof dict || rank < 0 || rank > CLMAX_MAX_RANK) return 0;
    len = (size_t)n;
    for (int k = 0; k <= rank; k++) {
        if (k < rank)
            n = snprintf(dict + len, sizeof dict - len, k ? ", %lld" : "%lld", (long long)dims[k]);
        else
            n = snprintf(dict + len, sizeof dict - len, "%s), }", rank == 1 ? "," : "");
        if (n < 0 || (size_t)n >= sizeof dict - len) return 0;
        len += (size_t)n;
    }

    /* Version 1.0 has a 2-byte header length, 2.0 a 4-byte one. */
    preamble = 10;
    total = (preamble + len + 1 + 63) / 64 * 64;
    if (total - preamble > 65535) {
        preamble = 12;
        total = (preamble + len + 1 + 63) / 64 * 64;
    }
    if (total > size) return 0;
    header_len = total - preamble;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = preamble == 10 ? 1 : 2;
    buf[7] = 0;
    buf[8] = (char)(header_len & 0xff);
    buf[9] = (char)(header_len >> 8 & 0xff);
    if (preamble == 12) {
        buf[10] = (char)(header_len >> 16 & 0xff);
        buf[11] = (char)(header_len >> 24 & 0xff);
    }
    memcpy(buf + preamble, dict, len);
    memset(buf + preamble + len, ' ', total - preamble - len - 1);
    buf[total - 1] = '\n';
    return total;
}

int npy_output_create(npy_output *out, const char *path, const char *descr, int rank,
                      const int64_t *dims, uint64_t nbytes, char *err, size_t err_size)
{
    static int64_t empty;
    char header[1024];
    size_t header_len, tmp_size;
    struct stat st;
    mode_t mask;
    int e;

    memset(out, 0, sizeof *out);
    out->fd = -1;
    out->nbytes = nbytes;
    header_len = format_header(header, sizeof header, descr, rank, dims);
    if (header_len == 0 || nbytes > SIZE_MAX - header_len)
        return fail(err, err_size, "output too large for this machine");
    if (stat(path, &st) == 0) {
        /* Replace only regular files: renaming over /dev/null or a directory is never meant. */
        if (S_ISDIR(st.st_mode)) return fail(err, err_size, "is a directory");
        if (!S_ISREG(st.st_mode)) return fail(err, err_size, "exists and is not a regular file");
    }
    /* Through a symbolic link, write the file it points to and keep the link. */
    out->path = lstat(path, &st) == 0 && S_ISLNK(st.st_mode) ? realpath(path, NULL) : NULL;
    if (out->path == NULL) out->path = strdup(path);
    if (out->path == NULL) return fail(err, err_size, "out of memory");
    tmp_size = strlen(out->path) + sizeof ".tmp.XXXXXX";
    out->tmp_path = malloc(tmp_size);
    if (out->tmp_path == NULL) {
        npy_output_discard(out);
        return fail(err, err_size, "out of memory");
    }
    snprintf(out->tmp_path, tmp_size, "%s.tmp.XXXXXX", out->path);

    watch_signals();
    /* No signal sent between the file's creation and its registration for removal. */
    sigset_t watched, before;
    sigemptyset(&watched);
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++)
        sigaddset(&watched, stops[i]);
    for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++)
        sigaddset(&watched, crashes[i]);
    sigprocmask(SIG_BLOCK, &watched, &before);
    out->fd = mkstemp(out->tmp_path);
    e = errno;
    if (out->fd >= 0) pending_add(out->tmp_path);
    sigprocmask(SIG_SETMASK, &before, NULL);
    if (out->fd < 0) {
        free(out->tmp_path);
        out->tmp_path = NULL;
        npy_output_discard(out);
        return fail(err, err_size, "cannot create a file beside it: %s", strerror(e));
    }
    /* mkstemp makes the file 0600; give it the mode a plain open() would. */
    mask = umask(0);
    umask(mask);
    fchmod(out->fd, 0666 & ~mask);

    if (write_all(out->fd, header, header_len) != 0) {
        e = errno;
        npy_output_discard(out);
        return fail(err, err_size, "cannot write: %s", strerror(e));
    }
    if (nbytes == 0) {
        out->data = &empty;
        return 0;
    }
    /* Reserve the blocks now: writing through a mapping into a full disk would be a SIGBUS. */
    e = posix_fallocate(out->fd, 0, (off_t)(header_len + nbytes));
    if (e == 0) {
        out->map_len = header_len + (size_t)nbytes;
        out->map = mmap(NULL, out->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, out->fd, 0);
        if (out->map != MAP_FAILED) {
            out->data = (char *)out->map + header_len;
            return 0;
        }
        out->map = NULL;
        if (ftruncate(out->fd, (off_t)header_len) != 0 || lseek(out->fd, 0, SEEK_END) < 0) {
            e = errno;
            npy_output_discard(out);
            return fail(err, err_size, "cannot write: %s", strerror(e));
        }
    } else if (e == ENOSPC || e == EFBIG || e == EIO) {
        npy_output_discard(out);
        return fail(err, err_size, "cannot reserve %llu bytes: %s", (unsigned long long)nbytes,
                    strerror(e));
    }
    /* No reservation or mapping on this file system: buffer in memory, write at commit. */
    out->buffer = malloc((size_t)nbytes);
    if (out->buffer == NULL) {
        npy_output_discard(out);
        return fail(err, err_size, "out of memory: the output needs %llu bytes",
                    (unsigned long long)nbytes);
    }
    out->data = out->buffer;
    return 0;
}

/* Everything but the rename: the data in the file, the file closed. */
static int output_finish(npy_output *out, char *err, size_t err_size)
{
    int e;

    if (out->map != NULL) {
        e = munmap(out->map, out->map_len);
        out->map = NULL;
        if (e != 0) {
            e = errno;
            npy_output_discard(out);
            return fail(err, err_size, "cannot write: %s", strerror(e));
        }
    }
    if (out->buffer != NULL && write_all(out->fd, out->buffer, (size_t)out->nbytes) != 0) {
        e = errno;
        npy_output_discard(out);
        return fail(err, err_size, "cannot write: %s", strerror(e));
    }
    e = close(out->fd);
    out->fd = -1;
    if (e != 0) {
        e = errno;
        npy_output_discard(out);
        return fail(err, err_size, "cannot write: %s", strerror(e));
    }
    return 0;
}

/* The rename into place, then the bookkeeping of a committed output. */
static int output_publish(npy_output *out, char *err, size_t err_size)
{
    if (rename(out->tmp_path, out->path) != 0) {
        int e = errno;
        npy_output_discard(out);
        return fail(err, err_size, "cannot replace: %s", strerror(e));
    }
    pending_remove(out->tmp_path);
    free(out->tmp_path);
    out->tmp_path = NULL;
    npy_output_discard(out);
    return 0;
}

int npy_output_commit(npy_output *out, char *err, size_t err_size)
{
    if (output_finish(out, err, err_size) != 0) return -1;
    return output_publish(out, err, err_size);
}

int npy_output_commit_pair(npy_output *first, npy_output *second, int *failed, char *err,
                           size_t err_size)
{
    char *keep = NULL, *path = NULL;
    struct stat st;
    int existed, r;

    *failed = 0;
    if (output_finish(first, err, err_size) != 0) {
        npy_output_discard(second);
        return -1;
    }
    *failed = 1;
    if (output_finish(second, err, err_size) != 0) {
        npy_output_discard(first);
        return -1;
    }
    /* A hard link to second's old file, to put back should first fail to replace its own. */
    existed = lstat(second->path, &st) == 0;
    path = strdup(second->path);
    if (path == NULL) {
        npy_output_discard(first);
        npy_output_discard(second);
        return fail(err, err_size, "out of memory");
    }
    if (existed) {
        size_t size = strlen(second->tmp_path) + sizeof ".old";
        keep = malloc(size);
        if (keep != NULL) {
            snprintf(keep, size, "%s.old", second->tmp_path);
            if (link(second->path, keep) != 0) {
                free(keep);
                keep = NULL; /* no hard links here: the old file cannot be kept */
            }
        }
    }
    r = output_publish(second, err, err_size);
    if (r == 0) {
        *failed = 0;
        r = output_publish(first, err, err_size);
        if (r != 0) {
            /* Undo: the old second file back in place, or no file where there was none. */
            if (keep != NULL) {
                if (rename(keep, path) == 0) {
                    free(keep);
                    keep = NULL;
                }
            } else if (!existed) {
                unlink(path);
            }
        }
    } else {
        npy_output_discard(first);
    }
    if (keep != NULL) {
        unlink(keep);
        free(keep);
    }
    free(path);
    return r;
}

void npy_output_discard(npy_output *out)
{
    if (out->map != NULL) munmap(out->map, out->map_len);
    if (out->fd >= 0) close(out->fd);
    if (out->tmp_path != NULL) {
        unlink(out->tmp_path);
        pending_remove(out->tmp_path);
    }
    free(out->buffer);
    free(out->tmp_path);
    free(out->path);
    memset(out, 0, sizeof *out);
    out->fd = -1;
}
