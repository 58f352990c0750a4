/* f32_lrn_ref.c — LOCAL_RESPONSE_NORMALIZATION over the last axis: x * (bias + alpha * sum of squares within
 * radius channels)^-beta, TFLite's reference formula. */
#include <math.h>

#include "kernels.h"

void f32_lrn_ref(int64_t rows, int32_t depth, int32_t radius, float bias, float alpha, float beta, const float *x,
                 float *y) {
    for (int64_t r = 0; r < rows; ++r) {
        const float *in = x + r * depth;
        for (int32_t c = 0; c < depth; ++c) {
            const int32_t begin = c - radius > 0 ? c - radius : 0;
            const int32_t end = c + radius + 1 < depth ? c + radius + 1 : depth;
            float accum = 0.0f;
            for (int32_t k = begin; k < end; ++k) accum += in[k] * in[k];
            y[r * depth + c] = in[c] * powf(bias + alpha * accum, -beta);
        }
    }
}
