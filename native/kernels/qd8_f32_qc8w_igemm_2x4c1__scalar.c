/* qd8_f32_qc8w_igemm_2x4c1__scalar.c — hybrid IGEMM (int8 rows through an indirection buffer, per-channel
 * int8 weights, float32 out), 2 rows x 4 columns, kr 1: the specification every other qd8 IGEMM kernel
 * reproduces bit for bit (qd8_gemm.h gives the arithmetic; padding taps point at the row's zero point). */
#include <math.h>
#include <string.h>

#include "qd8_gemm.h"

enum { MR = 2, NR = 4 };

void qd8_f32_qc8w_igemm_2x4c1__scalar(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                      const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                      const rl_f32_minmax_params *params) {
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t cols = nc - n0 < NR ? nc - n0 : NR;
        uint32_t ksum[NR];
        float scale[NR], bias[NR];
        memcpy(ksum, panel, sizeof ksum);
        const signed char *weights = (const signed char *)(panel + sizeof ksum);
        memcpy(scale, weights + ks * kc * NR, sizeof scale);
        memcpy(bias, weights + ks * kc * NR + sizeof scale, sizeof bias);
        for (size_t i = 0; i < mr && i < MR; ++i) {
            uint32_t acc[NR];
            for (size_t j = 0; j < NR; ++j) acc[j] = 0u - (uint32_t)rows[i].zero_point * ksum[j];
            const signed char *wk = weights;
            for (size_t p = 0; p < ks; ++p) {
                const int8_t *row = indirection[p * MR + i];
                for (size_t k = 0; k < kc; ++k, wk += NR)
                    for (size_t j = 0; j < NR; ++j) acc[j] += (uint32_t)((int32_t)row[k] * (int32_t)wk[j]);
            }
            for (size_t j = 0; j < cols; ++j) {
                float y = fmaf((float)(int32_t)acc[j] * rows[i].scale, scale[j], bias[j]);
                y = y < params->min ? params->min : y;
                c[i * c_stride + n0 + j] = y > params->max ? params->max : y;
            }
        }
        panel += NR * (sizeof(int32_t) + ks * kc + 2 * sizeof(float));
    }
}
