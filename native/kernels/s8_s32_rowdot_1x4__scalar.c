/* s8_s32_rowdot_1x4__scalar.c — the int8-to-int32 row-dot specification (rowdot.h): per output, the bias (or 0)
 * plus x[k] * w[n][k] summed modulo 2^32, stored as int32. Every other path gives these bits (integer sums are
 * exact in any order). Four weight rows per step; a last block of fewer computes only its own rows. */
#include "rowdot.h"

enum { NR = 4 };

void s8_s32_rowdot_1x4__scalar(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride, const int8_t *w,
                               const int32_t *bias, int32_t *y, size_t y_stride) {
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t rows = nc - n0 < NR ? nc - n0 : NR;
        const int8_t *wn = w + n0 * kc;
        for (size_t i = 0; i < m; ++i) {
            const int8_t *xi = x + i * x_stride;
            uint32_t acc[NR];
            for (size_t j = 0; j < rows; ++j) acc[j] = bias ? (uint32_t)bias[n0 + j] : 0u;
            for (size_t k = 0; k < kc; ++k)
                for (size_t j = 0; j < rows; ++j) acc[j] += (uint32_t)((int32_t)xi[k] * (int32_t)wn[j * kc + k]);
            for (size_t j = 0; j < rows; ++j) y[i * y_stride + n0 + j] = (int32_t)acc[j];
        }
    }
}
