/* `clmax argmax`, `clmax argmin` and `clmax hardmax`: parse the options, read IN.npy, run the
 * operator, write OUT.npy (and with --values, VALUES.npy: the maxima or minima themselves). */
#include "cli.h"
#include "npy.h"
#include "progress.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "clmax.h"

typedef struct op_args {
    cli_op op;
    const char *in, *out;
    const char *values; /* --values: VALUES.npy, or NULL */
    int opset;
    int64_t axis;
    int has_axis;
    int keepdims, has_keepdims;
    int select_last_index, has_select_last_index;
    clmax_backend backend;
    int has_backend;
    const char *device;
    int bf16, verbose;
} op_args;

static const char *op_name(cli_op op)
{
    return op == CLI_ARGMAX ? "argmax" : op == CLI_ARGMIN ? "argmin" : "hardmax";
}

/* path's directory made canonical, and its last component: "/abs/dir/name" (malloc'd), or NULL. */
static char *canonical_path(const char *path)
{
    char *copy = strdup(path), *slash, *dir, *name, *out;
    size_t size;

    if (copy == NULL) return NULL;
    slash = strrchr(copy, '/');
    if (slash == NULL) {
        dir = realpath(".", NULL);
        name = copy;
    } else {
        *slash = '\0';
        dir = realpath(slash == copy ? "/" : copy, NULL);
        name = slash + 1;
    }
    out = NULL;
    if (dir != NULL) {
        size = strlen(dir) + strlen(name) + 2;
        out = malloc(size);
        if (out != NULL) snprintf(out, size, "%s/%s", dir, name);
    }
    free(dir);
    free(copy);
    return out;
}

/* Whether two paths name the same file: the same text, the same existing file (links
 * followed), or the same name in the same directory. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    char *ca, *cb;
    int same;

    if (strcmp(a, b) == 0) return 1;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    ca = canonical_path(a);
    cb = canonical_path(b);
    same = ca != NULL && cb != NULL && strcmp(ca, cb) == 0;
    free(ca);
    free(cb);
    return same;
}

static double now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int parse_flag01(const char *value, int *flag)
{
    if (strcmp(value, "0") == 0 || strcmp(value, "1") == 0) {
        *flag = value[0] == '1';
        return 0;
    }
    return -1;
}

/* Returns -1 when parsing went well, else the exit status (0 after --help). */
static int parse_args(cli_op op, int argc, char **argv, op_args *a)
{
    const char *cmd = op_name(op), *positional[2] = {NULL, NULL};
    const char *op_title = op == CLI_ARGMAX ? "ArgMax" : op == CLI_ARGMIN ? "ArgMin" : "Hardmax";
    int is_arg = op != CLI_HARDMAX; /* ArgMax and ArgMin take the same options */
    int npositional = 0, options_done = 0;

    memset(a, 0, sizeof *a);
    a->op = op;
    a->opset = 13;
    a->backend = CLMAX_BACKEND_AUTO;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        int r;

        if (options_done || arg[0] != '-' || arg[1] == '\0') {
            if (npositional == 2) return cli_usage_error(cmd, "unexpected argument '%s'", arg);
            positional[npositional++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            options_done = 1;
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            cli_usage(stdout, cmd);
            return CLI_EXIT_OK;
        } else if (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0) {
            a->verbose = 1;
        } else if (strcmp(arg, "--bf16") == 0) {
            a->bf16 = 1;
        } else if ((r = cli_option(argc, argv, &i, "--axis", &value)) != 0) {
            if (r < 0) return cli_usage_error(cmd, "--axis needs a value");
            if (cli_parse_int64(value, &a->axis) != 0)
                return cli_usage_error(cmd, "--axis=%s: not an integer", value);
            a->has_axis = 1;
        } else if ((r = cli_option(argc, argv, &i, "--opset", &value)) != 0) {
            int64_t v;
            if (r < 0) return cli_usage_error(cmd, "--opset needs a value");
            if (cli_parse_int64(value, &v) != 0 ||
                (v != 1 && v != 11 && v != 13 && !(is_arg && v == 12)))
                return cli_usage_error(cmd, "--opset=%s: %s is defined at opsets %s", value,
                                       op_title, is_arg ? "1, 11, 12 and 13" : "1, 11 and 13");
            a->opset = (int)v;
        } else if (is_arg && (r = cli_option(argc, argv, &i, "--keepdims", &value)) != 0) {
            if (r < 0) return cli_usage_error(cmd, "--keepdims needs a value");
            if (parse_flag01(value, &a->keepdims) != 0)
                return cli_usage_error(cmd, "--keepdims=%s: must be 0 or 1", value);
            a->has_keepdims = 1;
        } else if (is_arg && (r = cli_option(argc, argv, &i, "--select-last-index", &value)) != 0) {
            if (r < 0) return cli_usage_error(cmd, "--select-last-index needs a value");
            if (parse_flag01(value, &a->select_last_index) != 0)
                return cli_usage_error(cmd, "--select-last-index=%s: must be 0 or 1", value);
            a->has_select_last_index = 1;
        } else if (is_arg && (r = cli_option(argc, argv, &i, "--values", &value)) != 0) {
            if (r < 0 || value[0] == '\0') return cli_usage_error(cmd, "--values needs a file");
            a->values = value;
        } else if ((r = cli_option(argc, argv, &i, "--backend", &value)) != 0) {
            if (r < 0) return cli_usage_error(cmd, "--backend needs a value");
            if (strcmp(value, "auto") == 0)
                a->backend = CLMAX_BACKEND_AUTO;
            else if (strcmp(value, "opencl") == 0)
                a->backend = CLMAX_BACKEND_OPENCL;
            else if (strcmp(value, "cpu") == 0)
                a->backend = CLMAX_BACKEND_CPU;
            else
                return cli_usage_error(cmd, "--backend=%s: must be auto, opencl or cpu", value);
            a->has_backend = 1;
        } else if ((r = cli_option(argc, argv, &i, "--device", &value)) != 0) {
            if (r < 0) return cli_usage_error(cmd, "--device needs a value");
            if (value[0] == '\0') return cli_usage_error(cmd, "--device needs a value");
            a->device = value;
        } else {
            return cli_usage_error(cmd, "unknown option '%s'", arg);
        }
    }
    if (npositional < 2)
        return cli_usage_error(cmd, npositional ? "missing OUT.npy" : "missing IN.npy and OUT.npy");
    if (a->has_select_last_index && a->opset < 12)
        return cli_usage_error(cmd, "--select-last-index needs opset 12 or later (--opset=%d)",
                               a->opset);
    a->in = positional[0];
    a->out = positional[1];
    if (a->values != NULL && (same_file(a->values, a->out) || same_file(a->values, a->in)))
        return cli_usage_error(cmd, "--values=%s: VALUES.npy must be another file than %s",
                               a->values, same_file(a->values, a->out) ? "OUT.npy" : "IN.npy");
    return -1;
}

/* The descr of an array of type in native byte order: bfloat16 as its 16-bit pattern, which NumPy
 * has no type for; '|' for one-byte types, as NumPy writes them. */
static void type_descr(clmax_type type, char *descr, size_t size)
{
    const char *code;

    switch (type) {
    case CLMAX_TYPE_FLOAT16:
        code = "f2";
        break;
    case CLMAX_TYPE_FLOAT32:
        code = "f4";
        break;
    case CLMAX_TYPE_FLOAT64:
        code = "f8";
        break;
    case CLMAX_TYPE_BFLOAT16:
    case CLMAX_TYPE_UINT16:
        code = "u2";
        break;
    case CLMAX_TYPE_INT8:
        code = "i1";
        break;
    case CLMAX_TYPE_UINT8:
        code = "u1";
        break;
    case CLMAX_TYPE_INT16:
        code = "i2";
        break;
    case CLMAX_TYPE_INT32:
        code = "i4";
        break;
    case CLMAX_TYPE_UINT32:
        code = "u4";
        break;
    case CLMAX_TYPE_INT64:
        code = "i8";
        break;
    case CLMAX_TYPE_UINT64:
        code = "u8";
        break;
    default:
        code = "??"; /* refused by the library before any output is made */
        break;
    }
    snprintf(descr, size, "%c%s", clmax_type_size(type) == 1 ? '|' : npy_native_order(), code);
}

static void format_shape(const clmax_tensor_desc *d, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (int k = 0; k < d->rank && len + 1 < size; k++) {
        int n = snprintf(buf + len, size - len, "%s%lld", k ? ", " : "", (long long)d->dims[k]);
        if (n < 0) break;
        len += (size_t)n;
    }
}

static void report_library_error(const char *what, const char *file, clmax_status s)
{
    const char *detail = clmax_last_error(), *status = clmax_status_string(s);

    /* The detail usually starts with the status string already. */
    if (strncmp(detail, status, strlen(status)) == 0) status = "";
    fprintf(stderr, "clmax: %s%s%s: %s%s%s\n", file ? file : "", file ? ": " : "", what, status,
            status[0] && detail[0] ? ": " : "", detail);
}

/* Each line of the context's warnings (a cache folder not used, ...) as "clmax: warning: ...". */
static void print_warnings(const clmax_context *ctx)
{
    for (const char *w = clmax_context_warnings(ctx); *w != '\0';) {
        const char *nl = strchr(w, '\n');
        int len = nl != NULL ? (int)(nl - w) : (int)strlen(w);
        fprintf(stderr, "clmax: warning: %.*s\n", len, w);
        w += len + (nl != NULL);
    }
}

static int run(const op_args *a)
{
    const char *name = op_name(a->op);
    char err[NPY_ERROR_SIZE], descr[8], vdescr[8], in_shape[CLMAX_MAX_RANK * 24],
        out_shape[sizeof in_shape];
    clmax_argmax_attrs argmax_attrs;
    clmax_hardmax_attrs hardmax_attrs;
    clmax_context_options options;
    clmax_tensor_desc out_desc;
    clmax_context *ctx = NULL;
    npy_input in;
    npy_output out, values;
    clmax_status s;
    uint64_t count = 1;
    double t_context = 0, t_op = 0, t0;
    int status = CLI_EXIT_REFUSED, ran = 0;
    clmax_backend ran_on = CLMAX_BACKEND_AUTO;
    char ran_device[512] = "", ran_choice[160] = "";

    /* The opset was checked while parsing, so these cannot fail. */
    if (a->op != CLI_HARDMAX) {
        clmax_argmax_attrs_init(&argmax_attrs, a->opset);
        if (a->has_axis) argmax_attrs.axis = a->axis;
        if (a->has_keepdims) argmax_attrs.keepdims = a->keepdims;
        if (a->has_select_last_index) argmax_attrs.select_last_index = a->select_last_index;
    } else {
        clmax_hardmax_attrs_init(&hardmax_attrs, a->opset);
        if (a->has_axis) hardmax_attrs.axis = a->axis;
    }

    progress_begin("reading the input");
    if (npy_input_open(&in, a->in, a->bf16, err, sizeof err) != 0) {
        progress_end();
        fprintf(stderr, "clmax: %s: %s\n", a->in, err);
        return CLI_EXIT_REFUSED;
    }
    memset(&out, 0, sizeof out);
    out.fd = -1;
    memset(&values, 0, sizeof values);
    values.fd = -1;
    s = a->op != CLI_HARDMAX ? clmax_argmax_output_desc(&in.desc, &argmax_attrs, &out_desc)
                             : clmax_hardmax_output_desc(&in.desc, &hardmax_attrs, &out_desc);
    if (s != CLMAX_OK) {
        progress_end();
        report_library_error(name, a->in, s);
        goto done;
    }
    for (int k = 0; k < out_desc.rank; k++)
        count *= (uint64_t)out_desc.dims[k];
    type_descr(out_desc.type, descr, sizeof descr);
    type_descr(in.desc.type, vdescr, sizeof vdescr);

    progress_stage("starting the backend");
    t0 = now_ms();
    clmax_context_options_init(&options);
    /* A device names an OpenCL device: falling back to the CPU would hide a wrong selector. */
    options.backend = a->device != NULL && !a->has_backend ? CLMAX_BACKEND_OPENCL : a->backend;
    options.device = a->device;
    s = clmax_context_create(&options, &ctx);
    t_context = now_ms() - t0;
    if (s != CLMAX_OK) {
        progress_end();
        report_library_error("cannot start the backend", NULL, s);
        goto done;
    }
    if (npy_output_create(&out, a->out, descr, out_desc.rank, out_desc.dims,
                          count * clmax_type_size(out_desc.type), err, sizeof err) != 0) {
        progress_end();
        fprintf(stderr, "clmax: %s: %s\n", a->out, err);
        goto done;
    }
    if (a->values != NULL &&
        npy_output_create(&values, a->values, vdescr, out_desc.rank, out_desc.dims,
                          count * clmax_type_size(in.desc.type), err, sizeof err) != 0) {
        progress_end();
        fprintf(stderr, "clmax: %s: %s\n", a->values, err);
        goto done;
    }

    progress_stage(a->op == CLI_ARGMAX   ? "running argmax"
                   : a->op == CLI_ARGMIN ? "running argmin"
                                         : "running hardmax");
    t0 = now_ms();
    if (a->op == CLI_HARDMAX)
        s = clmax_hardmax(ctx, &in.desc, in.data, &hardmax_attrs, out.data);
    else if (a->values != NULL && a->op == CLI_ARGMAX)
        s = clmax_max_with_indices(ctx, &in.desc, in.data, &argmax_attrs, values.data, out.data);
    else if (a->values != NULL)
        s = clmax_min_with_indices(ctx, &in.desc, in.data, &argmax_attrs, values.data, out.data);
    else if (a->op == CLI_ARGMAX)
        s = clmax_argmax(ctx, &in.desc, in.data, &argmax_attrs, out.data);
    else
        s = clmax_argmin(ctx, &in.desc, in.data, &argmax_attrs, out.data);
    t_op = now_ms() - t0;
    ran = 1;
    const clmax_call_report *report = clmax_last_call_report();
    ran_on = report->backend;
    snprintf(ran_device, sizeof ran_device, "%s", report->device);
    snprintf(ran_choice, sizeof ran_choice, "%s", report->choice);
    /* A fallback is never silent: the answer is right, but not from the device asked for. */
    if (report->fallback_status != CLMAX_OK)
        fprintf(stderr,
                "clmax: warning: the OpenCL device failed, the CPU path computed the "
                "answer: %s\n",
                report->fallback_message);
    if (s != CLMAX_OK) {
        progress_end();
        report_library_error(name, a->in, s);
        goto done;
    }

    progress_stage("writing the output");
    if (a->values != NULL) {
        int failed = 0;
        if (npy_output_commit_pair(&out, &values, &failed, err, sizeof err) != 0) {
            progress_end();
            fprintf(stderr, "clmax: %s: %s\n", failed ? a->values : a->out, err);
            goto done;
        }
    } else if (npy_output_commit(&out, err, sizeof err) != 0) {
        progress_end();
        fprintf(stderr, "clmax: %s: %s\n", a->out, err);
        goto done;
    }
    status = CLI_EXIT_OK;

done:
    progress_end();
    if (a->verbose && ctx != NULL) {
        format_shape(&in.desc, in_shape, sizeof in_shape);
        format_shape(&out_desc, out_shape, sizeof out_shape);
        /* Where the answer was computed; the context's backend where nothing ran. */
        int computed = ran && ran_on != CLMAX_BACKEND_AUTO;
        clmax_backend b = computed ? ran_on : clmax_context_backend(ctx);
        fprintf(stderr, "clmax: backend: %s\n", b == CLMAX_BACKEND_OPENCL ? "opencl" : "cpu");
        fprintf(stderr, "clmax: device: %s\n",
                computed ? ran_device : clmax_context_device_name(ctx));
        if (ran_choice[0] != '\0') fprintf(stderr, "clmax: path: %s\n", ran_choice);
        print_warnings(ctx);
        fprintf(stderr, "clmax: input: %s %s [%s]%s%s\n", a->in, clmax_type_name(in.desc.type),
                in_shape, in.conversion ? ", " : "", in.conversion ? in.conversion : "");
        fprintf(stderr, "clmax: output: %s %s [%s]\n", a->out, clmax_type_name(out_desc.type),
                out_shape);
        if (a->values != NULL)
            fprintf(stderr, "clmax: values: %s %s [%s]\n", a->values, clmax_type_name(in.desc.type),
                    out_shape);
        fprintf(stderr, "clmax: context: %.3f ms\n", t_context);
        if (ran) fprintf(stderr, "clmax: %s: %.3f ms\n", name, t_op);
    }
    npy_output_discard(&values);
    npy_output_discard(&out);
    npy_input_close(&in);
    clmax_context_destroy(ctx);
    return status;
}

int cli_run_op(cli_op op, int argc, char **argv)
{
    op_args a;
    int r = parse_args(op, argc, argv, &a);

    return r >= 0 ? r : run(&a);
}
