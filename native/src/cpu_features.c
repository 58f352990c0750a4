/* cpu_features.c — reads the CPU's features once per plan: cpuid and XGETBV on x86-64, HWCAP on Arm.
 *
 * AVX and AVX-512 need the OS to save their registers on a context switch, which XGETBV reports; a CPU
 * that has the instructions under an OS that does not enable them must take a narrower path. */
#include <string.h>

#include "cpu_features.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>

static unsigned long long xgetbv0(void) {
    unsigned int lo, hi;
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0)); /* xgetbv, for old assemblers */
    return ((unsigned long long)hi << 32) | lo;
}

static rl_isa detect_x86(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return RL_ISA_SCALAR;
    const int osxsave = (ecx >> 27) & 1, fma = (ecx >> 12) & 1, avx = (ecx >> 28) & 1;
    if (!osxsave || !avx) return RL_ISA_SCALAR;
    const unsigned long long xcr0 = xgetbv0();
    if ((xcr0 & 0x6) != 0x6) return RL_ISA_SCALAR; /* XMM and YMM state */
    if (__get_cpuid_max(0, NULL) < 7) return RL_ISA_SCALAR;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    const int avx2 = (ebx >> 5) & 1;
    const int avx512f = (ebx >> 16) & 1, avx512dq = (ebx >> 17) & 1, avx512bw = (ebx >> 30) & 1,
              avx512vl = (ebx >> 31) & 1, vnni = (ecx >> 11) & 1;
    if (!avx2 || !fma) return RL_ISA_SCALAR;
#ifdef RL_EMULATED_AVX512
    /* The emulated build (native/tests/avx512_emulation, for tests only): its AVX-512 files need only AVX2 */
    (void)avx512f, (void)avx512dq, (void)avx512bw, (void)avx512vl, (void)vnni;
    return RL_ISA_AVX512VNNI;
#endif
    const int zmm_state = (xcr0 & 0xe6) == 0xe6; /* opmask, ZMM_Hi256, Hi16_ZMM */
    if (zmm_state && avx512f && avx512dq && avx512bw && avx512vl) return vnni ? RL_ISA_AVX512VNNI : RL_ISA_AVX512;
    return RL_ISA_AVX2;
}
#endif

#if RL_HAVE_NEON_KERNELS && defined(__linux__)
#include <sys/auxv.h>
/* The kernel's HWCAP bits (asm/hwcap.h), spelled out: older libc headers lack the names. */
static rl_isa detect_arm(void) {
    const unsigned long hwcap = getauxval(AT_HWCAP);
#if defined(__aarch64__)
    return (hwcap & (1UL << 20)) ? RL_ISA_NEONDOT : RL_ISA_NEON; /* HWCAP_ASIMDDP; Advanced SIMD is baseline */
#else
    return (hwcap & (1UL << 12)) ? RL_ISA_NEON : RL_ISA_SCALAR; /* HWCAP_NEON: armv7 without it exists */
#endif
}
#endif

rl_isa rl_detect_isa(void) {
#if defined(__x86_64__) || defined(_M_X64)
    return detect_x86();
#elif RL_HAVE_NEON_KERNELS && defined(__linux__)
    return detect_arm();
#elif RL_HAVE_NEON_KERNELS && defined(__aarch64__)
    return RL_ISA_NEON;
#else
    return RL_ISA_SCALAR;
#endif
}

int rl_isa_supported(rl_isa isa) {
    const rl_isa best = rl_detect_isa();
    if (isa == RL_ISA_SCALAR) return 1;
    if (isa >= RL_ISA_AVX2 && isa <= RL_ISA_AVX512VNNI) return best >= RL_ISA_AVX2 && best <= RL_ISA_AVX512VNNI && isa <= best;
    if (isa == RL_ISA_NEON) return best == RL_ISA_NEON || best == RL_ISA_NEONDOT;
    if (isa == RL_ISA_NEONDOT) return best == RL_ISA_NEONDOT;
    return 0;
}

static const char *const isa_names[] = {
    [RL_ISA_SCALAR] = "scalar", [RL_ISA_AVX2] = "avx2", [RL_ISA_AVX512] = "avx512",
    [RL_ISA_AVX512VNNI] = "avx512vnni", [RL_ISA_NEON] = "neon", [RL_ISA_NEONDOT] = "neondot",
};

const char *rl_isa_name(rl_isa isa) {
    return ((int)isa >= 0 && (size_t)isa < sizeof isa_names / sizeof isa_names[0]) ? isa_names[isa] : NULL;
}

int rl_isa_parse(const char *name) {
    if (strcmp(name, "ref") == 0) return RL_ISA_SCALAR;
    for (size_t i = 0; i < sizeof isa_names / sizeof isa_names[0]; ++i)
        if (strcmp(name, isa_names[i]) == 0) return (int)i;
    return -1;
}
