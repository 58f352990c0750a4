/* qs8_qc8w_rowdot_1x4__scalar.c — the int8 row-dot specification (rowdot.h): per output, the prepared int32
 * bias plus x[k] * w[n][k] summed modulo 2^32, then gemm.h's fp32 requantization. Every other path gives these
 * bits. Four weight rows per step; a last block of fewer computes only its own rows. */
#include "qs8_requantize__scalar.h"
#include "rowdot.h"

enum { NR = 4 };

void qs8_qc8w_rowdot_1x4__scalar(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride, const int8_t *w,
                                 const int32_t *bias, const float *scales, int8_t *y, size_t y_stride,
                                 const rl_qs8_requantization_params *params) {
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t rows = nc - n0 < NR ? nc - n0 : NR;
        const int8_t *wn = w + n0 * kc;
        for (size_t i = 0; i < m; ++i) {
            const int8_t *xi = x + i * x_stride;
            uint32_t acc[NR];
            for (size_t j = 0; j < rows; ++j) acc[j] = (uint32_t)bias[n0 + j];
            for (size_t k = 0; k < kc; ++k)
                for (size_t j = 0; j < rows; ++j) acc[j] += (uint32_t)((int32_t)xi[k] * (int32_t)wn[j * kc + k]);
            for (size_t j = 0; j < rows; ++j)
                y[i * y_stride + n0 + j] = rl_qs8_requantize_scalar(acc[j], scales[n0 + j], params);
        }
    }
}
