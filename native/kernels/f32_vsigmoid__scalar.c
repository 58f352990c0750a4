/* f32_vsigmoid__scalar.c — the logistic specification (vactivation.h): 1 / (1 + expf(-x)), as TFLite's
 * portable LSTM and rillet's LSTM references compute it. */
#include <math.h>

#include "vactivation.h"

void f32_vsigmoid__scalar(size_t n, const float *x, float *y) {
    for (size_t i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + expf(-x[i]));
}
