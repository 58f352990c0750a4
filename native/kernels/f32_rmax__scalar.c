/* f32_rmax__scalar.c — a row's maximum (f32_vexp.h): x > max ? x : max from x[0]; n >= 1. */
#include "f32_vexp.h"

float f32_rmax__scalar(size_t n, const float *x) {
    float max = x[0];
    for (size_t i = 1; i < n; ++i) max = x[i] > max ? x[i] : max;
    return max;
}
