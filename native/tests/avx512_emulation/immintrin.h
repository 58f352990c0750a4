/* immintrin.h for the emulated AVX-512 build: the AVX-512 kernel files, compiled with only -mavx2 -mfma
 * -mf16c and this folder first on the include path, get AVX-512 from SIMDe (SIMD Everywhere, Debian's
 * libsimde-dev), so a CPU without AVX-512 runs them, slowly, and the tests check what they compute. qemu-user
 * does not emulate AVX-512, and no AVX-512 machine is at hand in CI.
 *
 * The real header comes first, for the SSE/AVX2 intrinsics the kernels mix in; SIMDe's native aliases then
 * rename every _mm512_* (and AVX-512VL/BW _mm*_mask*) call to its portable version. SIMDe 0.7.4 lacks a few
 * that the kernels call; they are below, element by element. The masked loads and stores touch only the
 * lanes their mask selects, as the hardware does (it suppresses faults on the others): the kernel tests put
 * a no-access page after every buffer, so a version that read the whole vector would crash where the CPU
 * does not. */
#pragma GCC system_header /* #include_next is a GNU extension, and SIMDe's headers are not ours to warn on */
#include_next <immintrin.h>

#ifndef RL_AVX512_EMULATION_H
#define RL_AVX512_EMULATION_H

#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#define RL_EMU static inline __attribute__((unused))

RL_EMU void rl_emu_mask_store_bytes(void *p, uint64_t mask, const void *lanes, size_t lane_bytes, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if ((mask >> i) & 1) memcpy((char *)p + i * lane_bytes, (const char *)lanes + i * lane_bytes, lane_bytes);
}

RL_EMU void rl_emu_maskz_load_bytes(void *lanes, uint64_t mask, const void *p, size_t lane_bytes, size_t n) {
    memset(lanes, 0, lane_bytes * n);
    for (size_t i = 0; i < n; ++i)
        if ((mask >> i) & 1) memcpy((char *)lanes + i * lane_bytes, (const char *)p + i * lane_bytes, lane_bytes);
}

/* ---- masked stores ---- */
RL_EMU void rl_emu_mm512_mask_storeu_ps(void *p, simde__mmask16 k, simde__m512 a) {
    float lanes[16];
    simde_mm512_storeu_ps(lanes, a);
    rl_emu_mask_store_bytes(p, k, lanes, 4, 16);
}
RL_EMU void rl_emu_mm256_mask_storeu_ps(void *p, simde__mmask8 k, simde__m256 a) {
    float lanes[8];
    simde_mm256_storeu_ps(lanes, a);
    rl_emu_mask_store_bytes(p, k, lanes, 4, 8);
}
RL_EMU void rl_emu_mm256_mask_storeu_epi8(void *p, simde__mmask32 k, simde__m256i a) {
    int8_t lanes[32];
    simde_mm256_storeu_si256((simde__m256i *)lanes, a);
    rl_emu_mask_store_bytes(p, k, lanes, 1, 32);
}
RL_EMU void rl_emu_mm_mask_storeu_epi8(void *p, simde__mmask16 k, simde__m128i a) {
    int8_t lanes[16];
    simde_mm_storeu_si128((simde__m128i *)lanes, a);
    rl_emu_mask_store_bytes(p, k, lanes, 1, 16);
}

/* ---- zero-masked loads ---- */
RL_EMU simde__m512 rl_emu_mm512_maskz_loadu_ps(simde__mmask16 k, const void *p) {
    float lanes[16];
    rl_emu_maskz_load_bytes(lanes, k, p, 4, 16);
    return simde_mm512_loadu_ps(lanes);
}
RL_EMU simde__m512i rl_emu_mm512_maskz_loadu_epi32(simde__mmask16 k, const void *p) {
    int32_t lanes[16];
    rl_emu_maskz_load_bytes(lanes, k, p, 4, 16);
    return simde_mm512_loadu_si512(lanes);
}
RL_EMU simde__m512i rl_emu_mm512_maskz_loadu_epi8(simde__mmask64 k, const void *p) {
    int8_t lanes[64];
    rl_emu_maskz_load_bytes(lanes, k, p, 1, 64);
    return simde_mm512_loadu_si512(lanes);
}
RL_EMU simde__m256i rl_emu_mm256_maskz_loadu_epi8(simde__mmask32 k, const void *p) {
    int8_t lanes[32];
    rl_emu_maskz_load_bytes(lanes, k, p, 1, 32);
    return simde_mm256_loadu_si256((const simde__m256i *)lanes);
}
RL_EMU simde__m128i rl_emu_mm_maskz_loadu_epi8(simde__mmask16 k, const void *p) {
    int8_t lanes[16];
    rl_emu_maskz_load_bytes(lanes, k, p, 1, 16);
    return simde_mm_loadu_si128((const simde__m128i *)lanes);
}

/* ---- estimates ---- */
/* vrsqrt14ps's estimate is specified to the bit but only by Intel's table-driven reference; 1 / sqrtf(x) is
 * within its 2^-14 bound (and its 0, inf and NaN cases), so a kernel's Newton-Raphson step after it lands within
 * an ulp or two of the hardware's result, not on it. */
RL_EMU simde__m512 rl_emu_mm512_rsqrt14_ps(simde__m512 a) {
    float lanes[16];
    simde_mm512_storeu_ps(lanes, a);
    for (int i = 0; i < 16; ++i) lanes[i] = 1.0f / sqrtf(lanes[i]);
    return simde_mm512_loadu_ps(lanes);
}

/* ---- conversions, shifts and reductions ---- */
RL_EMU simde__m512 rl_emu_mm512_cvtepi32_ps(simde__m512i a) {
    int32_t in[16];
    float out[16];
    simde_mm512_storeu_si512(in, a);
    for (int i = 0; i < 16; ++i) out[i] = (float)in[i]; /* round to nearest even, as MXCSR's default */
    return simde_mm512_loadu_ps(out);
}
/* MXCSR's default rounding (to nearest, ties to even); NaN and out-of-range values give 0x80000000, the
 * "integer indefinite" value. */
RL_EMU simde__m512i rl_emu_mm512_cvtps_epi32(simde__m512 a) {
    float in[16];
    int32_t out[16];
    simde_mm512_storeu_ps(in, a);
    for (int i = 0; i < 16; ++i) {
        const float r = nearbyintf(in[i]);
        out[i] = (r >= -2147483648.0f && r < 2147483648.0f) ? (int32_t)r : INT32_MIN;
    }
    return simde_mm512_loadu_si512(out);
}
RL_EMU simde__m512i rl_emu_mm512_cvtepi8_epi32(simde__m128i a) {
    int8_t in[16];
    int32_t out[16];
    simde_mm_storeu_si128((simde__m128i *)in, a);
    for (int i = 0; i < 16; ++i) out[i] = in[i];
    return simde_mm512_loadu_si512(out);
}
RL_EMU simde__m256 rl_emu_mm512_extractf32x8_ps(simde__m512 a, int imm) {
    float in[16];
    simde_mm512_storeu_ps(in, a);
    return simde_mm256_loadu_ps(in + 8 * (imm & 1));
}
/* The count is the low 64 bits of b; above 31 every lane becomes its sign. */
RL_EMU simde__m512i rl_emu_mm512_sra_epi32(simde__m512i a, simde__m128i b) {
    int32_t in[16];
    uint64_t count;
    simde_mm512_storeu_si512(in, a);
    simde_mm_storel_epi64((simde__m128i *)&count, b);
    for (int i = 0; i < 16; ++i) in[i] = count > 31 ? (in[i] < 0 ? -1 : 0) : (int32_t)(in[i] >> count);
    return simde_mm512_loadu_si512(in);
}
RL_EMU int rl_emu_mm512_reduce_add_epi32(simde__m512i a) {
    int32_t in[16];
    uint32_t sum = 0; /* wraps, as the vector adds do */
    simde_mm512_storeu_si512(in, a);
    for (int i = 0; i < 16; ++i) sum += (uint32_t)in[i];
    return (int)sum;
}

/* SIMDe 0.7.4 spells this alias with the masked form's four arguments, and has none for the two shuffles */
#undef _mm512_madd_epi16
#define _mm512_madd_epi16(a, b) simde_mm512_madd_epi16(a, b)
#define _mm512_shuffle_i64x2(a, b, imm) simde_mm512_shuffle_i64x2(a, b, imm)
#define _mm512_shuffle_f32x4(a, b, imm) simde_mm512_shuffle_f32x4(a, b, imm)

#define _mm512_mask_storeu_ps(p, k, a) rl_emu_mm512_mask_storeu_ps(p, k, a)
#define _mm256_mask_storeu_ps(p, k, a) rl_emu_mm256_mask_storeu_ps(p, k, a)
#define _mm256_mask_storeu_epi8(p, k, a) rl_emu_mm256_mask_storeu_epi8(p, k, a)
#define _mm_mask_storeu_epi8(p, k, a) rl_emu_mm_mask_storeu_epi8(p, k, a)
#define _mm512_maskz_loadu_ps(k, p) rl_emu_mm512_maskz_loadu_ps(k, p)
#define _mm512_maskz_loadu_epi32(k, p) rl_emu_mm512_maskz_loadu_epi32(k, p)
#define _mm512_maskz_loadu_epi8(k, p) rl_emu_mm512_maskz_loadu_epi8(k, p)
#define _mm256_maskz_loadu_epi8(k, p) rl_emu_mm256_maskz_loadu_epi8(k, p)
#define _mm_maskz_loadu_epi8(k, p) rl_emu_mm_maskz_loadu_epi8(k, p)
#define _mm512_rsqrt14_ps(a) rl_emu_mm512_rsqrt14_ps(a)
#define _mm512_cvtepi32_ps(a) rl_emu_mm512_cvtepi32_ps(a)
#define _mm512_cvtps_epi32(a) rl_emu_mm512_cvtps_epi32(a)
#define _mm512_cvtepi8_epi32(a) rl_emu_mm512_cvtepi8_epi32(a)
#define _mm512_extractf32x8_ps(a, imm) rl_emu_mm512_extractf32x8_ps(a, imm)
#define _mm512_sra_epi32(a, b) rl_emu_mm512_sra_epi32(a, b)
#define _mm512_reduce_add_epi32(a) rl_emu_mm512_reduce_add_epi32(a)

#endif
