/* f32_unary__neon.c — HARD_SWISH eight values a step, NEON (aarch64 and armv7); every other op through
 * f32_unary_ref. XNNPACK's vhswish, which LiteRT's default Interpreter delegates float HARD_SWISH to:
 * x * min(max(fma(x, 1/6, 0.5), 0), 1). The fused multiply-add is the reference's double-precision product and
 * sum rounded once (f32_unary_ref.c); max and min pass a NaN on (the reference's compares make it 0, and x's NaN
 * then wins the product either way), so aarch64 gives the reference's bits. armv7's NEON flushes subnormals to
 * zero: a subnormal x gives 0 there instead of x / 2, far below the float tolerance. The reference's two passes
 * over a block, vectorised by gcc through double lanes, cost 4.9M instructions of MobileNetV3-small's 37M per
 * invoke on aarch64 (XNNPACK 1.6M). */
#include "f32_exp__neon.h"
#include "f32_unary.h"

static inline float32x4_t hard_swish4(float32x4_t x) {
    float32x4_t t = RL_NEON_MULADD(vdupq_n_f32(0.5f), x, vdupq_n_f32(1.0f / 6.0f));
    t = vminq_f32(vmaxq_f32(t, vdupq_n_f32(0.0f)), vdupq_n_f32(1.0f));
    return vmulq_f32(x, t);
}

static void hard_swish(size_t n, const float *x, float *y) {
    for (; n >= 8; n -= 8, x += 8, y += 8) {
        const float32x4x2_t v = rl_neon_load8(x);
        rl_neon_store8(y, hard_swish4(v.val[0]), hard_swish4(v.val[1]));
    }
    if (n >= 4) {
        vst1q_f32(y, hard_swish4(vld1q_f32(x)));
        n -= 4, x += 4, y += 4;
    }
    if (n != 0) rl_neon_store_tail(y, hard_swish4(rl_neon_load_tail(x, n)), n);
}

void f32_unary__neon(rl_unary_op op, int64_t count, const float *x, float *y) {
    if (op == RL_UN_HARD_SWISH && count > 0) {
        hard_swish((size_t)count, x, y);
        return;
    }
    f32_unary_ref(op, count, x, y);
}
