/* f32_igemm_4x4__scalar.c — the float32 indirect GEMM (convolution through row pointers) specification.
 *
 * As f32_gemm_4x4__scalar, with the k loop walking the ks taps' rows in turn: tap p's kc channels come
 * from indirection[p * MR + i], so one sum runs over ks * kc products in packed order. Only the first mr
 * pointers of each tap are read. */
#include "f32_microkernels.h"

enum { MR = 4, NR = 4 };

void f32_igemm_4x4__scalar(size_t mr, size_t nc, size_t kc, size_t ks, const float *const *indirection,
                           const float *w, float *c, size_t c_stride, const rl_f32_minmax_params *params) {
    const float vmin = params->min, vmax = params->max;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        float acc[MR][NR];
        for (size_t i = 0; i < MR; ++i)
            for (size_t j = 0; j < NR; ++j) acc[i][j] = w[j];
        w += NR;
        for (size_t p = 0; p < ks; ++p) {
            const float *rows[MR];
            for (size_t i = 0; i < MR; ++i) rows[i] = indirection[p * MR + (i < mr ? i : mr - 1)];
            for (size_t k = 0; k < kc; ++k) {
                for (size_t i = 0; i < MR; ++i) {
                    const float ak = rows[i][k];
                    for (size_t j = 0; j < NR; ++j) acc[i][j] += ak * w[j];
                }
                w += NR;
            }
        }
        const size_t cols = nc - n0 < NR ? nc - n0 : NR;
        for (size_t i = 0; i < mr; ++i) {
            float *out = c + i * c_stride + n0;
            for (size_t j = 0; j < cols; ++j) {
                float v = acc[i][j];
                v = v < vmin ? vmin : v;
                v = v > vmax ? vmax : v;
                out[j] = v;
            }
        }
    }
}
