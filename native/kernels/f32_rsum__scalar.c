/* f32_rsum__scalar.c — a row's sum in XNNPACK's AVX order (f32_rsum.h), lanes kept in arrays: four
 * accumulators of 8 lanes take 32 values a step; the 8-value blocks left (at most three) go to the first three
 * in turn; then (acc0 + acc2) + (acc1 + acc3); the last 1-7 values are added to their lanes; the 8 lanes fold as
 * (l + l+4), then (0 + 2) + (1 + 3). Probed against LiteRT on rows of 1 to 10,007 values: every sum equal. */
#include "f32_rsum.h"

float f32_rsum__scalar(size_t n, const float *x) {
    float acc[4][8] = {{0.0f}};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (size_t k = 0; k < 4; ++k)
            for (size_t l = 0; l < 8; ++l) acc[k][l] += x[i + 8 * k + l];
    for (size_t k = 0; i + 8 <= n; i += 8, ++k)
        for (size_t l = 0; l < 8; ++l) acc[k][l] += x[i + l];
    float lanes[8];
    for (size_t l = 0; l < 8; ++l) lanes[l] = (acc[0][l] + acc[2][l]) + (acc[1][l] + acc[3][l]);
    for (size_t l = 0; i + l < n; ++l) lanes[l] += x[i + l];
    float half[4];
    for (size_t l = 0; l < 4; ++l) half[l] = lanes[l] + lanes[l + 4];
    return (half[0] + half[2]) + (half[1] + half[3]);
}
