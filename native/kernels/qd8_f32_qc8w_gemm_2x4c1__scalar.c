/* qd8_f32_qc8w_gemm_2x4c1__scalar.c — hybrid GEMM (int8 rows quantized per row, per-channel int8 weights,
 * float32 out), 2 rows x 4 columns, kr 1: the specification every other qd8 GEMM kernel reproduces bit for
 * bit (qd8_gemm.h gives the arithmetic). Sums run in uint32: they wrap modulo 2^32 like XNNPACK's. */
#include <math.h>
#include <string.h>

#include "qd8_gemm.h"

enum { MR = 2, NR = 4 };

void qd8_f32_qc8w_gemm_2x4c1__scalar(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                     const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                     const rl_f32_minmax_params *params) {
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t cols = nc - n0 < NR ? nc - n0 : NR;
        uint32_t ksum[NR];
        float scale[NR], bias[NR];
        memcpy(ksum, panel, sizeof ksum);
        const signed char *wk = (const signed char *)(panel + sizeof ksum);
        memcpy(scale, wk + kc * NR, sizeof scale);
        memcpy(bias, wk + kc * NR + sizeof scale, sizeof bias);
        for (size_t i = 0; i < mr && i < MR; ++i) {
            const int8_t *row = a + i * a_stride;
            uint32_t acc[NR];
            for (size_t j = 0; j < NR; ++j) acc[j] = 0u - (uint32_t)rows[i].zero_point * ksum[j];
            for (size_t k = 0; k < kc; ++k)
                for (size_t j = 0; j < NR; ++j) acc[j] += (uint32_t)((int32_t)row[k] * (int32_t)wk[k * NR + j]);
            for (size_t j = 0; j < cols; ++j) {
                float y = fmaf((float)(int32_t)acc[j] * rows[i].scale, scale[j], bias[j]);
                y = y < params->min ? params->min : y;
                c[i * c_stride + n0 + j] = y > params->max ? params->max : y;
            }
        }
        panel += NR * (sizeof(int32_t) + kc + 2 * sizeof(float));
    }
}
