/* pool.h — pooling micro-kernels: one output pixel, all channels, from the pointers to its window's in-bounds
 * input pixels (the op's driver, ops/pool_driver.c, walks the tensor and finds them). */
#ifndef RILLET_POOL_H
#define RILLET_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "isa.h"

void f32_maxpool__scalar(size_t channels, size_t taps, const float *const *input, float *output, float min, float max);
/* Float average pooling takes every tap of the window, x-major (tap t = fx * filter_h + fy) as XNNPACK's
 * indirection orders them, with taps in the padding pointing at zeros, and multiplies the sum by `scale`
 * (1.0f / the in-bounds count). The taps are added nine at a time in XNNPACK's tree (f32_avgpool_sum9 below),
 * each group's sum added to the running total: LiteRT's default Interpreter delegates AVERAGE_POOL_2D to
 * XNNPACK, and a global pool over 64x64 pixels summed in plain order differs from it by 1.5e-6. */
void f32_avgpool__scalar(size_t channels, size_t taps, const float *const *input, float scale, float *output,
                         float min, float max);
/* The float32 pooling micro-kernels a path runs (f32_configs.c picks them); every path gives the scalar
 * kernels' bits (armv7 NEON flushes subnormal inputs to zero: equal for normal floats). */
typedef void (*rl_f32_pool_fn)(size_t channels, size_t taps, const float *const *input, float *output, float min,
                               float max);
typedef void (*rl_f32_avgpool_fn)(size_t channels, size_t taps, const float *const *input, float scale,
                                  float *output, float min, float max);
typedef struct {
    rl_f32_pool_fn maxpool;
    rl_f32_avgpool_fn avgpool;
} rl_f32_pool_config;
#if defined(__x86_64__) || defined(_M_X64)
void f32_maxpool__avx2(size_t channels, size_t taps, const float *const *input, float *output, float min, float max);
void f32_avgpool__avx2(size_t channels, size_t taps, const float *const *input, float scale, float *output,
                       float min, float max);
#endif
#if RL_HAVE_NEON_KERNELS
void f32_maxpool__neon(size_t channels, size_t taps, const float *const *input, float *output, float min, float max);
void f32_avgpool__neon(size_t channels, size_t taps, const float *const *input, float scale, float *output,
                       float min, float max);
#endif
/* XNNPACK's order for nine taps of one channel: ((x0 + x1) + x8 + (x6 + x7)) added to ((x2 + x3) + (x4 + x5)). */
static inline float f32_avgpool_sum9(const float x[9]) {
    const float s018 = (x[0] + x[1]) + x[8], s23 = x[2] + x[3], s45 = x[4] + x[5], s67 = x[6] + x[7];
    return (s23 + s45) + (s018 + s67);
}
/* The int8 pooling micro-kernels a path runs (qs8_configs.c picks them). */
typedef void (*rl_qs8_pool_fn)(size_t channels, size_t taps, const int8_t *const *input, int8_t *output, int32_t min,
                               int32_t max);
typedef struct {
    rl_qs8_pool_fn maxpool, avgpool;
} rl_qs8_pool_config;

void qs8_maxpool__scalar(size_t channels, size_t taps, const int8_t *const *input, int8_t *output, int32_t min,
                         int32_t max);
void qs8_avgpool__scalar(size_t channels, size_t taps, const int8_t *const *input, int8_t *output, int32_t min,
                         int32_t max);
#if defined(__x86_64__) || defined(_M_X64)
void qs8_maxpool__avx2(size_t channels, size_t taps, const int8_t *const *input, int8_t *output, int32_t min,
                       int32_t max);
/* Windows of 1 to 64 taps (the driver's largest); others go to qs8_avgpool__scalar. */
void qs8_avgpool__avx2(size_t channels, size_t taps, const int8_t *const *input, int8_t *output, int32_t min,
                       int32_t max);
#endif
#if RL_HAVE_NEON_KERNELS
void qs8_maxpool__neon(size_t channels, size_t taps, const int8_t *const *input, int8_t *output, int32_t min,
                       int32_t max);
/* Windows of 1 to 64 taps; others go to qs8_avgpool__scalar. */
void qs8_avgpool__neon(size_t channels, size_t taps, const int8_t *const *input, int8_t *output, int32_t min,
                       int32_t max);
#endif
/* MediaPipe's MaxPoolingWithArgmax2D and MaxUnpooling2D (ops/mediapipe_pooling.c): every tap of the window,
 * clamped into the image, in XNNPACK's order (tap t = fx * filter_h + fy). */
void f32_argmaxpool__scalar(size_t channels, size_t taps, const float *const *input, float *output, uint32_t *index);
void f32_unpool__scalar(size_t channels, size_t taps, const float *input, const uint32_t *index,
                        float *const *output);

#endif
