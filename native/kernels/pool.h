/* pool.h — pooling micro-kernels: one output pixel, all channels, from the pointers to its window's in-bounds
 * input pixels (the op's driver, ops/pool_driver.c, walks the tensor and finds them). */
#ifndef RILLET_POOL_H
#define RILLET_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "isa.h"

void f32_maxpool__scalar(size_t channels, size_t taps, const float *const *input, float *output, float min, float max);
void f32_avgpool__scalar(size_t channels, size_t taps, const float *const *input, float *output, float min, float max);
/* The float32 pooling micro-kernels a path runs (f32_configs.c picks them); every path gives the scalar
 * kernels' bits (armv7 NEON flushes subnormal inputs to zero: equal for normal floats). */
typedef void (*rl_f32_pool_fn)(size_t channels, size_t taps, const float *const *input, float *output, float min,
                               float max);
typedef struct {
    rl_f32_pool_fn maxpool, avgpool;
} rl_f32_pool_config;
#if defined(__x86_64__) || defined(_M_X64)
void f32_maxpool__avx2(size_t channels, size_t taps, const float *const *input, float *output, float min, float max);
void f32_avgpool__avx2(size_t channels, size_t taps, const float *const *input, float *output, float min, float max);
#endif
#if RL_HAVE_NEON_KERNELS
void f32_maxpool__neon(size_t channels, size_t taps, const float *const *input, float *output, float min, float max);
void f32_avgpool__neon(size_t channels, size_t taps, const float *const *input, float *output, float min, float max);
#endif
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
