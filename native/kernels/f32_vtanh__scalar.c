/* f32_vtanh__scalar.c — the tanh specification (vactivation.h): libm's tanhf, as rillet's LSTM references. */
#include <math.h>

#include "vactivation.h"

void f32_vtanh__scalar(size_t n, const float *x, float *y) {
    for (size_t i = 0; i < n; ++i) y[i] = tanhf(x[i]);
}
