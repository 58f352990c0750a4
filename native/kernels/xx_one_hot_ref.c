/* xx_one_hot_ref.c — ONE_HOT: output [outer, depth, inner] (depth inserted at the op's axis) holds on_value
 * where the index at [outer, inner] equals the depth position, off_value elsewhere; any element size. */
#include <string.h>

#include "kernels.h"

void xx_one_hot_ref(int64_t outer, int64_t depth, int64_t inner, const void *indices, int32_t indices_are_int64,
                    size_t elem, const void *on_value, const void *off_value, void *y) {
    char *dst = (char *)y;
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t d = 0; d < depth; ++d)
            for (int64_t c = 0; c < inner; ++c, dst += elem) {
                const int64_t k = o * inner + c;
                const int64_t v = indices_are_int64 ? ((const int64_t *)indices)[k] : ((const int32_t *)indices)[k];
                memcpy(dst, v == d ? on_value : off_value, elem);
            }
}
