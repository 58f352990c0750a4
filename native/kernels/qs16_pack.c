/* qs16_pack.c — the 16x8 IGEMM kernels' packed weights (qs16_gemm.h): packed once, at prepare. */
#include <string.h>

#include "qs16_gemm.h"

static size_t panel_bytes(size_t ks, size_t kc, size_t nr) {
    return RL_QS16_PANEL_HEADER(nr) + ks * ((kc + 1) / 2 * 2) * nr * sizeof(int16_t);
}

size_t rl_qs16_qc8w_packed_size(size_t n, size_t ks, size_t kc, size_t nr) {
    return (n + nr - 1) / nr * panel_bytes(ks, kc, nr);
}

void rl_pack_qs16_qc8w(size_t n, size_t ks, size_t kc, size_t nr, const int8_t *w, const void *bias,
                       int bias_is_int32, const rl_qs16_channel *channels, void *packed) {
    const size_t kc2 = (kc + 1) / 2 * 2;
    char *out = (char *)packed;
    memset(packed, 0, rl_qs16_qc8w_packed_size(n, ks, kc, nr));
    for (size_t n0 = 0; n0 < n; n0 += nr, out += panel_bytes(ks, kc, nr)) {
        const size_t cols = n - n0 < nr ? n - n0 : nr;
        int64_t *b = (int64_t *)out;
        rl_qs16_channel *ch = (rl_qs16_channel *)(b + nr);
        int16_t *wp = (int16_t *)(ch + nr);
        for (size_t j = 0; j < cols; ++j) {
            if (bias) b[j] = bias_is_int32 ? ((const int32_t *)bias)[n0 + j] : ((const int64_t *)bias)[n0 + j];
            ch[j] = channels[n0 + j];
            for (size_t p = 0; p < ks; ++p)
                for (size_t k = 0; k < kc; ++k)
                    wp[((p * kc2 + k) / 2 * nr + j) * 2 + k % 2] = w[((n0 + j) * ks + p) * kc + k];
        }
    }
}
