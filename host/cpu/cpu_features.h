/* What this CPU's vector units can do, asked once and cached: every runtime choice of the CPU
 * path's AVX2 and AVX-512 code asks here (not the ifunc resolvers of GCC's target_clones, which
 * ask on their own). Compiled for any CPU and build (the thread sanitizer's too): where the
 * question cannot be asked (not x86-64, not GCC: the code that asks is GCC-only), no feature is
 * reported. */
#ifndef CLMAX_CPU_FEATURES_H
#define CLMAX_CPU_FEATURES_H

enum {
    CLMAX_CPU_AVX2 = 1u << 0,
    CLMAX_CPU_BMI_ABM = 1u << 1, /* BMI1 and LZCNT/POPCNT: the short rows' bit scans */
    CLMAX_CPU_AVX512BW = 1u << 2,
    CLMAX_CPU_AVX512VL = 1u << 3,
    CLMAX_CPU_AVX512FP16 = 1u << 4,
};

/* The CLMAX_CPU_* bits this CPU has. */
unsigned clmax_cpu_features(void);

/* Whether this CPU has every one of the CLMAX_CPU_* bits in want. */
static inline int clmax_cpu_has(unsigned want)
{
    return (clmax_cpu_features() & want) == want;
}

#endif
