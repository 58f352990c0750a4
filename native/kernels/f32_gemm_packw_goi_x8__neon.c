/* f32_gemm_packw_goi_x8__neon.c — w [n][k] into gemm.h's float32 panels of 8 columns with zero biases, NEON
 * (aarch64 and armv7): the scalar packer's bits, nr must be 8 (the NEON tiles' width).
 *
 * A panel is the transpose of 8 rows of w; here 8 rows by 4 k at a time, loaded as 8 vectors and transposed
 * in registers as two 4x4 blocks, so each row is read and each packed row written in whole vectors (the scalar
 * loop moves every float on its own, with an index computation: about a sixth of a BERT-sized Q·Kᵀ
 * BATCH_MATMUL on aarch64, which packs y at every invoke). Rows past n are zero vectors, never loads; the
 * last k % 4 values go one by one. */
#include <arm_neon.h>

#include "f32_microkernels.h"

/* Columns of the 4x4 block r[0..3] (rows) into c[0..3]. */
static inline void transpose_4x4(const float32x4_t *r, float32x4_t *c) {
    const float32x4x2_t t01 = vtrnq_f32(r[0], r[1]), t23 = vtrnq_f32(r[2], r[3]);
    c[0] = vcombine_f32(vget_low_f32(t01.val[0]), vget_low_f32(t23.val[0]));
    c[1] = vcombine_f32(vget_low_f32(t01.val[1]), vget_low_f32(t23.val[1]));
    c[2] = vcombine_f32(vget_high_f32(t01.val[0]), vget_high_f32(t23.val[0]));
    c[3] = vcombine_f32(vget_high_f32(t01.val[1]), vget_high_f32(t23.val[1]));
}

void f32_gemm_packw_goi_x8__neon(size_t n, size_t k, size_t nr, const float *w, float *packed) {
    (void)nr; /* 8: every panel is 8 wide (gemm.h's narrow panel is for nr 16) */
    const float32x4_t zero = vdupq_n_f32(0.0f);
    for (size_t n0 = 0; n0 < n; n0 += 8) {
        const size_t cols = n - n0 < 8 ? n - n0 : 8;
        const float *rows = w + n0 * k;
        vst1q_f32(packed, zero);
        vst1q_f32(packed + 4, zero);
        float *out = packed + 8;
        size_t k0 = 0;
        for (; k0 + 4 <= k; k0 += 4) {
            float32x4_t v[8], lo[4], hi[4];
            for (size_t i = 0; i < 8; ++i) v[i] = i < cols ? vld1q_f32(rows + i * k + k0) : zero;
            transpose_4x4(v, lo);
            transpose_4x4(v + 4, hi);
            for (size_t i = 0; i < 4; ++i) {
                vst1q_f32(out + (k0 + i) * 8, lo[i]);
                vst1q_f32(out + (k0 + i) * 8 + 4, hi[i]);
            }
        }
        for (; k0 < k; ++k0)
            for (size_t j = 0; j < 8; ++j) out[k0 * 8 + j] = j < cols ? rows[j * k + k0] : 0.0f;
        packed += 8 * (1 + k);
    }
}
