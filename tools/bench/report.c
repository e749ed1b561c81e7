/* The report: a readable table (default), JSON (--json) or CSV (--csv). */
#include "bench.h"

#include <stdio.h>
#include <string.h>

int bench_row_meets(const bench_row *r)
{
    if (r->failed || r->target <= 0) return -1;
    if (r->kind == 0) return r->ratio >= r->target;
    return r->op_s < r->target;
}

static const char *verdict(const bench_row *r)
{
    if (r->failed) return "FAILED";
    switch (bench_row_meets(r)) {
    case 1:
        return "ok";
    case 0:
        return "MISS";
    default:
        return "";
    }
}

#define CLMEM_BASELINE "the same kernels on the device buffers (no host copies)"

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* The 1-minute load average, or -1: on a shared machine it says how much the figures can trust. */
static double load_average(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f == NULL) return -1;
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
    return l;
}

static const char *kind_name(int kind)
{
    return kind == 0 ? "throughput" : kind == 1 ? "latency" : "first_call";
}

static void report_json(const bench_opts *o, const bench_env *e, const bench_row *rows, int n)
{
    FILE *f = stdout;
    fprintf(f, "{\n  \"version\": \"%s\",\n  \"size_mib\": %llu,\n  \"reps\": %d,\n",
            clmax_version_string(), (unsigned long long)(o->size_bytes >> 20), o->reps);
    fprintf(f, "  \"online_cores\": %d,\n  \"load_average_1min\": %.2f,\n", bench_online_cores(),
            load_average());
    fprintf(f, "  \"host_buffer_bytes\": %llu,\n  \"host_huge_page_bytes\": %llu,\n",
            (unsigned long long)e->host_bytes, (unsigned long long)e->host_huge);
    fprintf(f, "  \"devices\": {\"opencl\": ");
    if (e->ctx[BK_OPENCL])
        json_string(f, clmax_context_device_name(e->ctx[BK_OPENCL]));
    else
        fprintf(f, "null");
    fprintf(f, ", \"cpu\": ");
    json_string(f, e->ctx[BK_CPU] ? clmax_context_device_name(e->ctx[BK_CPU]) : "");
    fprintf(f, ", \"cl_mem\": ");
    if (e->ctx[BK_CLMEM])
        json_string(f, clmax_context_device_name(e->ctx[BK_CLMEM]));
    else
        fprintf(f, "null");
    fprintf(f, "},\n  \"baselines\": {\"opencl\": ");
    if (e->cl)
        json_string(f, bench_cl_describe(e->cl));
    else
        fprintf(f, "null");
    fprintf(f,
            ", \"cpu\": \"%d threads summing 64-bit words (read+write: x ^ c, streaming "
            "stores)\", \"cl_mem\": ",
            e->cpu_threads);
    if (e->ctx[BK_CLMEM])
        json_string(f, CLMEM_BASELINE);
    else
        fprintf(f, "null");
    fprintf(f, "},\n  \"rows\": [");
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        fprintf(f, "%s\n    {\"kind\": \"%s\", \"class\": %d, \"case\": ", i ? "," : "",
                kind_name(r->kind), r->cls);
        json_string(f, r->name);
        fprintf(f,
                ", \"op\": \"%s\", \"type\": \"%s\", \"shape\": \"%s\", \"axis\": %lld, "
                "\"backend\": \"%s\", \"bytes\": %llu, \"failed\": %s",
                r->op, r->type, r->shape, (long long)r->axis, r->backend,
                (unsigned long long)r->bytes, r->failed ? "true" : "false");
        if (!r->failed && r->kind == 0)
            fprintf(f,
                    ", \"op_seconds\": %.6g, \"baseline_seconds\": %.6g, \"op_gbs\": %.4g, "
                    "\"baseline_gbs\": %.4g, \"ratio\": %.4f",
                    r->op_s, r->base_s, r->op_gbs, r->base_gbs, r->ratio);
        else if (!r->failed)
            fprintf(f, ", \"seconds\": %.6g", r->op_s);
        if (r->target > 0) {
            fprintf(f, ", \"%s\": %.6g", r->kind == 0 ? "target_ratio" : "target_seconds",
                    r->target);
            if (!r->failed)
                fprintf(f, ", \"meets_target\": %s", bench_row_meets(r) ? "true" : "false");
        }
        if (r->note[0]) {
            fprintf(f, ", \"note\": ");
            json_string(f, r->note);
        }
        fputc('}', f);
    }
    fprintf(f, "\n  ]\n}\n");
}

static void report_csv(const bench_row *rows, int n)
{
    FILE *f = stdout;
    fprintf(f, "kind,class,case,op,type,shape,axis,backend,bytes,op_seconds,baseline_seconds,"
               "op_gbs,baseline_gbs,ratio,target,meets_target,note\n");
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        fprintf(f, "%s,%d,\"%s\",%s,%s,\"%s\",%lld,%s,%llu,", kind_name(r->kind), r->cls, r->name,
                r->op, r->type, r->shape, (long long)r->axis, r->backend,
                (unsigned long long)r->bytes);
        if (r->failed)
            fprintf(f, ",,,,,");
        else if (r->kind == 0)
            fprintf(f, "%.6g,%.6g,%.4g,%.4g,%.4f,", r->op_s, r->base_s, r->op_gbs, r->base_gbs,
                    r->ratio);
        else
            fprintf(f, "%.6g,,,,,", r->op_s);
        if (r->target > 0)
            fprintf(f, "%.6g,%s", r->target,
                    r->failed            ? ""
                    : bench_row_meets(r) ? "true"
                                         : "false");
        else
            fprintf(f, ",");
        fprintf(f, ",\"%s\"\n", r->note);
    }
}

static void report_table(const bench_opts *o, const bench_env *e, const bench_row *rows, int n)
{
    FILE *f = stdout;
    fprintf(f, "clmax-bench %s: %llu MiB per throughput case, median of %d runs after a warm-up\n",
            clmax_version_string(), (unsigned long long)(o->size_bytes >> 20), o->reps);
    if (e->ctx[BK_OPENCL] && o->backends[BK_OPENCL])
        fprintf(f, "opencl: %s\n        baseline: %s\n",
                clmax_context_device_name(e->ctx[BK_OPENCL]),
                e->cl ? bench_cl_describe(e->cl) : "none");
    if (e->ctx[BK_CLMEM] && o->backends[BK_CLMEM])
        fprintf(f, "cl_mem: %s, the enqueue API%s\n        baseline: %s\n",
                clmax_context_device_name(e->ctx[BK_CLMEM]),
                bench_clmem_fits(e->clmem, o->size_bytes)
                    ? ""
                    : "\n        (no throughput rows: --size is more than its largest buffer)",
                CLMEM_BASELINE);
    if (e->ctx[BK_CPU] && o->backends[BK_CPU])
        fprintf(f,
                "cpu:    %s\n        baseline: %d threads summing 64-bit words (read+write: "
                "x ^ c, streaming stores)\n",
                clmax_context_device_name(e->ctx[BK_CPU]), e->cpu_threads);
    fprintf(f, "host:   %d online cores, load average %.2f (1 min) at the end of the run\n",
            bench_online_cores(), load_average());
    if (e->host_bytes)
        fprintf(f, "        host buffers: %llu of %llu MiB in huge pages (%s)\n",
                (unsigned long long)(e->host_huge >> 20), (unsigned long long)(e->host_bytes >> 20),
                o->small_pages ? "--small-pages" : "madvise(MADV_HUGEPAGE)");
    fprintf(f, "GB/s = input bytes / time (1 GB = 1e9 bytes); ratio = operator / baseline of "
               "the same backend,\n        median over the runs of each back-to-back pair's "
               "ratio (so not always op GB/s / base GB/s)\n");

    int header = 0;
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        if (r->kind != 0) continue;
        if (!header) {
            fprintf(f, "\n%-5s %-17s %-8s %-7s %-20s %4s %-6s %8s %8s %9s %6s %6s\n", "class",
                    "case", "type", "op", "shape", "axis", "backend", "op ms", "op GB/s",
                    "base GB/s", "ratio", "target");
            header = 1;
        }
        fprintf(f, "%-5d %-17s %-8s %-7s %-20s %4lld %-7s", r->cls, r->name, r->type, r->op,
                r->shape, (long long)r->axis, r->backend);
        if (r->failed)
            fprintf(f, " %8s %8s %9s %6s %6.2f  FAILED\n", "-", "-", "-", "-", r->target);
        else
            fprintf(f, " %8.2f %8.2f %9.2f %6.2f %6.2f  %s%s%s\n", r->op_s * 1e3, r->op_gbs,
                    r->base_gbs, r->ratio, r->target, verdict(r), r->note[0] ? "  " : "", r->note);
    }

    header = 0;
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        if (r->kind == 0) continue;
        if (!header) {
            fprintf(f, "\n%-5s %-24s %-12s %-7s %13s %13s\n", "class", "ArgMax float32 axis -1",
                    "shape", "backend", "time", "target");
            header = 1;
        }
        /* Warm calls in microseconds, first calls in milliseconds. */
        double scale = r->kind == 1 ? 1e6 : 1e3;
        const char *unit = r->kind == 1 ? "us" : "ms";
        char target[32] = "";
        if (r->target > 0) snprintf(target, sizeof target, "< %g %s", r->target * scale, unit);
        fprintf(f, "%-5d %-24s %-12s %-7s", r->cls, r->name, r->shape, r->backend);
        if (r->failed)
            fprintf(f, " %13s %13s  FAILED\n", "-", target);
        else
            fprintf(f, " %10.*f %s %13s  %s%s%s\n", r->kind == 1 ? 1 : 2, r->op_s * scale, unit,
                    target, verdict(r), verdict(r)[0] ? "  " : "", r->note);
    }

    int met = 0, missed = 0;
    for (int i = 0; i < n; i++) {
        int m = bench_row_meets(&rows[i]);
        met += m == 1;
        missed += m == 0;
    }
    fprintf(f, "\ntargets: %d met, %d missed\n", met, missed);
}

void bench_report(const bench_opts *o, const bench_env *e, const bench_row *rows, int nrows)
{
    if (o->format == BENCH_JSON)
        report_json(o, e, rows, nrows);
    else if (o->format == BENCH_CSV)
        report_csv(rows, nrows);
    else
        report_table(o, e, rows, nrows);
    fflush(stdout);
}
