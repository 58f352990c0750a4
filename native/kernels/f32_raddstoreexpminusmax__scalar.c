/* f32_raddstoreexpminusmax__scalar.c — y = e^((x - max) * beta) and its sum (f32_vexp.h). The sum keeps eight
 * partial sums, value i in sum i % 8, folded pairwise at the end: a single running sum of a 1500-value row
 * drifts by a few 1e-6, eight as the SIMD kernels' lanes stay within about 1e-7. */
#include "f32_vexp.h"

float f32_raddstoreexpminusmax__scalar(size_t n, const float *x, float max, float beta, float *y) {
    float sums[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (size_t i = 0; i < n; ++i) {
        const float e = rl_f32_expminus((x[i] - max) * beta);
        y[i] = e;
        sums[i % 8] += e;
    }
    for (size_t l = 0; l < 4; ++l) sums[l] += sums[l + 4];
    return (sums[0] + sums[2]) + (sums[1] + sums[3]);
}
