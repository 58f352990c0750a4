/* f32_lstm_math.h — the float pieces TFLite's float and hybrid LSTMs share (f32_lstm_step.c,
 * f32_qs8_lstm_hybrid_step.c): a gate's activation and the layer normalisation of a gate's row. */
#ifndef RILLET_F32_LSTM_MATH_H
#define RILLET_F32_LSTM_MATH_H

#include <math.h>
#include <stdint.h>

#include "kernels.h"

/* TFLite's fused activation codes an LSTM takes; SIGMOID (6) for the input, forget and output gates. */
static inline float rl_lstm_activate(int32_t activation, float v) {
    switch (activation) {
    case 1: return v > 0.0f ? v : 0.0f;                            /* RELU */
    case 3: return v > 0.0f ? (v < 6.0f ? v : 6.0f) : 0.0f;        /* RELU6 */
    case 4: return tanhf(v);                                       /* TANH */
    case 6: return 1.0f / (1.0f + expf(-v));                       /* SIGMOID */
    default: return v;
    }
}

/* One batch row of a gate's sums to mean 0 and variance 1 (1e-8 added to it), times the coefficients, plus
 * the bias (or none): TFLite's MeanStddevNormalization, VectorBatchVectorCwiseProduct and VectorBatchVectorAdd. */
static inline void rl_lstm_layer_norm(int32_t n, const float *coefficients, const float *bias, float *row) {
    float sum = 0.0f;
    for (int32_t c = 0; c < n; ++c) sum += row[c];
    const float mean = sum / (float)n;
    float squares = 0.0f;
    for (int32_t c = 0; c < n; ++c) squares += (row[c] - mean) * (row[c] - mean);
    const float inv_stddev = 1.0f / sqrtf(squares / (float)n + 1e-8f);
    for (int32_t c = 0; c < n; ++c) {
        const float scaled = coefficients[c] * ((row[c] - mean) * inv_stddev);
        row[c] = bias ? scaled + bias[c] : scaled;
    }
}

/* A gate's n values activated in place: the logistic and tanh on the plan's kernels (vactivation.h), the
 * others by rl_lstm_activate (f32_lstm_step.c). */
void rl_lstm_activate_gate(const rl_lstm_kernels *k, int32_t activation, int64_t n, float *v);

#endif
