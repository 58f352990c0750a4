/* f32_gemm_packw_goi__scalar.c — w [n][k] (rows of k: a FULLY_CONNECTED's [units][depth], BATCH_MATMUL's y
 * with adj_y) into gemm.h's float32 panels with zero biases, any nr: what rl_pack_f32_gemm writes for ks 1
 * and no bias, for drivers that pack at every invoke. The specification of the SIMD packers. */
#include "f32_microkernels.h"

void f32_gemm_packw_goi__scalar(size_t n, size_t k, size_t nr, const float *w, float *packed) {
    for (size_t n0 = 0; n0 < n; n0 += nr) {
        const size_t cols = n - n0 < nr ? n - n0 : nr, width = rl_f32_gemm_panel_width(n, n0, nr);
        for (size_t j = 0; j < width; ++j) packed[j] = 0.0f;
        float *out = packed + width;
        for (size_t kk = 0; kk < k; ++kk, out += width)
            for (size_t j = 0; j < width; ++j) out[j] = j < cols ? w[(n0 + j) * k + kk] : 0.0f;
        packed += width * (1 + k);
    }
}
