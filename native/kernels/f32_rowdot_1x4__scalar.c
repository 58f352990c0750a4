/* f32_rowdot_1x4__scalar.c — the float32 row-dot specification (rowdot.h): each output starts from its bias and
 * adds x[k] * w[n][k] for k ascending, rounding after the multiply and after the add, exactly as the scalar GEMM
 * does, so the scalar path's FULLY_CONNECTED gives the same floats whichever of the two runs it. Four weight rows
 * per step; a last block of fewer computes only its own rows. */
#include "rowdot.h"

enum { NR = 4 };

void f32_rowdot_1x4__scalar(size_t m, size_t nc, size_t kc, const float *x, size_t x_stride, const float *w,
                            const float *bias, float *y, size_t y_stride, const rl_f32_minmax_params *params) {
    const float vmin = params->min, vmax = params->max;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t rows = nc - n0 < NR ? nc - n0 : NR;
        const float *wn = w + n0 * kc;
        for (size_t i = 0; i < m; ++i) {
            const float *xi = x + i * x_stride;
            float acc[NR];
            for (size_t j = 0; j < rows; ++j) acc[j] = bias ? bias[n0 + j] : 0.0f;
            for (size_t k = 0; k < kc; ++k)
                for (size_t j = 0; j < rows; ++j) acc[j] += xi[k] * wn[j * kc + k];
            for (size_t j = 0; j < rows; ++j) {
                float v = acc[j];
                v = v < vmin ? vmin : v;
                v = v > vmax ? vmax : v;
                y[i * y_stride + n0 + j] = v;
            }
        }
    }
}
