/* f32_log_softmax__avx2.c — f32_log_softmax_ref (the specification: TFLite's optimized LOG_SOFTMAX in Eigen's
 * order on x86's SSE packets, no FMA) with each 4-element packet in an SSE register: the same operations per
 * lane in the same order, so the same bits. The reference's two alternating packet sums share one AVX register
 * (the even packet in its low half, the odd one in its high half), so the exponential runs 8 wide with Eigen's
 * 4-float order kept; the row's maximum and the final (x - max) - log(sum), where order cannot show, 8 wide
 * too. Built with -mfma but no multiply-add is fused: ISO C (-std=c99) compiles with -ffp-contract=off, and
 * every step is an intrinsic. The elements past the last whole packet, and rows under 4 elements, take expf as
 * the reference does. */
/* clang contracts a * b + c within a statement by default even in ISO C mode (gcc's -std=c99 does not):
 * the order above has every product rounded. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#include "kernels.h"

/* Eigen's pexp_float (eigen_exp4 in f32_log_softmax_ref.c) on two packets at once, one per 128-bit half: Eigen's
 * choice between its fast and its slow 2^m is each packet's own, so where one half needs the slow one both are
 * computed and each half takes its own. */
static __m256 eigen_exp8(__m256 x_in) {
    const __m256 x = _mm256_min_ps(x_in, _mm256_set1_ps(88.723f));
    const __m256 abs_x = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    const int large = _mm256_movemask_ps(_mm256_cmp_ps(abs_x, _mm256_set1_ps(87.0f), _CMP_GT_OQ));
    const __m256 m = _mm256_floor_ps(
        _mm256_add_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)), _mm256_set1_ps(0.5f)));
    __m256 r = _mm256_add_ps(_mm256_mul_ps(m, _mm256_set1_ps(-0.693359375f)), x);
    r = _mm256_add_ps(_mm256_mul_ps(m, _mm256_set1_ps(2.12194440e-4f)), r);
    const __m256 r2 = _mm256_mul_ps(r, r);
    __m256 even = _mm256_add_ps(_mm256_mul_ps(r2, _mm256_set1_ps(1.37449637986719608306884765625e-3f)),
                                _mm256_set1_ps(4.166965186595916748046875e-2f));
    const __m256 odd = _mm256_add_ps(_mm256_mul_ps(r2, _mm256_set1_ps(8.36894474923610687255859375e-3f)),
                                     _mm256_set1_ps(0.16666518151760101318359375f));
    even = _mm256_add_ps(_mm256_mul_ps(r2, even), _mm256_set1_ps(0.49999988079071044921875f));
    const __m256 low = _mm256_add_ps(r, _mm256_set1_ps(1.0f));
    const __m256 y = _mm256_add_ps(_mm256_mul_ps(r2, _mm256_add_ps(_mm256_mul_ps(r, odd), even)), low);
    const __m256 biased = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(m, _mm256_set1_ps(127.0f)), _mm256_setzero_ps()),
                                        _mm256_set1_ps(255.0f));
    const __m256 scale = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvttps_epi32(biased), 23));
    const __m256 fast = _mm256_max_ps(_mm256_mul_ps(y, scale), x_in);
    if (!large) return fast;
    const __m256 clamped = _mm256_min_ps(_mm256_max_ps(m, _mm256_set1_ps(-278.0f)), _mm256_set1_ps(278.0f));
    const __m256i e = _mm256_cvttps_epi32(clamped), b = _mm256_srai_epi32(e, 2);
    const __m256i bias = _mm256_set1_epi32(127);
    const __m256 c = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(b, bias), 23));
    const __m256i rest = _mm256_sub_epi32(e, _mm256_add_epi32(b, _mm256_add_epi32(b, b)));
    const __m256 p = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(rest, bias), 23));
    const __m256 v = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(y, c), c), c), p);
    const __m256 below = _mm256_cmp_ps(x_in, _mm256_set1_ps(-104.0f), _CMP_LT_OQ);
    const __m256 slow = _mm256_andnot_ps(below, _mm256_max_ps(v, x_in));
    const int low_large = (large & 0x0F) ? -1 : 0, high_large = (large & 0xF0) ? -1 : 0;
    const __m256i halves = _mm256_set_epi32(high_large, high_large, high_large, high_large, low_large, low_large,
                                            low_large, low_large);
    return _mm256_blendv_ps(fast, slow, _mm256_castsi256_ps(halves));
}

/* One packet: eigen_exp8's lanes are independent and each half picks its own 2^m, so the packet in the low half
 * beside zeros (never the slow 2^m) gets the same bits. */
static __m128 eigen_exp4(__m128 x) {
    return _mm256_castps256_ps128(eigen_exp8(_mm256_insertf128_ps(_mm256_setzero_ps(), x, 0)));
}

static __m128 packet_exp(const float *x, __m128 max) { return eigen_exp4(_mm_sub_ps(_mm_loadu_ps(x), max)); }

/* The reference's two alternating packet sums as one register: x[i .. i + 7] holds the even sum's packet in its
 * low half and the odd sum's in its high half. */
static float exp_sum(int32_t depth, const float *x, float max_value) {
    const int32_t whole = depth / 4 * 4, pairs = depth / 8 * 8;
    float total;
    if (whole == 0) {
        total = expf(x[0] - max_value);
        for (int32_t i = 1; i < depth; ++i) total += expf(x[i] - max_value);
        return total;
    }
    const __m128 max = _mm_set1_ps(max_value);
    __m128 even;
    if (pairs == 0) {
        even = _mm_add_ps(_mm_setzero_ps(), packet_exp(x, max));
    } else {
        const __m256 max8 = _mm256_set1_ps(max_value);
        __m256 both = _mm256_add_ps(_mm256_setzero_ps(), eigen_exp8(_mm256_sub_ps(_mm256_loadu_ps(x), max8)));
        for (int32_t i = 8; i < pairs; i += 8)
            both = _mm256_add_ps(both, eigen_exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), max8)));
        even = _mm_add_ps(_mm256_castps256_ps128(both), _mm256_extractf128_ps(both, 1));
        if (whole > pairs) even = _mm_add_ps(even, packet_exp(x + pairs, max));
    }
    const __m128 halves = _mm_add_ps(even, _mm_movehl_ps(even, even)); /* lane0 + lane2, lane1 + lane3 */
    total = _mm_cvtss_f32(_mm_add_ss(halves, _mm_shuffle_ps(halves, halves, 1)));
    for (int32_t i = whole; i < depth; ++i) total += expf(x[i] - max_value);
    return total;
}

/* The row's maximum as the reference's scan (x > max ? x : max from the first element): 8 wide where the order
 * cannot show, that is unless the maximum is a zero (whose sign the scan's order picks) or a NaN is about. */
static float row_max(int32_t depth, const float *x) {
    float max = x[0];
    int32_t i = 1;
    if (depth >= 16) {
        __m256 acc = _mm256_loadu_ps(x);
        __m256 nan = _mm256_cmp_ps(acc, acc, _CMP_UNORD_Q);
        for (i = 8; i + 8 <= depth; i += 8) {
            const __m256 v = _mm256_loadu_ps(x + i);
            acc = _mm256_max_ps(v, acc);
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        }
        __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
        m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        m4 = _mm_max_ss(m4, _mm_shuffle_ps(m4, m4, 1));
        max = _mm_cvtss_f32(m4);
        if (_mm256_movemask_ps(nan) != 0 || max == 0.0f) {
            max = x[0];
            i = 1;
        }
    }
    for (; i < depth; ++i) max = x[i] > max ? x[i] : max;
    return max;
}

void f32_log_softmax__avx2(int64_t rows, int32_t depth, const float *x, float *y) {
    for (int64_t r = 0; r < rows; ++r) {
        const float *in = x + r * depth;
        float *out = y + r * depth;
        const float max = row_max(depth, in);
        const float log_sum = logf(exp_sum(depth, in, max));
        const __m256 max8 = _mm256_set1_ps(max), log_sum8 = _mm256_set1_ps(log_sum);
        int32_t i = 0;
        for (; i + 8 <= depth; i += 8)
            _mm256_storeu_ps(out + i, _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(in + i), max8), log_sum8));
        for (; i < depth; ++i) out[i] = (in[i] - max) - log_sum;
    }
}
