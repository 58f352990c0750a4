/* f32_gemv_eigen__avx2.c — f32_gemv_eigen_ref (the specification: Eigen's row-major GEMV and inner product on
 * SSE's 4-float packets, no FMA, as TFLite's FULLY_CONNECTED sums on x86) with each packet in an SSE lane
 * group: the same products and sums per lane in the same order, so the same bits. A row's four lane sums form
 * one dependent chain of adds, which the order forbids splitting; eight rows run at once instead (two rows per
 * AVX register, one in each 128-bit half, x's packet in both), so four chains are in flight and the weights
 * stream at the memory's pace. Built with -mfma but no multiply-add is fused: ISO C (-std=c99) compiles with
 * -ffp-contract=off, and every step is an intrinsic. */
/* clang contracts a * b + c within a statement by default even in ISO C mode (gcc's -std=c99 does not):
 * the order above has every product rounded. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
#include <immintrin.h>

#include "kernels.h"

/* (lane0 + lane2) + (lane1 + lane3), SSE's predux. */
static float lanes_total(__m128 lane) {
    const __m128 halves = _mm_add_ps(lane, _mm_movehl_ps(lane, lane));
    return _mm_cvtss_f32(_mm_add_ss(halves, _mm_shuffle_ps(halves, halves, 1)));
}

static __m128 product(const float *x, const float *w) { return _mm_mul_ps(_mm_loadu_ps(x), _mm_loadu_ps(w)); }

/* Eigen's inner product, the nc == 1 case (eigen_dot in f32_gemv_eigen_ref.c). */
static float eigen_dot(size_t kc, const float *x, const float *w) {
    const size_t packets = kc / 4, whole = packets * 4, quads = kc / 16 * 16;
    float total;
    if (packets == 0) {
        total = x[0] * w[0];
        for (size_t k = 1; k < kc; ++k) total += x[k] * w[k];
        return total;
    }
    __m128 acc[4];
    for (size_t p = 0; p < 4 && p < packets; ++p) acc[p] = product(x + 4 * p, w + 4 * p);
    if (packets >= 4) {
        for (size_t k = 16; k < quads; k += 16)
            for (size_t p = 0; p < 4; ++p) acc[p] = _mm_add_ps(acc[p], product(x + k + 4 * p, w + k + 4 * p));
        for (size_t p = 0; p < (whole - quads) / 4; ++p)
            acc[p] = _mm_add_ps(acc[p], product(x + quads + 4 * p, w + quads + 4 * p));
        acc[2] = _mm_add_ps(acc[2], acc[3]);
    }
    if (packets >= 3) acc[1] = _mm_add_ps(acc[1], acc[2]);
    if (packets >= 2) acc[0] = _mm_add_ps(acc[0], acc[1]);
    total = lanes_total(acc[0]);
    for (size_t k = whole; k < kc; ++k) total += x[k] * w[k];
    return total;
}

/* The reference's per-row tail: the elements past the last whole packet one by one. */
static float row_tail(float total, size_t whole, size_t kc, const float *x, const float *w) {
    for (size_t k = whole; k < kc; ++k) total += w[k] * x[k];
    return total;
}

static float finish(float sum, const float *bias, size_t n, float act_min, float act_max) {
    float v = 0.0f + sum; /* as the reference: Eigen's zeroed destination, then TFLite's bias, then the clamp */
    if (bias) v += bias[n];
    v = v < act_min ? act_min : v;
    return v > act_max ? act_max : v;
}

/* Rows n .. n + 7: each lane sum from 0, packets in k order; w times x, as the reference multiplies. */
static void eight_rows(size_t kc, const float *x, const float *w, float sums[8]) {
    const size_t whole = kc / 4 * 4;
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (size_t k = 0; k < whole; k += 4) {
        const __m128 x4 = _mm_loadu_ps(x + k); /* not through a __m128 pointer: x is only float-aligned */
        const __m256 xk = _mm256_insertf128_ps(_mm256_castps128_ps256(x4), x4, 1);
        for (int p = 0; p < 4; ++p) {
            const float *row = w + (size_t)(2 * p) * kc + k;
            const __m256 wk =
                _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(row)), _mm_loadu_ps(row + kc), 1);
            acc[p] = _mm256_add_ps(acc[p], _mm256_mul_ps(wk, xk));
        }
    }
    for (int p = 0; p < 4; ++p) {
        sums[2 * p] = row_tail(lanes_total(_mm256_castps256_ps128(acc[p])), whole, kc, x, w + (size_t)(2 * p) * kc);
        sums[2 * p + 1] =
            row_tail(lanes_total(_mm256_extractf128_ps(acc[p], 1)), whole, kc, x, w + (size_t)(2 * p + 1) * kc);
    }
}

static float one_row(size_t kc, const float *x, const float *w) {
    const size_t whole = kc / 4 * 4;
    __m128 acc = _mm_setzero_ps();
    for (size_t k = 0; k < whole; k += 4) acc = _mm_add_ps(acc, product(w + k, x + k));
    return row_tail(lanes_total(acc), whole, kc, x, w);
}

void f32_gemv_eigen__avx2(size_t n_total, size_t n0, size_t nc, size_t kc, const float *x, const float *w,
                          const float *bias, float *y, float act_min, float act_max) {
    if (n_total == 1) {
        for (size_t n = n0; n < n0 + nc; ++n) y[n] = finish(eigen_dot(kc, x, w + n * kc), bias, n, act_min, act_max);
        return;
    }
    size_t n = n0;
    for (; n + 8 <= n0 + nc; n += 8) {
        float sums[8];
        eight_rows(kc, x, w + n * kc, sums);
        for (size_t i = 0; i < 8; ++i) y[n + i] = finish(sums[i], bias, n + i, act_min, act_max);
    }
    for (; n < n0 + nc; ++n) y[n] = finish(one_row(kc, x, w + n * kc), bias, n, act_min, act_max);
}
