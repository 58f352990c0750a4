/* f32_vlrelu__scalar.c — float32 LEAKY_RELU (kernels.h's rl_f32_vlrelu_fn), f32_leaky_relu_ref's arithmetic:
 * x > 0 ? x : x * alpha, so -0.0 and NaN take the product. */
#include "kernels.h"

void f32_vlrelu__scalar(size_t n, float alpha, const float *x, float *y) {
    for (size_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : x[i] * alpha;
}
