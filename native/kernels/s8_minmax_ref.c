/* s8_minmax_ref.c — int8 MAXIMUM and MINIMUM with broadcasting on the raw values: both operands and the output
 * share their quantization (prepare checks), so the larger integer is the larger real value. */
#include "kernels.h"

void s8_minmax_ref(int32_t take_max, const rl_broadcast *bc, const int8_t *a, const int8_t *b, int8_t *out) {
    if (bc->count == 0) return;
    int64_t index[8] = {0};
    const int64_t inner = bc->out_dims[7], sa = bc->a_strides[7], sb = bc->b_strides[7];
    do {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        for (int64_t i = 0; i < inner; ++i) {
            const int8_t x = a[ia + i * sa], y = b[ib + i * sb];
            *out++ = take_max ? (x < y ? y : x) : (y < x ? y : x);
        }
    } while (rl_next_index(7, bc->out_dims, index));
}
