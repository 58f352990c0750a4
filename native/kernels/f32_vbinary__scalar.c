/* f32_vbinary__scalar.c — the float32 element-wise binary micro-kernels in plain C (the specification of
 * kernels.h's rl_f32_vbinary_fn, rl_f32_vbinaryc_fn and rl_f32_vbinary_rows_fn): f32_binary_ref's arithmetic
 * (f32_vbinary_scalar.h), one loop per op. */
#include "f32_vbinary_scalar.h"

#define INLINE static inline __attribute__((always_inline))

/* n outputs of x op y (y op x when reversed), y n values or, when y_step is 0, one. */
INLINE void run(rl_binary_op op, int reversed, size_t n, const float *x, const float *y, size_t y_step, float *out,
                float lo, float hi) {
    for (size_t i = 0; i < n; ++i) {
        const float xi = x[i], yi = y[i * y_step];
        out[i] = rl_f32_binary_clamp(reversed ? rl_f32_binary_apply(op, yi, xi) : rl_f32_binary_apply(op, xi, yi),
                                     lo, hi);
    }
}

void f32_vbinary__scalar(rl_binary_op op, size_t n, const float *a, const float *b, float *out,
                         const rl_f32_minmax_params *p) {
#define SAME_SHAPE(OP) run(OP, 0, n, a, b, 1, out, p->min, p->max)
    RL_F32_BINARY_DISPATCH(op, SAME_SHAPE)
#undef SAME_SHAPE
}

void f32_vbinaryc__scalar(rl_binary_op op, int reversed, size_t n, const float *x, const float *v, float *out,
                          const rl_f32_minmax_params *p) {
    const float value = v[0]; /* a copy the stores cannot alias */
#define ONE_VALUE(OP)                                                                                            \
    reversed ? run(OP, 1, n, x, &value, 0, out, p->min, p->max) : run(OP, 0, n, x, &value, 0, out, p->min, p->max)
    RL_F32_BINARY_DISPATCH(op, ONE_VALUE)
#undef ONE_VALUE
}

void f32_vbinary_rows__scalar(rl_binary_op op, int reversed, size_t rows, size_t channels, const float *x,
                              const float *v, float *out, const rl_f32_minmax_params *p) {
#define ROWS(OP)                                                                                                 \
    for (size_t r = 0; r < rows; ++r)                                                                            \
        reversed ? run(OP, 1, channels, x + r * channels, v, 1, out + r * channels, p->min, p->max)              \
                 : run(OP, 0, channels, x + r * channels, v, 1, out + r * channels, p->min, p->max)
    RL_F32_BINARY_DISPATCH(op, ROWS)
#undef ROWS
}
