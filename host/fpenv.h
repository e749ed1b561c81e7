/* The caller's floating-point environment across a public call. The CPU path's float compares
 * (short rows, float lanes, the row search's float max) run only in the default MXCSR mode
 * (CLMAX_FLOAT_MODE_OK, cpu/cpu_short.h) and raise its exception flags: a NaN "invalid", a
 * denormal "denormal operand". They leave them raised until the call returns: a compare that
 * sets a clear flag takes a microcode assist, and putting the flags back after every kernel made
 * each of them pay it again ([2^20, 4, 16] float32 lanes with a denormal in 100: 73 ms with the
 * flags clear at each kernel, 47 ms with them raised). The entry points (api.c) put the caller's
 * MXCSR back on return; the pool's threads are clmax's own and keep theirs. */
#ifndef CLMAX_FPENV_H
#define CLMAX_FPENV_H

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
static inline unsigned clmax_fp_save(void)
{
    return _mm_getcsr();
}
static inline void clmax_fp_restore(unsigned csr)
{
    if (_mm_getcsr() != csr) _mm_setcsr(csr);
}
#else
static inline unsigned clmax_fp_save(void)
{
    return 0;
}
static inline void clmax_fp_restore(unsigned csr)
{
    (void)csr;
}
#endif

#endif
