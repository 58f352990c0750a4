/* f32_rsumsqdiff__scalar.c — a row's sum of (x - c)^2 (f32_rsum.h), f32_rsum__scalar's lanes and order with each
 * term the rounded square of the rounded difference: the bits of f32_rsum__scalar over the row of squares. The
 * build keeps -ffp-contract=off (ISO C), so no square is fused into its addition. */
#include "f32_rsum.h"

static inline float square_of_difference(float x, float c) {
    const float d = x - c;
    return d * d;
}

float f32_rsumsqdiff__scalar(size_t n, const float *x, float c) {
    float acc[4][8] = {{0.0f}};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (size_t k = 0; k < 4; ++k)
            for (size_t l = 0; l < 8; ++l) acc[k][l] += square_of_difference(x[i + 8 * k + l], c);
    for (size_t k = 0; i + 8 <= n; i += 8, ++k)
        for (size_t l = 0; l < 8; ++l) acc[k][l] += square_of_difference(x[i + l], c);
    float lanes[8];
    for (size_t l = 0; l < 8; ++l) lanes[l] = (acc[0][l] + acc[2][l]) + (acc[1][l] + acc[3][l]);
    for (size_t l = 0; i + l < n; ++l) lanes[l] += square_of_difference(x[i + l], c);
    float half[4];
    for (size_t l = 0; l < 4; ++l) half[l] = lanes[l] + lanes[l + 4];
    return (half[0] + half[2]) + (half[1] + half[3]);
}
