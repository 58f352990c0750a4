/* qs16_qc8w_igemm_2x4c2__scalar.c — the 16x8 IGEMM in portable C, 2 rows by 4 columns a step: the
 * specification the SIMD kernels are tested against (qs16_gemm.h). */
#include "qs16_gemm.h"

RL_QS16_QC8W_IGEMM_FN(qs16_qc8w_igemm_2x4c2__scalar) {
    enum { MR = 2, NR = 4 };
    const size_t kc2 = (kc + 1) / 2 * 2;
    const char *panel = (const char *)w;
    const size_t panel_bytes = RL_QS16_PANEL_HEADER(NR) + ks * kc2 * NR * sizeof(int16_t);
    for (size_t n0 = 0; n0 < nc; n0 += NR, panel += panel_bytes) {
        const size_t cols = nc - n0 < NR ? nc - n0 : NR;
        const int64_t *bias = (const int64_t *)panel;
        const rl_qs16_channel *channel = (const rl_qs16_channel *)(bias + NR);
        const int16_t *weights = (const int16_t *)(channel + NR);
        for (size_t i = 0; i < mr; ++i) {
            int64_t acc[NR];
            for (size_t j = 0; j < NR; ++j) acc[j] = bias[j];
            for (size_t p = 0; p < ks; ++p) {
                const int16_t *a = indirection[p * MR + i];
                const int16_t *wp = weights + p * kc2 * NR;
                for (size_t k = 0; k < kc; ++k)
                    for (size_t j = 0; j < NR; ++j) acc[j] += (int32_t)a[k] * wp[(k / 2 * NR + j) * 2 + k % 2];
            }
            for (size_t j = 0; j < cols; ++j)
                c[i * c_stride + n0 + j] = rl_qs16_requantize(acc[j], &channel[j], params);
        }
    }
}
