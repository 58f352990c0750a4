/* s32_s8_requantize_fixedpoint__scalar.c — the specification of requantize_fixedpoint.h, and the kernel table's
 * choice for a path (rl_s32_s8_requantize_fixedpoint_for). */
#include "quant.h"
#include "requantize_fixedpoint.h"

void s32_s8_requantize_fixedpoint__scalar(size_t n, const int32_t *acc, int32_t multiplier, int32_t shift,
                                          int32_t zero_point, int32_t lo, int32_t hi, int8_t *out) {
    for (size_t i = 0; i < n; ++i)
        out[i] = (int8_t)rl_clamp_i32(rl_mul_by_quantized_multiplier(acc[i], multiplier, shift) + zero_point, lo, hi);
}

rl_s32_s8_requantize_fn rl_s32_s8_requantize_fixedpoint_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return s32_s8_requantize_fixedpoint__avx2;
#elif RL_HAVE_NEON_KERNELS
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return s32_s8_requantize_fixedpoint__neon;
#endif
    (void)isa;
    return s32_s8_requantize_fixedpoint__scalar;
}
