/* The planner on a device that ends a work-item's loops early (Mesa's llvmpipe: 65535 iterations,
 * all of a work-item's loops together). Every plan, of every strategy and shape, must keep one
 * work-item's loops (clmax_plan_item_loops) and the combine's within clmax_loop_budget, and still
 * cover the axis; the same plans on a device without a limit must exceed it somewhere, or this
 * test would not be testing anything. */
#include <criterion/criterion.h>

#include "plan.h"

static const uint64_t g_rows[] = {1, 3, 1000};
static const uint64_t g_n[] = {1,     2,     63,     64,      65,       1000,         32767,
                               65535, 65536, 100000, 1000003, 16777216, 4000000007ull};
static const uint64_t g_inner[] = {1, 2, 3, 17, 1000, 4097, 100000};
static const size_t g_elem[] = {1, 2, 4, 8};
static const clmax_strategy g_forced[] = {CLMAX_STRATEGY_AUTO, CLMAX_STRATEGY_ROWS,
                                          CLMAX_STRATEGY_STRIDED, CLMAX_STRATEGY_SPLIT};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* llvmpipe as rusticl reports it, planned as a CPU device or as a GPU (CLMAX_PLAN=gpu). */
static clmax_device_info device(int is_cpu, uint64_t loop_limit)
{
    clmax_device_info d = {0};
    d.is_cpu = is_cpu;
    d.native_cpu = 1;
    d.unified_memory = is_cpu;
    d.compute_units = 8;
    d.max_wg = 1024;
    d.max_alloc = 2ull << 30;
    d.local_mem = 32768;
    d.loop_limit = loop_limit;
    return d;
}

/* The combine pass's loops for pl, as clmax_cl_enqueue_box runs it on dev. */
static uint64_t combine_loops(const clmax_device_info *dev, const clmax_plan *pl)
{
    if (pl->nseg <= 1) return 0;
    uint64_t budget = clmax_loop_budget(dev);
    int group = pl->nseg + CLMAX_LOOP_SLACK > budget; /* GPUs may group earlier: fewer loops */
    return group ? (pl->nseg + pl->wg - 1) / pl->wg + CLMAX_LOOP_SLACK
                 : pl->nseg + CLMAX_LOOP_SLACK;
}

/* Plans every case on dev; returns how many exceed budget (each reported when report is set). */
static unsigned check_all(const clmax_device_info *dev, uint64_t budget, int report)
{
    unsigned over = 0, planned = 0;
    for (size_t r = 0; r < COUNT(g_rows); r++)
        for (size_t a = 0; a < COUNT(g_n); a++)
            for (size_t i = 0; i < COUNT(g_inner); i++)
                for (size_t e = 0; e < COUNT(g_elem); e++)
                    for (size_t f = 0; f < COUNT(g_forced); f++) {
                        uint64_t rows = g_rows[r], n = g_n[a], inner = g_inner[i];
                        clmax_plan pl =
                            clmax_plan_choose(dev, rows, n, inner, g_elem[e], g_forced[f]);
                        planned++;
                        cr_assert(pl.nseg >= 1 && pl.seg_len >= 1 && pl.nseg * pl.seg_len >= n &&
                                      (pl.nseg - 1) * pl.seg_len < n,
                                  "[%llu, %llu, %llu] x%zu: %llu segments of %llu do not cover "
                                  "the axis exactly",
                                  (unsigned long long)rows, (unsigned long long)n,
                                  (unsigned long long)inner, g_elem[e], (unsigned long long)pl.nseg,
                                  (unsigned long long)pl.seg_len);
                        uint64_t loops = clmax_plan_item_loops(&pl);
                        uint64_t comb = combine_loops(dev, &pl);
                        if (loops <= budget && comb <= budget) continue;
                        over++;
                        if (report)
                            cr_log_error("[%llu, %llu, %llu] x%zu forced %d: kernel %d, %llu "
                                         "segments of %llu: %llu loop steps, combine %llu, "
                                         "budget %llu",
                                         (unsigned long long)rows, (unsigned long long)n,
                                         (unsigned long long)inner, g_elem[e], (int)g_forced[f],
                                         (int)pl.kernel, (unsigned long long)pl.nseg,
                                         (unsigned long long)pl.seg_len, (unsigned long long)loops,
                                         (unsigned long long)comb, (unsigned long long)budget);
                    }
    cr_assert_eq(planned,
                 COUNT(g_rows) * COUNT(g_n) * COUNT(g_inner) * COUNT(g_elem) * COUNT(g_forced));
    return over;
}

static void within_limit(int is_cpu, uint64_t limit)
{
    clmax_device_info dev = device(is_cpu, limit);
    uint64_t budget = clmax_loop_budget(&dev);
    cr_assert_eq(budget, limit / 2);
    unsigned over = check_all(&dev, budget, 1);
    cr_expect_eq(over, 0, "%u plans exceed the loop budget of %llu", over,
                 (unsigned long long)budget);
    /* The same device without the limit: long axes are planned past it. */
    clmax_device_info free_dev = device(is_cpu, 0);
    cr_assert_eq(clmax_loop_budget(&free_dev), UINT64_MAX);
    cr_expect_gt(check_all(&free_dev, budget, 0), 0,
                 "no plan exceeds %llu loop steps without the limit: the cases are too small",
                 (unsigned long long)budget);
}

Test(plan, llvmpipe_cpu)
{
    within_limit(1, 65535);
}

Test(plan, llvmpipe_planned_as_gpu)
{
    within_limit(0, 65535);
}

Test(plan, smallest_kept_limit_cpu)
{
    within_limit(1, 16384); /* LOOP_LIMIT_MIN in host/opencl/cl_features.c */
}

Test(plan, smallest_kept_limit_gpu)
{
    within_limit(0, 16384);
}

/* A limit too high to matter leaves a contiguous axis's plan as it is without one. */
Test(plan, huge_limit_same_rows_plan)
{
    clmax_device_info dev = device(1, 0);
    clmax_plan a = clmax_plan_choose(&dev, 1000, 100000000, 1, 4, CLMAX_STRATEGY_AUTO);
    dev.loop_limit = 1ull << 40;
    clmax_plan b = clmax_plan_choose(&dev, 1000, 100000000, 1, 4, CLMAX_STRATEGY_AUTO);
    cr_expect_eq(a.kernel, b.kernel);
    cr_expect_eq(a.nseg, b.nseg);
    cr_expect_eq(a.seg_len, b.seg_len);
}
