/* f32_unary__avx2.c — LOGISTIC built with -mfma: f32_sigmoid_as_xnnpack_avx2's five fmaf calls become
 * instructions (the libm calls made the reference 2.4x slower than the expf formula it replaced). The same
 * code as the reference's, so the same bits; the other ops are the reference's. */
#include "f32_unary.h"

void f32_unary__avx2(rl_unary_op op, int64_t count, const float *x, float *y) {
    if (op != RL_UN_LOGISTIC) {
        f32_unary_ref(op, count, x, y);
        return;
    }
    for (int64_t i = 0; i < count; ++i) y[i] = f32_sigmoid_as_xnnpack_avx2(x[i]);
}
