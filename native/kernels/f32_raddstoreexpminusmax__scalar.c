/* f32_raddstoreexpminusmax__scalar.c — y = e^((x - max) * beta) and its sum (f32_vexp.h), summed in the order of
 * XNNPACK's scalar kernel (rr2_p5_u4_acc2, what LiteRT runs where XNNPACK has no SIMD kernel): four values a
 * step into two sums (the first and third value into one, the second and fourth into the other), the two added,
 * then each of the last n % 4 values in turn. Its e^z is the x86 kernels' (fmaf); XNNPACK's scalar kernel writes
 * plain multiply-adds, which its compilers fuse on some targets and not on others. */
#include "f32_vexp.h"

float f32_raddstoreexpminusmax__scalar(size_t n, const float *x, float max, float beta, float *y) {
    float sum0 = 0.0f, sum1 = 0.0f;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        float e[4];
        for (size_t l = 0; l < 4; ++l) {
            const float z = beta == 1.0f ? x[i + l] - max : (x[i + l] - max) * beta;
            e[l] = y[i + l] = rl_f32_expminus(z);
        }
        sum0 += e[0];
        sum1 += e[1];
        sum0 += e[2];
        sum1 += e[3];
    }
    float sum = sum0 + sum1;
    for (; i < n; ++i) {
        const float e = rl_f32_expminus(beta == 1.0f ? x[i] - max : (x[i] - max) * beta);
        y[i] = e;
        sum += e;
    }
    return sum;
}
