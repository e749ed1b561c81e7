/* `clmax prebuild`: builds the OpenCL programs of the given types and operators for a device and
 * keeps them in the program cache (clmax_context_prebuild), so that later processes, in an image
 * or a CI job, find them built; says what it made ready. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clmax.h"

static const clmax_type every_type[] = {CLMAX_TYPE_FLOAT16,  CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT64,
                                        CLMAX_TYPE_BFLOAT16, CLMAX_TYPE_INT8,    CLMAX_TYPE_INT16,
                                        CLMAX_TYPE_INT32,    CLMAX_TYPE_INT64,   CLMAX_TYPE_UINT8,
                                        CLMAX_TYPE_UINT16,   CLMAX_TYPE_UINT32,  CLMAX_TYPE_UINT64};
#define NTYPES (sizeof every_type / sizeof every_type[0])

static const struct {
    const char *name;
    unsigned bit;
} operators[] = {{"argmax", CLMAX_PREBUILD_ARGMAX},
                 {"argmin", CLMAX_PREBUILD_ARGMIN},
                 {"hardmax", CLMAX_PREBUILD_HARDMAX}};

/* The next comma-separated item of *list into item (size bytes); 0 at the end or when too long. */
static int next_item(const char **list, char *item, size_t size)
{
    const char *s = *list, *end = strchr(s, ',');
    size_t n = end ? (size_t)(end - s) : strlen(s);
    if (*s == '\0' || n == 0 || n >= size) return 0;
    memcpy(item, s, n);
    item[n] = '\0';
    *list = end ? end + 1 : s + n;
    return 1;
}

/* --types=LIST into types (at most NTYPES, no repeats); 0, or -1 with the usage error printed. */
static int parse_types(const char *list, clmax_type *types, size_t *ntypes)
{
    char item[32];
    const char *rest = list;
    *ntypes = 0;
    while (*rest != '\0') {
        if (!next_item(&rest, item, sizeof item))
            return cli_usage_error("prebuild", "--types=%s: an empty or unknown type", list), -1;
        size_t k = 0;
        while (k < NTYPES && strcmp(item, clmax_type_name(every_type[k])) != 0)
            k++;
        if (k == NTYPES)
            return cli_usage_error("prebuild",
                                   "--types: unknown type '%s' (the types are float16, float32, "
                                   "float64, bfloat16, int8-int64 and uint8-uint64)",
                                   item),
                   -1;
        int seen = 0;
        for (size_t j = 0; j < *ntypes; j++)
            seen |= types[j] == every_type[k];
        if (!seen) types[(*ntypes)++] = every_type[k];
    }
    if (*ntypes == 0) return cli_usage_error("prebuild", "--types needs at least one type"), -1;
    return 0;
}

/* --ops=LIST into a CLMAX_PREBUILD_* mask; 0, or -1 with the usage error printed. */
static int parse_operators(const char *list, unsigned *mask)
{
    char item[32];
    const char *rest = list;
    *mask = 0;
    while (*rest != '\0') {
        size_t k = 0, n = sizeof operators / sizeof operators[0];
        if (next_item(&rest, item, sizeof item))
            while (k < n && strcmp(item, operators[k].name) != 0)
                k++;
        else
            k = n;
        if (k == n)
            return cli_usage_error("prebuild",
                                   "--ops=%s: the operators are argmax, argmin and "
                                   "hardmax",
                                   list),
                   -1;
        *mask |= operators[k].bit;
    }
    if (*mask == 0) return cli_usage_error("prebuild", "--ops needs at least one operator"), -1;
    return 0;
}

/* On a terminal, "programs: done/total" on stderr as they become ready. */
static void show_progress(void *user, size_t done, size_t total, int compiled)
{
    (void)compiled;
    if (*(int *)user) fprintf(stderr, "\rclmax: programs: %zu/%zu", done, total);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cli_prebuild(int argc, char **argv)
{
    clmax_context_options options;
    clmax_prebuild_options build;
    clmax_type types[NTYPES];
    size_t ntypes = 0;
    int verbose = 0;

    /* Auto, so that the cost model's profile is measured and kept too; the device is required. */
    clmax_context_options_init(&options);
    clmax_prebuild_options_init(&build);
    for (int i = 0; i < argc; i++) {
        const char *value = NULL;
        int r;

        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            cli_usage(stdout, "prebuild");
            return CLI_EXIT_OK;
        } else if (strcmp(argv[i], "-v") == 0) {
            verbose = 1;
        } else if ((r = cli_option(argc, argv, &i, "--types", &value)) != 0) {
            if (r < 0) return cli_usage_error("prebuild", "--types needs a value");
            if (parse_types(value, types, &ntypes) != 0) return CLI_EXIT_USAGE;
            build.types = types;
            build.ntypes = ntypes;
        } else if ((r = cli_option(argc, argv, &i, "--ops", &value)) != 0) {
            if (r < 0) return cli_usage_error("prebuild", "--ops needs a value");
            if (parse_operators(value, &build.operators) != 0) return CLI_EXIT_USAGE;
        } else if ((r = cli_option(argc, argv, &i, "--device", &value)) != 0) {
            if (r < 0 || value[0] == '\0')
                return cli_usage_error("prebuild", "--device needs a value");
            options.device = value;
        } else if (argv[i][0] == '-') {
            return cli_usage_error("prebuild", "unknown option '%s'", argv[i]);
        } else {
            return cli_usage_error("prebuild", "unexpected argument '%s'", argv[i]);
        }
    }

    clmax_context *ctx = NULL;
    clmax_status s = clmax_context_create(&options, &ctx);
    if (s != CLMAX_OK || clmax_context_backend(ctx) != CLMAX_BACKEND_OPENCL) {
        /* Why: the creation's error, auto's warning (no device, or none matches --device), or
         * else CLMAX_BACKEND, which sends auto to the CPU path without trying a device. */
        const char *why = s != CLMAX_OK ? clmax_last_error() : clmax_context_warnings(ctx);
        const char *env = getenv("CLMAX_BACKEND");
        if (why[0] != '\0')
            fprintf(stderr, "clmax prebuild: no OpenCL device to build for: %s%s", why,
                    why[strlen(why) - 1] == '\n' ? "" : "\n");
        else
            fprintf(stderr, "clmax prebuild: no OpenCL device to build for: CLMAX_BACKEND=%s\n",
                    env ? env : "cpu");
        clmax_context_destroy(ctx);
        return CLI_EXIT_REFUSED;
    }
    int terminal = isatty(2);
    build.progress = show_progress;
    build.user = &terminal;
    clmax_prebuild_report report;
    double t0 = now_s();
    s = clmax_context_prebuild(ctx, &build, &report);
    double seconds = now_s() - t0;
    if (terminal && report.programs > 0) fprintf(stderr, "\r\033[K");
    int code = CLI_EXIT_OK;
    if (s != CLMAX_OK) {
        fprintf(stderr, "clmax prebuild: %s: %s\n", clmax_context_device_name(ctx),
                clmax_last_error());
        code = CLI_EXIT_REFUSED;
    } else {
        printf("%s: %zu programs ready in %.1f s: %zu built now, %zu read back from the "
               "program cache\n",
               clmax_context_device_name(ctx), report.programs, seconds, report.compiled,
               report.from_cache);
        const char *warnings = clmax_context_warnings(ctx);
        if (warnings[0] != '\0')
            fprintf(stderr, "clmax prebuild: %s", warnings); /* e.g. the cache folder not used */
        if (verbose) {
            printf("types:");
            for (size_t k = 0; k < (ntypes ? ntypes : NTYPES); k++)
                printf(" %s", clmax_type_name(ntypes ? types[k] : every_type[k]));
            printf("\n");
        }
    }
    clmax_context_destroy(ctx);
    return code;
}
