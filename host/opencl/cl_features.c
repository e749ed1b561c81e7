/* Optional kernel features: compiler builtins that some OpenCL compilers take (PoCL's clang) and
 * others refuse, with a build error, a kernel that cannot be created, or, in rusticl's SPIR-V
 * translator, by ending the process. Each is tried once per device: first built in a child
 * process (which may die without harm), then built and run here on a known input; the answer is
 * kept in the context's store and in this process, and the kernels are built without a feature
 * that failed. The kernel files never name a builtin: the host passes its spelling as a -D. */
#include "cl_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

#define PROBE_ITEMS 256
/* A cold build of the probes takes a second or two; a child forked while one of the driver's
 * threads held a lock can wait on it for ever (seen with PoCL 3.1: a probe child blocked in a
 * pthread mutex inside libpocl, about once in a hundred forks under parallel load). Such a child
 * is killed after CHILD_SECONDS and its answers are asked again by the next process. */
#define CHILD_SECONDS 30
#define BUILD_RETRIES 2 /* after a failed build: see build_retried */

typedef struct feature {
    const char *name;
    const char *options; /* what the kernel files get when it works (kernels/common.cl, vec.cl) */
    const char *body;    /* the probe's statement: y[i] must become x[i] + 1 (x[0] is 7) */
} feature;

static const feature features[CLMAX_CL_NFEATURES] = {
    {"prefetch", "-DCLMAX_PREFETCH=__builtin_prefetch",
     "CLMAX_PREFETCH((const __global char *)(x + i) + 256); y[i] = x[i] + 1u;"},
    {"nontemporal_store",
     "-DCLMAX_NT_STORE=__builtin_nontemporal_store -DCLMAX_NT_FENCE=__builtin_ia32_sfence",
     "CLMAX_NT_STORE(x[i] + 1u, y + i); CLMAX_NT_FENCE();"},
};

static char *probe_source(const feature *f)
{
    static const char *fmt = "__kernel void probe(__global const uint *x, __global uint *y)\n"
                             "{\n    size_t i = get_global_id(0);\n    %s\n}\n";
    size_t len = strlen(fmt) + strlen(f->body);
    char *src = malloc(len);
    if (src != NULL) snprintf(src, len, fmt, f->body);
    return src;
}

/* clBuildProgram, tried again after a failure: PoCL (3.x) shares its kernel cache folder between
 * processes without locks, so a build that meets another process's half-written entry of the same
 * program fails without a compiler message (pocl/pocl#1480); the retry finds the entry finished.
 * Our sources build everywhere else, so a real failure costs only the repeats. */
static cl_int build_retried(cl_program prog, cl_device_id device, const char *options)
{
    cl_int err = CL(BuildProgram)(prog, 1, &device, options, NULL, NULL);
    for (int i = 1; i <= BUILD_RETRIES && err == CL_BUILD_PROGRAM_FAILURE; i++) {
        struct timespec pause = {0, 50000000L * i};
        nanosleep(&pause, NULL);
        err = CL(BuildProgram)(prog, 1, &device, options, NULL, NULL);
    }
    return err;
}

/* The probe program built and its kernel made, or NULL. */
static cl_kernel build_probe(cl_context context, cl_device_id device, const feature *f,
                             cl_program *prog, int in_child)
{
    char *src = probe_source(f);
    if (src == NULL) return NULL;
    const char *text = src;
    cl_int err;
    cl_kernel k = NULL;
    *prog = CL(CreateProgramWithSource)(context, 1, &text, NULL, &err);
    cl_int built = *prog == NULL ? CL_INVALID_PROGRAM
                   : in_child    ? build_retried(*prog, device, f->options)
                                 : clmax_cl_build(*prog, device, f->options);
    if (built == CL_SUCCESS) k = CL(CreateKernel)(*prog, "probe", &err);
    free(src);
    return k;
}

static void child_exit_now(void)
{
    _exit(1);
}

/* A child forked while another thread of this process is inside the driver's compiler (which
 * holds the compiler's locks) would wait on them forever: builds share this guard, and the
 * probes' fork takes it alone, so it waits for the builds in flight (the cost helper's among
 * them, host/calibrate.c) and they for it. A child forked by the user gets a fresh one. */
static pthread_rwlock_t build_guard = PTHREAD_RWLOCK_INITIALIZER;

static void build_guard_child(void)
{
    pthread_rwlock_init(&build_guard, NULL);
}

static void build_guard_hooks(void)
{
    pthread_atfork(NULL, NULL, build_guard_child);
}

static void guard(int alone)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_guard_hooks);
    if (alone)
        pthread_rwlock_wrlock(&build_guard);
    else
        pthread_rwlock_rdlock(&build_guard);
}

cl_int clmax_cl_build(cl_program prog, cl_device_id device, const char *options)
{
    guard(0);
    cl_int err = build_retried(prog, device, options);
    pthread_rwlock_unlock(&build_guard);
    return err;
}

/* Builds the probe of each feature in a child process, which writes a byte per answer to a pipe:
 * built[i] is 1 (built), 0 (failed: the child said so, or died while building it) or -1 (no
 * answer: no child could be made, or none came in time; not kept). A child that dies is followed
 * by another for the features after the one that killed it. */
static void build_in_children(clmax_cl *cl, signed char *built)
{
    for (int i = 0; i < CLMAX_CL_NFEATURES; i++)
        built[i] = -1;
    int first = 0;
    while (first < CLMAX_CL_NFEATURES) {
        int fds[2];
        if (pipe(fds) != 0) return;
        pid_t parent = getpid();
        (void)parent; /* used where prctl is */
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
#ifdef __linux__
            /* killed with its parent, so that a child stuck as above never outlives it */
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) _exit(0); /* the parent died before the line above */
#endif
            /* A driver that ends the child with exit() must not run the parent's exit handlers
             * in it (output files removed, stdio flushed twice, a leak checker's report). */
            atexit(child_exit_now);
            /* A compiler that fails here says so on stderr; that failure is the answer, not news.
             */
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0) {
                dup2(null, 1);
                dup2(null, 2);
            }
            for (int i = first; i < CLMAX_CL_NFEATURES; i++) {
                cl_program prog = NULL;
                char c = build_probe(cl->context, cl->device, &features[i], &prog, 1) ? '1' : '0';
                if (write(fds[1], &c, 1) != 1) break;
            }
            _exit(0);
        }
        close(fds[1]);
        int i = first, timed_out = pid < 0;
        time_t deadline = time(NULL) + CHILD_SECONDS;
        while (pid > 0 && i < CLMAX_CL_NFEATURES) {
            struct pollfd pfd = {fds[0], POLLIN, 0};
            int left = (int)(deadline - time(NULL));
            int r = left > 0 ? poll(&pfd, 1, left * 1000) : 0;
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                timed_out = 1;
                kill(pid, SIGKILL);
                break;
            }
            char c;
            ssize_t got = read(fds[0], &c, 1);
            if (got < 0 && errno == EINTR) continue;
            if (got != 1) break; /* the child ended: it died building feature i */
            built[i++] = c == '1';
        }
        close(fds[0]);
        if (pid > 0) waitpid(pid, NULL, 0);
        if (timed_out) return;
        if (i < CLMAX_CL_NFEATURES) built[i++] = 0;
        first = i;
    }
}

/* Whether the probe, built in a child already, builds and runs right here, on a queue of its own
 * (never the caller's): 1 it does, 0 it gives a wrong answer, -1 it could not be run. */
static int runs_here(clmax_cl *cl, const feature *f)
{
    cl_program prog = NULL;
    cl_kernel k = build_probe(cl->context, cl->device, f, &prog, 0);
    cl_int err;
    cl_command_queue q = k ? CL(CreateCommandQueue)(cl->context, cl->device, 0, &err) : NULL;
    cl_uint in[PROBE_ITEMS], out[PROBE_ITEMS];
    for (cl_uint i = 0; i < PROBE_ITEMS; i++)
        in[i] = 3 * i + 7, out[i] = 0;
    cl_mem x = NULL, y = NULL;
    int ok = -1;
    if (q != NULL) {
        x = CL(CreateBuffer)(cl->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in,
                             &err);
        y = CL(CreateBuffer)(cl->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof out, out,
                             &err);
    }
    size_t global = PROBE_ITEMS;
    if (x != NULL && y != NULL && CL(SetKernelArg)(k, 0, sizeof x, &x) == CL_SUCCESS &&
        CL(SetKernelArg)(k, 1, sizeof y, &y) == CL_SUCCESS &&
        CL(EnqueueNDRangeKernel)(q, k, 1, NULL, &global, NULL, 0, NULL, NULL) == CL_SUCCESS &&
        CL(EnqueueReadBuffer)(q, y, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL) == CL_SUCCESS) {
        ok = 1;
        for (cl_uint i = 0; i < PROBE_ITEMS && ok; i++)
            ok &= out[i] == in[i] + 1;
    }
    if (y) CL(ReleaseMemObject)(y);
    if (x) CL(ReleaseMemObject)(x);
    if (q) CL(ReleaseCommandQueue)(q);
    if (k) CL(ReleaseKernel)(k);
    if (prog) CL(ReleaseProgram)(prog);
    return ok;
}

/* ---- How long a work-item's loops may run -----------------------------------------------------
 * Mesa's llvmpipe (rusticl's CPU device) ends a work-item's loops after 65535 iterations, all its
 * loops counted together, and goes on with the values it has: wrong answers, no error. The planner
 * keeps each work-item's loops within the limit found here (clmax_device_info.loop_limit).
 * Work-item 0 steps a generator of period 2^32 LOOP_STEPS times, and the host finds how many steps
 * ran from its last state (a counter could be folded into the loop's bound by a compiler; the state
 * cannot). */
#define LOOP_STEPS (1u << 20)
#define LOOP_LIMIT_MIN 16384   /* below this the kernels' fixed loops alone might not fit */
#define LOOPS_WRONG UINT64_MAX /* the state matched no step count */

static const char *loop_source = "__kernel void probe(__global uint *y, uint n)\n{\n"
                                 "    uint s = 1u;\n    for (uint j = 0; j < n; j++)\n"
                                 "        s = s * 1664525u + 1013904223u;\n    y[0] = s;\n}\n";

/* The steps the probe's loop ran (LOOP_STEPS: all), -2 where its state matched no step count, or
 * -1 where it could not run. */
static int64_t loop_steps(clmax_cl *cl)
{
    cl_int err;
    cl_program prog = CL(CreateProgramWithSource)(cl->context, 1, &loop_source, NULL, &err);
    cl_kernel k = NULL;
    if (prog != NULL && clmax_cl_build(prog, cl->device, "") == CL_SUCCESS)
        k = CL(CreateKernel)(prog, "probe", &err);
    cl_command_queue q = k ? CL(CreateCommandQueue)(cl->context, cl->device, 0, &err) : NULL;
    cl_uint state = 0, n = LOOP_STEPS;
    cl_mem y = q ? CL(CreateBuffer)(cl->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                    sizeof state, &state, &err)
                 : NULL;
    size_t one = 1;
    int64_t steps = -1;
    if (y != NULL && CL(SetKernelArg)(k, 0, sizeof y, &y) == CL_SUCCESS &&
        CL(SetKernelArg)(k, 1, sizeof n, &n) == CL_SUCCESS &&
        CL(EnqueueNDRangeKernel)(q, k, 1, NULL, &one, &one, 0, NULL, NULL) == CL_SUCCESS &&
        CL(EnqueueReadBuffer)(q, y, CL_TRUE, 0, sizeof state, &state, 0, NULL, NULL) ==
            CL_SUCCESS) {
        steps = -2;
        cl_uint s = 1u;
        for (int64_t i = 0; i <= LOOP_STEPS; i++, s = s * 1664525u + 1013904223u)
            if (s == state) {
                steps = i;
                break;
            }
    }
    if (y) CL(ReleaseMemObject)(y);
    if (q) CL(ReleaseCommandQueue)(q);
    if (k) CL(ReleaseKernel)(k);
    if (prog) CL(ReleaseProgram)(prog);
    return steps;
}

/* Fills cl->info.loop_limit and cl->loops_wrong from the store, else by running the probe; 0 if
 * the answer is not to be kept (the probe could not run). */
static int probe_loop_limit(clmax_cl *cl)
{
    clmax_cl_cache_entry e;
    int stored = clmax_cl_cache_name(cl, 0, NULL, "feature=loop_limit", &e);
    size_t size = 0;
    unsigned char *bytes = stored ? clmax_cl_cache_load(cl, &e, &size) : NULL;
    uint64_t answer = 0;
    int known = 0;
    if (bytes != NULL && size == 8) {
        for (int i = 7; i >= 0; i--)
            answer = answer << 8 | bytes[i];
        known = 1;
    }
    free(bytes);
    if (!known) {
        int64_t steps = loop_steps(cl);
        if (steps == -1) return 0;
        answer = steps == -2 ? LOOPS_WRONG : steps == LOOP_STEPS ? 0 : (uint64_t)steps;
        unsigned char out[8];
        for (int i = 0; i < 8; i++)
            out[i] = (unsigned char)(answer >> 8 * i);
        if (stored) clmax_cl_cache_save_bytes(cl, &e, out, sizeof out);
    }
    cl->loops_wrong = answer == LOOPS_WRONG || (answer != 0 && answer < LOOP_LIMIT_MIN);
    cl->info.loop_limit = cl->loops_wrong ? 0 : answer;
    return 1;
}

/* This process's answers, per device: the store may be off, and a context is made per call. */
static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    cl_device_id device;
    unsigned char works[CLMAX_CL_NFEATURES];
    uint64_t loop_limit;
    int loops_wrong;
} known[16];
static int nknown;

static int from_process(clmax_cl *cl)
{
    int found = 0;
    pthread_mutex_lock(&known_lock);
    for (int i = 0; i < nknown && !found; i++)
        if (known[i].device == cl->device) {
            memcpy(cl->features, known[i].works, CLMAX_CL_NFEATURES);
            cl->info.loop_limit = known[i].loop_limit;
            cl->loops_wrong = known[i].loops_wrong;
            found = 1;
        }
    pthread_mutex_unlock(&known_lock);
    return found;
}

static void keep_in_process(const clmax_cl *cl)
{
    pthread_mutex_lock(&known_lock);
    if (nknown < (int)(sizeof known / sizeof known[0])) {
        known[nknown].device = cl->device;
        memcpy(known[nknown].works, cl->features, CLMAX_CL_NFEATURES);
        known[nknown].loop_limit = cl->info.loop_limit;
        known[nknown].loops_wrong = cl->loops_wrong;
        nknown++;
    }
    pthread_mutex_unlock(&known_lock);
}

void clmax_cl_probe_features(clmax_cl *cl)
{
    if (cl->features_known) return;
    if (from_process(cl)) {
        cl->features_known = 1;
        return;
    }
    int conclusive = probe_loop_limit(cl), tried = 0;
    signed char built[CLMAX_CL_NFEATURES];
    for (int i = 0; i < CLMAX_CL_NFEATURES; i++) {
        const feature *f = &features[i];
        char key[64];
        snprintf(key, sizeof key, "feature=%s", f->name);
        clmax_cl_cache_entry e;
        int stored = clmax_cl_cache_name(cl, 0, NULL, key, &e);
        size_t size = 0;
        unsigned char *answer = stored ? clmax_cl_cache_load(cl, &e, &size) : NULL;
        if (answer != NULL && size == 1 && answer[0] <= 1) {
            cl->features[i] = answer[0];
            free(answer);
            continue;
        }
        free(answer);
        if (!tried) {
            guard(1);
            build_in_children(cl, built);
            pthread_rwlock_unlock(&build_guard);
        }
        tried = 1;
        int works = built[i] == 1 ? runs_here(cl, f) : built[i];
        cl->features[i] = works == 1;
        if (works < 0) {
            conclusive = 0; /* asked again by the next process */
            continue;
        }
        if (stored) clmax_cl_cache_save_bytes(cl, &e, &cl->features[i], 1);
    }
    if (conclusive) keep_in_process(cl);
    cl->features_known = 1;
}

const char *clmax_cl_feature_options(const clmax_cl *cl, int feature)
{
    return cl->features[feature] ? features[feature].options : "";
}

const clmax_device_info *clmax_cl_info(clmax_cl *cl)
{
    if (!atomic_load_explicit(&cl->probed, memory_order_acquire)) {
        pthread_mutex_lock(&cl->probe_lock);
        if (!atomic_load_explicit(&cl->probed, memory_order_relaxed)) {
            clmax_cl_probe_features(cl);
            atomic_store_explicit(&cl->probed, 1, memory_order_release);
        }
        pthread_mutex_unlock(&cl->probe_lock);
    }
    return &cl->info;
}
