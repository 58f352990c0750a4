/* f32_gemm_4x4__scalar.c — the float32 GEMM specification: every SIMD kernel must give these results.
 *
 * Each output starts from its packed bias and adds a[k] * w[k] for k ascending, rounding after the multiply
 * and after the add (no fused multiply-add, which baseline x86-64 lacks); SIMD kernels fuse them and so
 * agree within a few ulps of the sum of |terms|. Rows past mr are never read: their pointers repeat the
 * last valid row, whose results are then computed twice and stored once. */
#include "f32_microkernels.h"

enum { MR = 4, NR = 4 };

void f32_gemm_4x4__scalar(size_t mr, size_t nc, size_t kc, const float *a, size_t a_stride, const float *w,
                          float *c, size_t c_stride, const rl_f32_minmax_params *params) {
    const float *rows[MR];
    float *out[MR];
    for (size_t i = 0; i < MR; ++i) {
        const size_t row = i < mr ? i : mr - 1;
        rows[i] = a + row * a_stride;
        out[i] = c + row * c_stride;
    }
    const float vmin = params->min, vmax = params->max;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        float acc[MR][NR];
        for (size_t i = 0; i < MR; ++i)
            for (size_t j = 0; j < NR; ++j) acc[i][j] = w[j];
        w += NR;
        for (size_t k = 0; k < kc; ++k) {
            for (size_t i = 0; i < MR; ++i) {
                const float ak = rows[i][k];
                for (size_t j = 0; j < NR; ++j) acc[i][j] += ak * w[j];
            }
            w += NR;
        }
        const size_t cols = nc - n0 < NR ? nc - n0 : NR;
        for (size_t i = 0; i < mr; ++i) {
            for (size_t j = 0; j < cols; ++j) {
                float v = acc[i][j];
                v = v < vmin ? vmin : v;
                v = v > vmax ? vmax : v;
                out[i][n0 + j] = v;
            }
        }
    }
}
