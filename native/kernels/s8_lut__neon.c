/* s8_lut__neon.c — any int8 -> int8 element-wise function as a 256-entry table (s8_lut_ref.c), NEON table
 * lookups: the int8 LOGISTIC, TANH, HARD_SWISH, RELU... of activation_int8.c and unary_math_int8.c.
 *
 * A table lookup reaches 64 bytes on aarch64 (tbl/tbx over four q registers) and 32 on armv7 (vtbl/vtbx over
 * four d registers), so the 256 entries are 4 (8) chunks: tbl answers the first chunk's indices and zero for the
 * rest, then each later chunk is looked up with the index less the chunk's start, by tbx, which leaves a lane
 * whose index falls outside the chunk as it was. The subtraction wraps: an index below the chunk becomes at
 * least 256 - 192 (256 - 224 on armv7), still outside it. A tail of fewer than 16 bytes goes through a buffer
 * on the stack, so nothing past the arrays is read or written; x and y may be the same array.
 */
#include <arm_neon.h>
#include <string.h>

#include "kernels.h"

#if defined(__aarch64__)
/* The four 64-byte chunks as four separate values, passed by value to an always-inline lookup: a struct of them
 * reached through a pointer made gcc keep the table on the stack and load all 256 bytes again for every 16
 * looked up: 0.81 instructions a byte, 0.66 now (LiteRT runs its int8 LOGISTIC at 0.58). */
static inline __attribute__((always_inline)) uint8x16_t lookup16_chunks(uint8x16x4_t t0, uint8x16x4_t t1,
                                                                        uint8x16x4_t t2, uint8x16x4_t t3,
                                                                        uint8x16_t x) {
    const uint8x16_t step = vdupq_n_u8(64);
    uint8x16_t y = vqtbl4q_u8(t0, x);
    x = vsubq_u8(x, step);
    y = vqtbx4q_u8(y, t1, x);
    x = vsubq_u8(x, step);
    y = vqtbx4q_u8(y, t2, x);
    x = vsubq_u8(x, step);
    return vqtbx4q_u8(y, t3, x);
}

void s8_lut__neon(int64_t count, const int8_t *table, const int8_t *x, int8_t *y) {
    const uint8_t *tb = (const uint8_t *)table;
    const uint8x16x4_t t0 = vld1q_u8_x4(tb), t1 = vld1q_u8_x4(tb + 64), t2 = vld1q_u8_x4(tb + 128),
                       t3 = vld1q_u8_x4(tb + 192);
    const uint8_t *in = (const uint8_t *)x;
    uint8_t *out = (uint8_t *)y;
    int64_t i = 0;
    for (; i + 32 <= count; i += 32) {
        const uint8x16_t a = vld1q_u8(in + i), b = vld1q_u8(in + i + 16);
        vst1q_u8(out + i, lookup16_chunks(t0, t1, t2, t3, a));
        vst1q_u8(out + i + 16, lookup16_chunks(t0, t1, t2, t3, b));
    }
    for (; i + 16 <= count; i += 16) vst1q_u8(out + i, lookup16_chunks(t0, t1, t2, t3, vld1q_u8(in + i)));
    if (i < count) {
        uint8_t buffer[16] = {0};
        const size_t rest = (size_t)(count - i);
        memcpy(buffer, in + i, rest);
        vst1q_u8(buffer, lookup16_chunks(t0, t1, t2, t3, vld1q_u8(buffer)));
        memcpy(out + i, buffer, rest);
    }
}
#else
typedef struct {
    uint8x8x4_t chunk[8];
} lut_registers;

static lut_registers load_table(const int8_t *table) {
    lut_registers t;
    for (int c = 0; c < 8; ++c)
        for (int d = 0; d < 4; ++d) t.chunk[c].val[d] = vld1_u8((const uint8_t *)table + 32 * c + 8 * d);
    return t;
}

static inline uint8x8_t lookup8(const lut_registers *t, uint8x8_t x) {
    const uint8x8_t step = vdup_n_u8(32);
    uint8x8_t y = vtbl4_u8(t->chunk[0], x);
    for (int c = 1; c < 8; ++c) {
        x = vsub_u8(x, step);
        y = vtbx4_u8(y, t->chunk[c], x);
    }
    return y;
}

static inline uint8x16_t lookup16(const lut_registers *t, uint8x16_t x) {
    return vcombine_u8(lookup8(t, vget_low_u8(x)), lookup8(t, vget_high_u8(x)));
}

void s8_lut__neon(int64_t count, const int8_t *table, const int8_t *x, int8_t *y) {
    const lut_registers t = load_table(table);
    const uint8_t *in = (const uint8_t *)x;
    uint8_t *out = (uint8_t *)y;
    int64_t i = 0;
    for (; i + 32 <= count; i += 32) {
        const uint8x16_t a = vld1q_u8(in + i), b = vld1q_u8(in + i + 16);
        vst1q_u8(out + i, lookup16(&t, a));
        vst1q_u8(out + i + 16, lookup16(&t, b));
    }
    for (; i + 16 <= count; i += 16) vst1q_u8(out + i, lookup16(&t, vld1q_u8(in + i)));
    if (i < count) {
        uint8_t buffer[16] = {0};
        const size_t rest = (size_t)(count - i);
        memcpy(buffer, in + i, rest);
        vst1q_u8(buffer, lookup16(&t, vld1q_u8(buffer)));
        memcpy(out + i, buffer, rest);
    }
}
#endif
