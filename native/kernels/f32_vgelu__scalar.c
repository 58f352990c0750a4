/* f32_vgelu__scalar.c — GELU, exact (erf) and tanh forms, the specification's arithmetic (f32_vexp.h): the
 * exact form is XNNPACK's rational function, each fmaf the same correctly rounded operation as its vfmadd. */
#include "f32_vexp.h"

static float gelu(float x) {
    /* XNNPACK clamps with vminps/vmaxps, which pass a NaN x through */
    const float v = x < -RL_VGELU_MAX ? -RL_VGELU_MAX : (x > RL_VGELU_MAX ? RL_VGELU_MAX : x);
    const float v2 = v * v;
    float p = fmaf(v2, RL_VGELU_ALPHA11, RL_VGELU_ALPHA9);
    p = fmaf(v2, p, RL_VGELU_ALPHA7);
    p = fmaf(v2, p, RL_VGELU_ALPHA5);
    p = fmaf(v2, p, RL_VGELU_ALPHA3);
    p = fmaf(v2, p, RL_VGELU_ALPHA1);
    p = v * p;
    float q = fmaf(v2, RL_VGELU_BETA10, RL_VGELU_BETA8);
    q = fmaf(v2, q, RL_VGELU_BETA6);
    q = fmaf(v2, q, RL_VGELU_BETA4);
    q = fmaf(v2, q, RL_VGELU_BETA2);
    q = fmaf(v2, q, 1.0f);
    return (x * 0.5f) * (p / q + 1.0f); /* p / q: erf(x / sqrt 2) */
}

static float gelu_tanh(float x) {
    const float u2 = (RL_VGELU_TANH_2K * x) * fmaf(RL_VGELU_TANH_C * x, x, 1.0f); /* 2u */
    const float e = rl_f32_expminus(-fabsf(u2));
    const float f = e / (1.0f + e); /* sigmoid(-|2u|) */
    return x * (u2 < 0.0f ? f : 1.0f - f);
}

void f32_vgelu__scalar(size_t n, const float *x, float *y) {
    for (size_t i = 0; i < n; ++i) y[i] = gelu(x[i]);
}

void f32_vgelu_tanh__scalar(size_t n, const float *x, float *y) {
    for (size_t i = 0; i < n; ++i) y[i] = gelu_tanh(x[i]);
}
