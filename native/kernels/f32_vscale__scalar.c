/* f32_vscale__scalar.c — y = x * s (f32_vexp.h): a softmax row times 1 / its sum. */
#include "f32_vexp.h"

void f32_vscale__scalar(size_t n, const float *x, float s, float *y) {
    for (size_t i = 0; i < n; ++i) y[i] = x[i] * s;
}
