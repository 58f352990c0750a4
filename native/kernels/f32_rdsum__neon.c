/* f32_rdsum__neon.c — float32 sum over the middle axis of a [reduced, channels] slice (f32_rdsum__scalar's
 * contract), NEON (aarch64 and armv7): f32_rdsum.h's loop on 4-lane vectors, 16 channels at a time in four q
 * accumulators, then 4, the last 1-3 through a block on the stack. armv7's NEON flushes subnormal sums to zero,
 * far below the float tolerance. */
#include <arm_neon.h>

#include "f32_exp__neon.h"
#include "kernels.h"

enum { LANES = 4 };
typedef float32x4_t rdsum_vec;
typedef size_t rdsum_tail; /* the channels left */

static inline rdsum_vec rdsum_zero(void) { return vdupq_n_f32(0.0f); }
static inline rdsum_vec rdsum_add(rdsum_vec a, rdsum_vec b) { return vaddq_f32(a, b); }
static inline rdsum_vec rdsum_load(const float *p) { return vld1q_f32(p); }
static inline void rdsum_store(float *p, rdsum_vec v) { vst1q_f32(p, v); }
static inline rdsum_tail rdsum_tail_of(size_t rest) { return rest; }
static inline rdsum_vec rdsum_load_tail(const float *p, rdsum_tail t) { return rl_neon_load_tail(p, t); }
static inline void rdsum_store_tail(float *p, rdsum_vec v, rdsum_tail t) { rl_neon_store_tail(p, v, t); }

#include "f32_rdsum.h"

void f32_rdsum__neon(size_t reduced, size_t channels, size_t row_stride, const float *restrict x,
                     float *restrict y) {
    rdsum(reduced, channels, row_stride, x, y);
}
