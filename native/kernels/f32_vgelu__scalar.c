/* f32_vgelu__scalar.c — GELU, exact (erf) and tanh forms, the specification's arithmetic (f32_vexp.h): XNNPACK's
 * rational functions, each fmaf the same correctly rounded operation as its vfmadd. */
#include "f32_vexp.h"

static float gelu(float x, const rl_vgelu_rational *c) {
    /* XNNPACK clamps with vminps/vmaxps, which pass a NaN x through */
    const float v = x < -c->max ? -c->max : (x > c->max ? c->max : x);
    const float v2 = v * v;
    float p = fmaf(v2, c->alpha[5], c->alpha[4]);
    for (int k = 3; k >= 0; --k) p = fmaf(v2, p, c->alpha[k]);
    p = v * p;
    float q = fmaf(v2, c->beta[4], c->beta[3]);
    for (int k = 2; k >= 0; --k) q = fmaf(v2, q, c->beta[k]);
    q = fmaf(v2, q, 1.0f);
    return (x * 0.5f) * (p / q + 1.0f);
}

void f32_vgelu__scalar(size_t n, const float *x, float *y) {
    for (size_t i = 0; i < n; ++i) y[i] = gelu(x[i], &rl_vgelu_erf);
}

void f32_vgelu_tanh__scalar(size_t n, const float *x, float *y) {
    for (size_t i = 0; i < n; ++i) y[i] = gelu(x[i], &rl_vgelu_tanh);
}
