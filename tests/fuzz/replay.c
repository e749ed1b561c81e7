/*
 * Replays fuzz inputs without libFuzzer: calls a harness's LLVMFuzzerTestOneInput on every file
 * named on the command line, or found (sorted, hidden files skipped) in a directory named there.
 * Built with the normal compiler, so the ordinary test suite runs the seed corpus and every input
 * that once crashed a harness (tests/fuzz/regressions/<harness>/).
 *
 * usage: replay [--min=N] PATH...    fails when fewer than N files were run (default 1), so an
 *                                    emptied corpus cannot pass silently.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long files_run;

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, size = 0;
    uint8_t *data = malloc(cap);
    for (;;) {
        if (data == NULL) break;
        size += fread(data + size, 1, cap - size, f);
        if (size < cap) break;
        uint8_t *more = realloc(data, cap * 2);
        if (more == NULL) free(data);
        data = more;
        cap *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (data == NULL || failed) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(data);
        return -1;
    }
    /* An exact-size copy, so that AddressSanitizer sees a read past the input's end. */
    uint8_t *exact = malloc(size ? size : 1);
    if (exact == NULL) {
        free(data);
        return -1;
    }
    memcpy(exact, data, size);
    free(data);
    printf("replay: %s (%zu bytes)\n", path, size);
    fflush(stdout);
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    files_run++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "replay: cannot open directory %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int status = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **more = realloc(names, cap * sizeof *names);
            if (more == NULL) {
                status = -1;
                break;
            }
            names = more;
        }
        names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (names[n] == NULL) {
            status = -1;
            break;
        }
        sprintf(names[n], "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n > 0) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (status == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode) &&
            run_file(names[i]) != 0)
            status = -1;
        free(names[i]);
    }
    free(names);
    return status;
}

int main(int argc, char **argv)
{
    unsigned long min = 1;
    int status = 0;

    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (strncmp(argv[i], "--min=", 6) == 0) {
            min = strtoul(argv[i] + 6, NULL, 10);
            continue;
        }
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            status = 1;
        } else if (S_ISDIR(st.st_mode) ? run_dir(argv[i]) != 0 : run_file(argv[i]) != 0) {
            status = 1;
        }
    }
    printf("replay: %lu input(s) run without a failure\n", files_run);
    if (files_run < min) {
        fprintf(stderr, "replay: expected at least %lu input(s)\n", min);
        status = 1;
    }
    return status;
}
