/* xx_reduce_int_ref.c — SUM, MEAN, REDUCE_MAX and REDUCE_MIN of int32 or int64 values (plain integers, not
 * quantized) over marked axes (rank 8, row-major), as LiteRT's reference kernels give them: a sum wraps in its
 * own type (two's complement, as TFLite's adds do on every compiler it is built with), int32's MEAN sums in 64
 * bits and int64's in its own, and the mean divides truncating toward zero, an empty slice's mean being 0. */
#include "kernels.h"

typedef struct {
    int64_t value; /* the running sum, maximum or minimum */
    int64_t count; /* the values it has taken */
} rl_int_acc;

static int64_t read_value(int32_t is_int64, const void *x, int64_t i) {
    return is_int64 ? ((const int64_t *)x)[i] : (int64_t)((const int32_t *)x)[i];
}

/* a + b as the value's type wraps it (int32 sums are kept as int32; int32 MEAN's as int64). */
static int64_t wrapping_add(int32_t bits, int64_t a, int64_t b) {
    const uint64_t sum = (uint64_t)a + (uint64_t)b;
    return bits == 32 ? (int64_t)(int32_t)(uint32_t)sum : (int64_t)sum;
}

void xx_reduce_int_ref(int32_t is_int64, rl_int_reduce_op op, const int64_t *dims, const int32_t *reduced,
                       const void *x, void *y, int64_t out_count, void *scratch) {
    rl_int_acc *acc = (rl_int_acc *)scratch;
    const int64_t identity = op == RL_INT_REDUCE_MAX ? (is_int64 ? INT64_MIN : INT32_MIN)
                             : op == RL_INT_REDUCE_MIN ? (is_int64 ? INT64_MAX : INT32_MAX) : 0;
    for (int64_t i = 0; i < out_count; ++i) acc[i] = (rl_int_acc){identity, 0};
    const int32_t sum_bits = is_int64 || op == RL_INT_REDUCE_MEAN ? 64 : 32;
    int64_t out_strides[8];
    const int64_t in_count = rl_reduce_output_strides(dims, reduced, out_strides);
    int64_t index[8] = {0};
    for (int64_t i = 0; i < in_count; ++i) {
        int64_t o = 0;
        for (int d = 0; d < 8; ++d) o += index[d] * out_strides[d];
        const int64_t v = read_value(is_int64, x, i);
        if (op == RL_INT_REDUCE_MAX) acc[o].value = v > acc[o].value ? v : acc[o].value;
        else if (op == RL_INT_REDUCE_MIN) acc[o].value = v < acc[o].value ? v : acc[o].value;
        else acc[o].value = wrapping_add(sum_bits, acc[o].value, v);
        acc[o].count++;
        rl_next_index(8, dims, index);
    }
    for (int64_t i = 0; i < out_count; ++i) {
        int64_t v = acc[i].value;
        if (op == RL_INT_REDUCE_MEAN) v = acc[i].count ? v / acc[i].count : 0; /* C divides toward zero */
        if (is_int64) ((int64_t *)y)[i] = v;
        else ((int32_t *)y)[i] = (int32_t)v;
    }
}
