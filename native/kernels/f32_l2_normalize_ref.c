/* f32_l2_normalize_ref.c — L2_NORMALIZATION over the last axis: each row divided by max(sqrt(sum of squares),
 * 1e-6), the sum taken in order in float (TFLite's kernel), then clamped to the fused activation's range. */
#include <math.h>

#include "kernels.h"

void f32_l2_normalize_ref(int64_t rows, int64_t depth, float act_min, float act_max, const float *x, float *y) {
    for (int64_t r = 0; r < rows; ++r) {
        const float *in = x + r * depth;
        float squared = 0.0f;
        for (int64_t c = 0; c < depth; ++c) squared += in[c] * in[c];
        float norm = sqrtf(squared);
        norm = norm > 1e-6f ? norm : 1e-6f;
        for (int64_t c = 0; c < depth; ++c) {
            const float v = in[c] / norm;
            y[r * depth + c] = v < act_min ? act_min : (v > act_max ? act_max : v);
        }
    }
}
