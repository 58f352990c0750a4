/* qs8_qc8w_gemm_2x4c1__scalar.c — int8 GEMM, per-channel int8 weights, 2 rows x 4 columns, kr 1: the
 * specification every other qs8 GEMM kernel reproduces bit for bit.
 *
 * Sums run in uint32 because they wrap modulo 2^32 like XNNPACK's (signed overflow would be undefined). The
 * requantization is rl_requantize_fp32's; round-to-nearest-even is done by adding 1.5 * 2^23, whose float
 * has no fraction bits left (the clamped value is within +-255, far below 2^22), which avoids a libm call
 * and equals nearbyintf in the default rounding mode.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "qs8_configs.h"
#include "qs8_requantize__scalar.h"

enum { MR = 2, NR = 4 };


void qs8_qc8w_gemm_2x4c1__scalar(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride, const void *w,
                                 int8_t *c, size_t c_stride, const rl_qs8_requantization_params *params) {
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t cols = nc - n0 < NR ? nc - n0 : NR;
        uint32_t bias[NR];
        float scale[NR];
        memcpy(bias, panel, sizeof bias);
        const signed char *wk = (const signed char *)(panel + sizeof bias);
        memcpy(scale, wk + kc * NR, sizeof scale);
        for (size_t i = 0; i < mr && i < MR; ++i) {
            const int8_t *row = a + i * a_stride;
            uint32_t acc[NR];
            memcpy(acc, bias, sizeof acc);
            for (size_t k = 0; k < kc; ++k) {
                for (size_t j = 0; j < NR; ++j) acc[j] += (uint32_t)((int32_t)row[k] * (int32_t)wk[k * NR + j]);
            }
            for (size_t j = 0; j < cols; ++j) c[i * c_stride + n0 + j] = rl_qs8_requantize_scalar(acc[j], scale[j], params);
        }
        panel += NR * (sizeof(int32_t) + kc + sizeof(float));
    }
}
