/* f32_rdsum.h — the one loop of the SIMD float32 rdsum kernels (f32_rdsum__avx2.c, f32_rdsum__neon.c), over the
 * vector ops the including file defines first:
 *   LANES                                     the floats in a vector (an enum constant)
 *   rdsum_vec, rdsum_zero(), rdsum_add(a, b), rdsum_load(p), rdsum_store(p, v)
 *   rdsum_tail, rdsum_tail_of(rest)           what the last 1 to LANES - 1 channels' loads and stores need
 *   rdsum_load_tail(p, t), rdsum_store_tail(p, v, t)   reading and writing those channels only (nothing past
 *                                             `channels`: a model's last tensor may end where the arena ends)
 * f32_rdsum__scalar's contract: 4 vectors of channels at a time in accumulators that stay in registers across all
 * the rows, then a vector at a time, then the tail. Each output still adds its terms from 0.0f in row order, one
 * rounding per row, as the scalar kernel does, so the same bits. The scalar loop, vectorised by gcc, loaded and
 * stored every output at every row: a squeeze-and-excite's MEAN over 7 x 7 x 576 took 4 x86 instructions a term,
 * XNNPACK's rdsum about 1; MobileNetV3-small's 10 float MEANs over H and W took 0.45M instructions per invoke under
 * qemu (aarch64), XNNPACK's 0.25M. */
#ifndef RILLET_F32_RDSUM_H
#define RILLET_F32_RDSUM_H

#include <stddef.h>

static inline void rdsum(size_t reduced, size_t channels, size_t row_stride, const float *restrict x,
                         float *restrict y) {
    size_t c = 0;
    for (; c + 4 * LANES <= channels; c += 4 * LANES) {
        rdsum_vec s0 = rdsum_zero(), s1 = s0, s2 = s0, s3 = s0;
        const float *row = x + c;
        for (size_t r = 0; r < reduced; ++r, row += row_stride) {
            s0 = rdsum_add(s0, rdsum_load(row));
            s1 = rdsum_add(s1, rdsum_load(row + LANES));
            s2 = rdsum_add(s2, rdsum_load(row + 2 * LANES));
            s3 = rdsum_add(s3, rdsum_load(row + 3 * LANES));
        }
        rdsum_store(y + c, s0);
        rdsum_store(y + c + LANES, s1);
        rdsum_store(y + c + 2 * LANES, s2);
        rdsum_store(y + c + 3 * LANES, s3);
    }
    for (; c + LANES <= channels; c += LANES) {
        rdsum_vec s = rdsum_zero();
        const float *row = x + c;
        for (size_t r = 0; r < reduced; ++r, row += row_stride) s = rdsum_add(s, rdsum_load(row));
        rdsum_store(y + c, s);
    }
    if (c < channels) {
        const rdsum_tail t = rdsum_tail_of(channels - c);
        rdsum_vec s = rdsum_zero();
        const float *row = x + c;
        for (size_t r = 0; r < reduced; ++r, row += row_stride) s = rdsum_add(s, rdsum_load_tail(row, t));
        rdsum_store_tail(y + c, s, t);
    }
}

#endif
