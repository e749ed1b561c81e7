/* The cost model of auto's per-call choice (cost.h): two measured lines compared. */
#include "cost.h"

#include <math.h>
#include <string.h>

double clmax_cost_cpu_seconds(const clmax_cost_profile *pf, uint64_t bytes)
{
    return pf->cpu_call_s + (double)bytes / pf->cpu_bps;
}

double clmax_cost_device_seconds(const clmax_cost_profile *pf, uint64_t bytes)
{
    return pf->dev_call_s + (double)bytes / pf->dev_bps;
}

int clmax_cost_prefers_device(const clmax_cost_profile *pf, uint64_t bytes)
{
    return clmax_cost_device_seconds(pf, bytes) * CLMAX_COST_DEVICE_MARGIN <
           clmax_cost_cpu_seconds(pf, bytes);
}

static int positive(double v)
{
    return isfinite(v) && v > 0;
}

int clmax_cost_profile_valid(const clmax_cost_profile *pf)
{
    return positive(pf->cpu_call_s) && positive(pf->cpu_bps) && positive(pf->dev_call_s) &&
           positive(pf->dev_bps);
}

static void put(unsigned char *out, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    for (int i = 0; i < 8; i++)
        out[i] = (unsigned char)(u >> 8 * i);
}

static double get(const unsigned char *in)
{
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--)
        u = u << 8 | in[i];
    double v;
    memcpy(&v, &u, 8);
    return v;
}

void clmax_cost_profile_pack(const clmax_cost_profile *pf, unsigned char out[32])
{
    put(out, pf->cpu_call_s);
    put(out + 8, pf->cpu_bps);
    put(out + 16, pf->dev_call_s);
    put(out + 24, pf->dev_bps);
}

void clmax_cost_profile_unpack(const unsigned char in[32], clmax_cost_profile *pf)
{
    pf->cpu_call_s = get(in);
    pf->cpu_bps = get(in + 8);
    pf->dev_call_s = get(in + 16);
    pf->dev_bps = get(in + 24);
}
