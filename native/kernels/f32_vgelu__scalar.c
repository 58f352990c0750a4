/* f32_vgelu__scalar.c — GELU, exact (erf) and tanh forms, the specification's arithmetic (f32_vexp.h). */
#include "f32_vexp.h"

/* x < -3 (f32_vexp.h): x erfc(|x| / sqrt 2) / 2. */
static float gelu_far(float x) {
    const float z = fabsf(x) * RL_VGELU_SQRT1_2;
    const float t = 1.0f / fmaf(z, 0.5f, 1.0f);
    float r = fmaf(t, RL_VGELU_R9, RL_VGELU_R8);
    r = fmaf(t, r, RL_VGELU_R7);
    r = fmaf(t, r, RL_VGELU_R6);
    r = fmaf(t, r, RL_VGELU_R5);
    r = fmaf(t, r, RL_VGELU_R4);
    r = fmaf(t, r, RL_VGELU_R3);
    r = fmaf(t, r, RL_VGELU_R2);
    r = fmaf(t, r, RL_VGELU_R1);
    r = fmaf(t, r, RL_VGELU_R0);
    const float c = (0.5f * t) * rl_f32_expminus(fmaf(-z, z, r)); /* erfc(|x| / sqrt 2) / 2 */
    return x * c;
}

static float gelu(float x) {
    if (x < RL_VGELU_FAR) return gelu_far(x);
    const float v = x > RL_VGELU_MAX ? RL_VGELU_MAX : x; /* NaN stays */
    const float v2 = v * v;
    float p = fmaf(v2, RL_VGELU_P5, RL_VGELU_P4);
    p = fmaf(v2, p, RL_VGELU_P3);
    p = fmaf(v2, p, RL_VGELU_P2);
    p = fmaf(v2, p, RL_VGELU_P1);
    p = fmaf(v2, p, RL_VGELU_P0);
    float q = fmaf(v2, RL_VGELU_Q5, RL_VGELU_Q4);
    q = fmaf(v2, q, RL_VGELU_Q3);
    q = fmaf(v2, q, RL_VGELU_Q2);
    q = fmaf(v2, q, RL_VGELU_Q1);
    q = fmaf(v2, q, 1.0f);
    return (0.5f * x) * (fmaf(v, p, q) / q); /* (Q + v P) / Q = 1 + erf */
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
