/* qs8_qc8w_igemm_2x4c1__scalar.c — int8 IGEMM (rows through an indirection buffer), per-channel int8 weights,
 * 2 rows x 4 columns, kr 1: the specification every other qs8 IGEMM kernel reproduces bit for bit.
 *
 * Sums wrap modulo 2^32 (uint32) and requantize as in qs8_qc8w_gemm_2x4c1__scalar.c, whose comment says why.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "qs8_configs.h"
#include "qs8_requantize__scalar.h"

enum { MR = 2, NR = 4 };


void qs8_qc8w_igemm_2x4c1__scalar(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                  const void *w, int8_t *c, size_t c_stride,
                                  const rl_qs8_requantization_params *params) {
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t cols = nc - n0 < NR ? nc - n0 : NR;
        uint32_t bias[NR];
        float scale[NR];
        memcpy(bias, panel, sizeof bias);
        const signed char *weights = (const signed char *)(panel + sizeof bias);
        memcpy(scale, weights + ks * kc * NR, sizeof scale);
        for (size_t i = 0; i < mr && i < MR; ++i) {
            uint32_t acc[NR];
            memcpy(acc, bias, sizeof acc);
            const signed char *wk = weights;
            for (size_t p = 0; p < ks; ++p) {
                const int8_t *row = indirection[p * MR + i];
                for (size_t k = 0; k < kc; ++k, wk += NR) {
                    for (size_t j = 0; j < NR; ++j) acc[j] += (uint32_t)((int32_t)row[k] * (int32_t)wk[j]);
                }
            }
            for (size_t j = 0; j < cols; ++j) c[i * c_stride + n0 + j] = rl_qs8_requantize_scalar(acc[j], scale[j], params);
        }
        panel += NR * (sizeof(int32_t) + ks * kc + sizeof(float));
    }
}
