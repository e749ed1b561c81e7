/* The CPU's vector features, asked of the CPU once (cpuid, through GCC's builtins). */
#include "cpu_features.h"

#include <stdatomic.h>

#define KNOWN (1u << 31) /* set once asked, so that a CPU with none of the bits asks only once */

unsigned clmax_cpu_features(void)
{
    static atomic_uint known;
    unsigned f = atomic_load_explicit(&known, memory_order_relaxed);
    if (f & KNOWN) return f & ~KNOWN;
    f = KNOWN;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) f |= CLMAX_CPU_AVX2;
    if (__builtin_cpu_supports("bmi") && __builtin_cpu_supports("abm")) f |= CLMAX_CPU_BMI_ABM;
    if (__builtin_cpu_supports("avx512bw")) f |= CLMAX_CPU_AVX512BW;
    if (__builtin_cpu_supports("avx512vl")) f |= CLMAX_CPU_AVX512VL;
#if __GNUC__ >= 12
    if (__builtin_cpu_supports("avx512fp16")) f |= CLMAX_CPU_AVX512FP16;
#endif
#endif
    atomic_store_explicit(&known, f, memory_order_relaxed);
    return f & ~KNOWN;
}
