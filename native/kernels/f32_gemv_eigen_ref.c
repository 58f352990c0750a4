/* f32_gemv_eigen_ref.c — float32 row-major matrix times one vector in the order TFLite's builtin FULLY_CONNECTED
 * sums it on x86: its cpu_backend_gemm hands float to Eigen there, and a batch-1 product is Eigen's row-major
 * GEMV (Eigen's GeneralMatrixVector.h) on SSE's 4-float packets, multiply and add rounded apart (LiteRT's x86
 * wheel has no FMA in that code). LiteRT's default interpreter runs that kernel wherever XNNPACK declines a
 * FULLY_CONNECTED, which is whenever its weights are not constant: a training step's trained layer and the
 * products of its gradients. Matching its order bit for bit keeps the training losses agreeing to the last
 * bits; MobileNetV2's 1280 -> 1000 head, summed k ascending, moved its loss 8e-5 relative from LiteRT's over 20
 * steps once trained down to 0.02.
 *
 * y[n] = act(bias[n] + sum over k < kc of w[n * kc + k] * x[k]) for n < nc, the sum being:
 *   nc >= 2: four lane sums over k = 4j + lane (k below kc rounded down to a multiple of 4), each from 0 and
 *            k ascending; (lane0 + lane2) + (lane1 + lane3) (SSE's predux); then the k past the last whole
 *            packet added one by one;
 *   nc == 1: Eigen takes a 1 x kc times kc x 1 product as an inner product (InnerProduct.h): four packet sums
 *            (packets 4i + p, each starting from its first packet's products; from 16 elements), the packets
 *            past the last four added to sums 0, 1, 2; then s0 + (s1 + (s2 + s3)) as far as there are sums,
 *            the predux, and the tail one by one; under 4 elements the products added in order.
 * Each product and each addition is rounded (ISO C, no contraction). The bias is added to the finished sum,
 * then the clamp, as TFLite's BiasAndClamp. */
/* clang contracts a * b + c within a statement by default even in ISO C mode (gcc's -std=c99 does not):
 * the order above has every product rounded. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
#include "kernels.h"

static float lanes_total(const float lane[4]) { return (lane[0] + lane[2]) + (lane[1] + lane[3]); }

/* Eigen's inner product (InnerProduct.h) of x and w over k < kc, the nc == 1 case. */
static float eigen_dot(size_t kc, const float *x, const float *w) {
    const size_t packets = kc / 4, whole = packets * 4, quads = kc / 16 * 16;
    float total;
    if (packets == 0) {
        total = x[0] * w[0];
        for (size_t k = 1; k < kc; ++k) total += x[k] * w[k];
        return total;
    }
    float acc[4][4]; /* acc[p]: packet p's products, then every fourth packet after it added */
    for (size_t p = 0; p < 4 && p < packets; ++p)
        for (int l = 0; l < 4; ++l) acc[p][l] = x[4 * p + l] * w[4 * p + l];
    if (packets >= 4) {
        for (size_t k = 16; k < quads; k += 16)
            for (size_t p = 0; p < 4; ++p)
                for (int l = 0; l < 4; ++l) acc[p][l] += x[k + 4 * p + l] * w[k + 4 * p + l];
        for (size_t p = 0; p < (whole - quads) / 4; ++p) /* the packets past the last four, one each to acc[0..2] */
            for (int l = 0; l < 4; ++l) acc[p][l] += x[quads + 4 * p + l] * w[quads + 4 * p + l];
        for (int l = 0; l < 4; ++l) acc[2][l] += acc[3][l];
    }
    if (packets >= 3)
        for (int l = 0; l < 4; ++l) acc[1][l] += acc[2][l];
    if (packets >= 2)
        for (int l = 0; l < 4; ++l) acc[0][l] += acc[1][l];
    total = lanes_total(acc[0]);
    for (size_t k = whole; k < kc; ++k) total += x[k] * w[k];
    return total;
}

/* Eigen's row-major GEMV sum of one weight row times x. */
static float eigen_row(size_t kc, const float *x, const float *w) {
    const size_t whole = kc / 4 * 4;
    float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (size_t k = 0; k < whole; k += 4)
        for (int l = 0; l < 4; ++l) lane[l] += w[k + l] * x[k + l];
    float total = lanes_total(lane);
    for (size_t k = whole; k < kc; ++k) total += w[k] * x[k];
    return total;
}

static float finish(float sum, const float *bias, size_t n, float act_min, float act_max) {
    float v = 0.0f + sum; /* Eigen adds the product to the zeroed destination, then TFLite adds the bias */
    if (bias) v += bias[n];
    v = v < act_min ? act_min : v;
    return v > act_max ? act_max : v;
}

void f32_gemv_eigen_ref(size_t n_total, size_t n0, size_t nc, size_t kc, const float *x, const float *w,
                        const float *bias, float *y, float act_min, float act_max) {
    for (size_t n = n0; n < n0 + nc; ++n) {
        const float *row = w + n * kc;
        y[n] = finish(n_total == 1 ? eigen_dot(kc, x, row) : eigen_row(kc, x, row), bias, n, act_min, act_max);
    }
}
