/* f32_vecmat__scalar.c — the float32 row-times-matrix specification (rowdot.h): each output starts from 0 and
 * adds x[k] * w[k][n] for k ascending, rounding after the multiply and after the add, as the scalar GEMM does,
 * so the scalar path's BATCH_MATMUL gives the same floats whichever of the two runs it. The loop over n is
 * innermost: a row of w is read once, in order, and each output keeps its own k order. */
#include "rowdot.h"

void f32_vecmat__scalar(size_t kc, size_t nc, const float *x, const float *w, size_t w_stride, float *y) {
    for (size_t n = 0; n < nc; ++n) y[n] = 0.0f;
    for (size_t k = 0; k < kc; ++k) {
        const float xk = x[k];
        const float *wk = w + k * w_stride;
        for (size_t n = 0; n < nc; ++n) y[n] += xk * wk[n];
    }
}
