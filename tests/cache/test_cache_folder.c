/* The program cache's folder and what it trusts (issue 25): things that are not entries at an
 * entry's path, folders and entries others could write, 8 processes on an empty cache, pruning,
 * and the settings (CLMAX_CACHE_DIR, CLMAX_CACHE_MAX_BYTES, the options). Each case runs in its
 * own process with its own folder and must give the CPU path's answer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache_util.h"

TestSuite(cache_folder, .fini = cache_cleanup, .timeout = 120);

#define NOBODY 65534

/* The float32 program's entry in a fresh cache: its path into path; returns the folder. */
static const char *seed_entry(char *path, size_t size)
{
    const char *dir = cache_fresh();
    cache_seed(dir, CLMAX_TYPE_FLOAT32);
    cache_one_entry(dir, path, size);
    return dir;
}

static void need_root(void)
{
    if (geteuid() != 0) cr_skip_test("needs root (chown)");
}

/* ---- Not an entry at the entry's path ------------------------------------------------------ */

Test(cache_folder, fifo_replaced)
{
    char path[1100];
    seed_entry(path, sizeof path);
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(mkfifo(path, 0600), 0, "mkfifo: %s", strerror(errno));
    int fd = entry_hold(path);
    cache_run(CLMAX_TYPE_FLOAT32);
    entry_replaced(path, fd, NULL, 0);
    entry_loaded_next(path, CLMAX_TYPE_FLOAT32);
}

/* A link to a valid entry elsewhere is neither followed nor written through. */
Test(cache_folder, symlink_replaced)
{
    char path[1100], target[1100];
    seed_entry(path, sizeof path);
    snprintf(target, sizeof target, "%s/elsewhere.bin", cache_tmpdir());
    cr_assert_eq(rename(path, target), 0);
    time_t old = time(NULL) - 7200;
    file_set_mtime(target, old);
    struct stat t0 = file_lstat(target);
    size_t size0, size1;
    unsigned char *data0 = file_read(target, &size0);
    cr_assert_eq(symlink(target, path), 0, "symlink: %s", strerror(errno));
    cache_run(CLMAX_TYPE_FLOAT32);
    struct stat t1 = file_lstat(target);
    unsigned char *data1 = file_read(target, &size1);
    cr_assert(t1.st_ino == t0.st_ino && size0 == size1 && memcmp(data0, data1, size0) == 0,
              "the link's target was changed");
    cr_assert_eq(t1.st_mtime, old, "the link's target was loaded (its time of use moved)");
    struct stat now = file_lstat(path);
    cr_assert(S_ISREG(now.st_mode), "the link at %s is still there (mode %o)", path, now.st_mode);
    size_t size, len;
    unsigned char *data = file_read(path, &size);
    entry_check(data, size, &len);
    free(data);
    free(data0);
    free(data1);
}

Test(cache_folder, folder_at_entry_path)
{
    char path[1100];
    seed_entry(path, sizeof path);
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(mkdir(path, 0700), 0);
    cache_run(CLMAX_TYPE_FLOAT32);
    cache_run(CLMAX_TYPE_FLOAT32);
    cr_log_info("after two runs %s is %s", path,
                S_ISDIR(file_lstat(path).st_mode) ? "still a folder" : "no longer a folder");
}

/* ---- Folders others could write, entries of others ----------------------------------------- */

/* dir holds a valid entry at path used two hours ago; after refuse(dir) a context (cache_dir in
 * the options when by_option) must work, say in its warnings that dir is not used and why, and
 * neither read that entry nor write the int32 program's. */
static void expect_folder_refused(int by_option, int mode, int owner, const char *why)
{
    char path[1100];
    const char *dir = seed_entry(path, sizeof path);
    time_t old = time(NULL) - 7200;
    file_set_mtime(path, old);
    if (mode) cr_assert_eq(chmod(dir, (mode_t)mode), 0);
    if (owner) cr_assert_eq(chown(dir, (uid_t)owner, (gid_t)owner), 0);
    clmax_context_options o;
    clmax_context_options_init(&o);
    if (by_option) {
        unsetenv("CLMAX_CACHE_DIR");
        o.cache_dir = dir;
    }
    clmax_context *ctx = cache_open(&o);
    const char *w = clmax_context_warnings(ctx);
    cr_assert(w != NULL && strstr(w, dir) != NULL && strstr(w, why) != NULL,
              "the warnings do not say that %s %s: \"%s\"", dir, why, w ? w : "(null)");
    cr_assert_eq(w[strlen(w) - 1], '\n', "a warning line without its newline: \"%s\"", w);
    cache_check(ctx, CLMAX_TYPE_FLOAT32);
    cache_check(ctx, CLMAX_TYPE_INT32);
    clmax_context_destroy(ctx);
    cr_assert_eq(file_lstat(path).st_mtime, old, "an entry in a refused folder was read");
    const char *only[2] = {strrchr(path, '/') + 1, NULL};
    cr_assert(dir_holds_only(dir, only), "something was written into a refused folder");
}

Test(cache_folder, group_writable_refused)
{
    expect_folder_refused(0, 0770, 0, "is writable by group or others");
}

Test(cache_folder, world_writable_refused)
{
    expect_folder_refused(1, 0777, 0, "is writable by group or others");
}

Test(cache_folder, owned_by_nobody_refused)
{
    need_root();
    expect_folder_refused(0, 0, NOBODY, "is not owned by you");
}

/* Readable by the group is not a reason to refuse it. */
Test(cache_folder, group_readable_used)
{
    char path[1100];
    const char *dir = seed_entry(path, sizeof path);
    cr_assert_eq(chmod(dir, 0750), 0);
    entry_loaded_next(path, CLMAX_TYPE_FLOAT32);
}

static void expect_entry_replaced(int mode, int owner)
{
    char path[1100];
    seed_entry(path, sizeof path);
    size_t size, key_len;
    unsigned char *data = file_read(path, &size);
    const char *key = entry_check(data, size, &key_len);
    if (mode) cr_assert_eq(chmod(path, (mode_t)mode), 0);
    if (owner) cr_assert_eq(chown(path, (uid_t)owner, (gid_t)owner), 0);
    int fd = entry_hold(path);
    cache_run(CLMAX_TYPE_FLOAT32);
    entry_replaced(path, fd, key, key_len);
    entry_loaded_next(path, CLMAX_TYPE_FLOAT32);
    free(data);
}

Test(cache_folder, entry_owned_by_nobody_replaced)
{
    need_root();
    expect_entry_replaced(0, NOBODY);
}

Test(cache_folder, entry_mode_0666_replaced)
{
    expect_entry_replaced(0666, 0);
}

/* ---- 8 processes at once on an empty cache ------------------------------------------------- */

/* A child's whole run, without Criterion: 0 right, 77 no device, else wrong. */
static int child_run(void)
{
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.backend = CLMAX_BACKEND_OPENCL;
    clmax_context *ctx = NULL, *cpu = NULL;
    clmax_status st = clmax_context_create(&o, &ctx);
    if (st == CLMAX_ERROR_NO_DEVICE) return 77;
    o.backend = CLMAX_BACKEND_CPU;
    if (st != CLMAX_OK || clmax_context_create(&o, &cpu) != CLMAX_OK) return 2;
    int64_t got[4], want[4];
    int rc = 0;
    if (cache_argmax(ctx, CLMAX_TYPE_FLOAT32, got) != CLMAX_OK ||
        cache_argmax(cpu, CLMAX_TYPE_FLOAT32, want) != CLMAX_OK)
        rc = 3;
    else if (memcmp(got, want, sizeof got) != 0)
        rc = 4;
    clmax_context_destroy(ctx);
    clmax_context_destroy(cpu);
    return rc;
}

Test(cache_folder, eight_processes_at_once, .timeout = 300)
{
    if (!backend_enabled(CLMAX_BACKEND_OPENCL)) cr_skip_test("OpenCL not selected");
    const char *dir = cache_fresh();
    int gate[2];
    cr_assert_eq(pipe(gate), 0);
    pid_t pid[8];
    for (int i = 0; i < 8; i++) {
        pid[i] = fork();
        cr_assert_geq(pid[i], 0, "fork: %s", strerror(errno));
        if (pid[i] == 0) {
            char c;
            close(gate[1]);
            while (read(gate[0], &c, 1) < 0 && errno == EINTR) {
            }
            _exit(child_run());
        }
    }
    close(gate[0]);
    close(gate[1]); /* the gate opens: every child's read returns at once */
    int skipped = 0;
    for (int i = 0; i < 8; i++) {
        int status;
        cr_assert_eq(waitpid(pid[i], &status, 0), pid[i]);
        cr_assert(WIFEXITED(status), "process %d killed by signal %d", i, WTERMSIG(status));
        skipped += WEXITSTATUS(status) == 77;
        cr_assert(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 77,
                  "process %d failed with %d", i, WEXITSTATUS(status));
    }
    if (skipped) {
        cr_assert(!opencl_required(), "no OpenCL device, and CLMAX_REQUIRE_OPENCL=1");
        cr_skip_test("no OpenCL device");
    }
    char path[1100];
    cache_one_entry(dir, path, sizeof path);
    const char *only[2] = {strrchr(path, '/') + 1, NULL};
    cr_assert(dir_holds_only(dir, only), "more than the one entry after 8 processes");
    size_t size, len;
    unsigned char *data = file_read(path, &size);
    entry_check(data, size, &len);
    free(data);
}

/* ---- Pruning ------------------------------------------------------------------------------- */

/* A valid entry in path's folder named as path's entry with its scope (part 0) and, when gen,
 * its generation (part 1) made of the digit c; modified at when. Its name into out. */
static void plant_entry(const char *path, int scope, int gen, char c, time_t when, char *out,
                        size_t size)
{
    snprintf(out, size, "%s", path);
    char *name = strrchr(out, '/') + 1;
    if (scope) memset(name, c, 16);
    if (gen) memset(name + 17, c, 16);
    const char key[] = "a planted scope\na planted generation\na planted key\n";
    size_t n;
    unsigned char *e = entry_forge(key, sizeof key - 1, "planted", 7, &n);
    file_replace(out, e, n);
    file_set_mtime(out, when);
    free(e);
}

static void expect_gone(const char *path, int gone, const char *what)
{
    struct stat st;
    int absent = lstat(path, &st) != 0 && errno == ENOENT;
    cr_assert_eq(absent, gone, "%s %s", what, gone ? "was kept" : "was removed");
}

Test(cache_folder, prune_stale_generations_and_temporaries)
{
    char path[1100], stale[1100], other[1100], recent[1100], tmp_old[1200], tmp_new[1200];
    seed_entry(path, sizeof path);
    cr_assert_eq(unlink(path), 0); /* so that the next run writes it */
    time_t now = time(NULL);
    plant_entry(path, 0, 1, '1', now - 2 * 24 * 3600, stale, sizeof stale);
    plant_entry(path, 1, 1, '2', now - 2 * 24 * 3600, other, sizeof other);
    plant_entry(path, 0, 1, '3', now - 60, recent, sizeof recent);
    snprintf(tmp_old, sizeof tmp_old, "%s.tmp.4194305.0", path);
    snprintf(tmp_new, sizeof tmp_new, "%s.tmp.4194306.0", path);
    file_replace(tmp_old, "partial", 7);
    file_set_mtime(tmp_old, now - 2 * 3600);
    file_replace(tmp_new, "partial", 7);
    cache_run(CLMAX_TYPE_FLOAT32);
    expect_gone(path, 0, "the entry written");
    expect_gone(stale, 1, "an entry of another generation unused for two days");
    expect_gone(other, 0, "an entry of another scope unused for two days");
    expect_gone(recent, 0, "an entry of another generation used a minute ago");
    expect_gone(tmp_old, 1, "a temporary file two hours old");
    expect_gone(tmp_new, 0, "a fresh temporary file");
}

/* With room for less than the float32 and int32 programs' entries together, writing the int32
 * one removes the float32 one (used two minutes ago). */
static void expect_lru_pruned(int by_option)
{
    char a[1100], b[1100];
    const char *dir = seed_entry(a, sizeof a);
    cache_run(CLMAX_TYPE_INT32);
    cache_other_entry(dir, a, b, sizeof b);
    uint64_t limit = (uint64_t)file_lstat(a).st_size + (uint64_t)file_lstat(b).st_size - 1;
    cr_assert_eq(unlink(b), 0);
    file_set_mtime(a, time(NULL) - 120);
    clmax_context_options o;
    clmax_context_options_init(&o);
    if (by_option) {
        o.cache_max_bytes = limit;
    } else {
        char v[32];
        snprintf(v, sizeof v, "%lluK", (unsigned long long)(limit / 1024));
        setenv("CLMAX_CACHE_MAX_BYTES", v, 1);
    }
    clmax_context *ctx = cache_open(&o);
    cache_check(ctx, CLMAX_TYPE_INT32);
    clmax_context_destroy(ctx);
    expect_gone(a, 1, "the least recently used entry, beyond the size limit");
    expect_gone(b, 0, "the entry written");
}

Test(cache_folder, prune_least_recently_used_env)
{
    expect_lru_pruned(0);
}

Test(cache_folder, prune_least_recently_used_option)
{
    expect_lru_pruned(1);
}

/* ---- Settings ------------------------------------------------------------------------------ */

/* ---- Binaries: kept where the driver keeps no builds of its own ----------------------------- */

/* Whether dir's fact says that the driver keeps its builds (its body one byte, 0 or 1); its path
 * into fact and its entry into *data, *size. */
static int builds_kept_in(const char *dir, char *fact, size_t fact_size, unsigned char **data,
                          size_t *size)
{
    cache_feature_entry(dir, "feature=builds_kept", fact, fact_size);
    size_t k;
    *data = file_read(fact, size);
    entry_check(*data, *size, &k);
    cr_assert_eq(*size, ENTRY_HEAD + k + 1 + 8, "the fact's body is not one byte");
    unsigned char kept = (*data)[ENTRY_HEAD + k];
    cr_assert(kept <= 1, "the fact's byte is %u", kept);
    return kept;
}

/* The store learns once whether the driver keeps its own builds and keeps binaries at once only
 * where it does not (host/opencl/cl_cache.c); each answer, forged in turn, is followed by the next
 * context. Where it does, a binary is kept once the program's builds have cost enough. */
Test(cache_folder, binaries_where_the_driver_keeps_none)
{
    const char *dir = cache_fresh();
    unsetenv("CLMAX_CACHE_BINARIES");
    cache_run(CLMAX_TYPE_FLOAT32);
    char fact[1100], names[8][80];
    unsigned char *data;
    size_t size, k;
    int kept = builds_kept_in(dir, fact, sizeof fact, &data, &size);
    int n = cache_entries(dir, names, 8), r = cache_rent_entries(dir, names, 8);
    cr_log_info("the driver keeps its builds: %d; %d programs kept, %d builds' costs", kept, n, r);
    /* Where it does, a program's first build is counted, or kept at once if it cost 2 s (slow) */
    cr_expect(kept ? n + r >= 1 : n >= 1, "fact %d, %d programs kept, %d costs", kept, n, r);
    for (int forged = 0; forged <= 1; forged++) {
        /* programs and costs gone: the next builds are counted from nothing (PoCL's lookups) */
        for (int rents = 0; rents <= 1; rents++) {
            int m = rents ? cache_rent_entries(dir, names, 8) : cache_entries(dir, names, 8);
            for (int i = 0; i < m; i++) {
                char p[1100];
                snprintf(p, sizeof p, "%s/%s", dir, names[i]);
                cr_assert_eq(unlink(p), 0, "unlink %s: %s", p, strerror(errno));
            }
        }
        const char *key = entry_check(data, size, &k);
        unsigned char byte = (unsigned char)forged;
        size_t forged_size;
        unsigned char *e = entry_forge(key, k, &byte, 1, &forged_size);
        file_replace(fact, e, forged_size);
        free(e);
        cache_run(CLMAX_TYPE_FLOAT32);
        n = cache_entries(dir, names, 8);
        cr_expect(forged ? n == 0 : n >= 1, "fact forged to %d: %d programs kept", forged, n);
        unsigned char *now;
        size_t now_size;
        cr_expect_eq(builds_kept_in(dir, fact, sizeof fact, &now, &now_size), forged,
                     "the forged fact was learned again");
        free(now);
    }
    free(data);
    /* Where the driver keeps its builds, a program's binary is kept once its builds have cost two
     * seconds in all: the sum forged to just below, the next build keeps it. */
    char rents[8][80];
    r = cache_rent_entries(dir, rents, 8);
    cr_assert_geq(r, 1, "no program's builds were counted");
    for (int i = 0; i < r; i++) {
        char p[1100];
        snprintf(p, sizeof p, "%s/%s", dir, rents[i]);
        unsigned char *old = file_read(p, &size);
        const char *key = entry_check(old, size, &k);
        cr_assert_eq(size, ENTRY_HEAD + k + sizeof(double) + 8, "a rent entry's body is a double");
        double paid;
        memcpy(&paid, old + ENTRY_HEAD + k, sizeof paid);
        cr_expect(paid > 0 && paid < 2, "%s: %g seconds paid", rents[i], paid);
        paid = 2 - 1e-6;
        size_t forged_size;
        unsigned char *e = entry_forge(key, k, &paid, sizeof paid, &forged_size);
        file_replace(p, e, forged_size);
        free(e);
        free(old);
    }
    cache_run(CLMAX_TYPE_FLOAT32);
    n = cache_entries(dir, names, 8);
    cr_expect_eq(n, r, "%d programs kept once %d had cost enough", n, r);
}

/* CLMAX_CACHE_BINARIES takes auto or always, and nothing else. */
Test(cache_folder, binaries_setting_refused)
{
    cache_fresh();
    setenv("CLMAX_CACHE_BINARIES", "sometimes", 1);
    clmax_context *ctx = NULL;
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.backend = CLMAX_BACKEND_CPU;
    cr_assert_eq(clmax_context_create(&o, &ctx), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_expect_null(ctx);
    cr_expect(strstr(clmax_last_error(), "CLMAX_CACHE_BINARIES=sometimes") != NULL, "%s",
              clmax_last_error());
}

/* Nothing of clmax's under HOME or XDG_CACHE_HOME (other libraries, PoCL's own kernel cache
 * among them, may write there). */
Test(cache_folder, off_writes_nothing)
{
    const char *home = cache_tmpdir();
    char xdg[200], mine[2][220];
    snprintf(xdg, sizeof xdg, "%s/xdg", home);
    snprintf(mine[0], sizeof mine[0], "%s/.cache/clmax", home);
    snprintf(mine[1], sizeof mine[1], "%s/clmax", xdg);
    setenv("HOME", home, 1);
    setenv("XDG_CACHE_HOME", xdg, 1);
    setenv("CLMAX_CACHE_DIR", "off", 1);
    cache_run(CLMAX_TYPE_FLOAT32);
    for (int i = 0; i < 2; i++) {
        struct stat st;
        cr_assert(lstat(mine[i], &st) != 0, "CLMAX_CACHE_DIR=off made %s", mine[i]);
    }
}

Test(cache_folder, option_off_writes_nothing)
{
    const char *dir = cache_fresh();
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.cache_dir = "off";
    clmax_context *ctx = cache_open(&o);
    cache_check(ctx, CLMAX_TYPE_FLOAT32);
    clmax_context_destroy(ctx);
    cr_assert(dir_holds_only(dir, NULL), "cache_dir \"off\" wrote into CLMAX_CACHE_DIR");
}

/* The option wins over the environment; the folder is made (0700, with its parents) when the
 * context is created. */
Test(cache_folder, option_folder_made)
{
    const char *env_dir = cache_fresh();
    char dir[200];
    snprintf(dir, sizeof dir, "%s/a/b", cache_tmpdir());
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.cache_dir = dir;
    clmax_context *ctx = cache_open(&o);
    struct stat st = file_lstat(dir);
    cr_assert(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700, "%s: mode %o", dir, st.st_mode);
    cache_check(ctx, CLMAX_TYPE_FLOAT32);
    clmax_context_destroy(ctx);
    char path[1100];
    cache_one_entry(dir, path, sizeof path);
    cr_assert(dir_holds_only(env_dir, NULL), "CLMAX_CACHE_DIR used despite the option");
}

Test(cache_folder, default_folder)
{
    char xdg[200], dir[220], path[1100];
    snprintf(xdg, sizeof xdg, "%s", cache_tmpdir());
    snprintf(dir, sizeof dir, "%s/clmax", xdg);
    unsetenv("CLMAX_CACHE_DIR");
    setenv("XDG_CACHE_HOME", xdg, 1);
    setenv("CLMAX_CACHE_BINARIES", "always", 1);
    cache_run(CLMAX_TYPE_FLOAT32);
    cr_assert_eq(file_lstat(dir).st_mode & 0777, 0700);
    cache_one_entry(dir, path, sizeof path);
}

Test(cache_folder, max_bytes_settings)
{
    static const char *const bad[] = {"12Q", "-5", "1.5M", "M", "K1", "64KB", "20000000000G"};
    static const char *const good[] = {"64K", "3M", "1G", "1048576"};
    cache_fresh();
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        setenv("CLMAX_CACHE_MAX_BYTES", good[i], 1);
        clmax_context_destroy(cache_open(NULL));
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("CLMAX_CACHE_MAX_BYTES", bad[i], 1);
        for (int b = 0; b < 2; b++) {
            clmax_context_options o;
            clmax_context_options_init(&o);
            o.backend = b ? CLMAX_BACKEND_OPENCL : CLMAX_BACKEND_CPU;
            clmax_context *ctx = NULL;
            clmax_status st = clmax_context_create(&o, &ctx);
            clmax_context_destroy(ctx);
            if (b && st == CLMAX_ERROR_NO_DEVICE && !opencl_required()) continue;
            cr_expect_eq(st, CLMAX_ERROR_INVALID_ARGUMENT,
                         "CLMAX_CACHE_MAX_BYTES=%s on %s: status %d (%s)", bad[i],
                         b ? "opencl" : "cpu", (int)st, clmax_status_string(st));
        }
    }
}
