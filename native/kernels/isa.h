/* isa.h — the instruction-set paths librillet has kernels for. Dispatch (src/cpu_features.c) picks the best
 * one the CPU and OS support, or the one RILLET_ISA names; each kernel family maps a path to its config. */
#ifndef RILLET_ISA_H
#define RILLET_ISA_H

typedef enum {
    RL_ISA_SCALAR = 0,      /* portable C: the specification, on every CPU */
    RL_ISA_AVX2 = 1,        /* x86-64 AVX2 + FMA */
    RL_ISA_AVX512 = 2,      /* x86-64 AVX-512 F, BW, DQ, VL */
    RL_ISA_AVX512VNNI = 3,  /* the above with VNNI dot products */
    RL_ISA_NEON = 4,        /* aarch64 / armv7 NEON */
    RL_ISA_NEONDOT = 5      /* aarch64 with the dot-product extension */
} rl_isa;

/* Whether this build links NEON kernels: build_config.py builds the __neon / __neondot files for aarch64 and for
 * 32-bit Arm compiled for armv7 or later; an armv6 build (the Pi Zero) has only the scalar path, even when it
 * runs on a CPU with NEON. */
#if defined(__aarch64__) || (defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7)
#define RL_HAVE_NEON_KERNELS 1
#else
#define RL_HAVE_NEON_KERNELS 0
#endif

#endif
