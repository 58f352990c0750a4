/* f32_rdsum__neon.c — float32 sum over the middle axis of a [reduced, channels] slice (f32_rdsum__scalar's
 * contract), NEON (aarch64 and armv7): 16 channels at a time in four q accumulators that stay in registers across
 * all the rows, then 4 at a time, the last 1-3 through a block on the stack (nothing past `channels` is read or
 * written). Each output still adds its terms from 0.0f in row order, one rounding per row, as the scalar kernel
 * does: the same bits (armv7's NEON flushes subnormal sums to zero, far below the float tolerance). The scalar
 * loop, vectorised by gcc, loaded and stored every output at every row: MobileNetV3-small's 10 float MEANs over
 * H and W (squeeze-and-excite, the head) took 0.45M instructions per invoke under qemu, XNNPACK's 0.25M. */
#include <arm_neon.h>

#include "f32_exp__neon.h"
#include "kernels.h"

void f32_rdsum__neon(size_t reduced, size_t channels, size_t row_stride, const float *restrict x,
                     float *restrict y) {
    size_t c = 0;
    for (; c + 16 <= channels; c += 16) {
        float32x4_t s0 = vdupq_n_f32(0.0f), s1 = s0, s2 = s0, s3 = s0;
        const float *row = x + c;
        for (size_t r = 0; r < reduced; ++r, row += row_stride) {
            s0 = vaddq_f32(s0, vld1q_f32(row));
            s1 = vaddq_f32(s1, vld1q_f32(row + 4));
            s2 = vaddq_f32(s2, vld1q_f32(row + 8));
            s3 = vaddq_f32(s3, vld1q_f32(row + 12));
        }
        vst1q_f32(y + c, s0);
        vst1q_f32(y + c + 4, s1);
        vst1q_f32(y + c + 8, s2);
        vst1q_f32(y + c + 12, s3);
    }
    for (; c + 4 <= channels; c += 4) {
        float32x4_t s = vdupq_n_f32(0.0f);
        const float *row = x + c;
        for (size_t r = 0; r < reduced; ++r, row += row_stride) s = vaddq_f32(s, vld1q_f32(row));
        vst1q_f32(y + c, s);
    }
    if (c < channels) {
        const size_t rest = channels - c;
        float32x4_t s = vdupq_n_f32(0.0f);
        const float *row = x + c;
        for (size_t r = 0; r < reduced; ++r, row += row_stride) s = vaddq_f32(s, rl_neon_load_tail(row, rest));
        rl_neon_store_tail(y + c, s, rest);
    }
}
