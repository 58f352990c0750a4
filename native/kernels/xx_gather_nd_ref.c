/* xx_gather_nd_ref.c — GATHER_ND: for each of n_slices index tuples (index_depth int32 or int64 values into
 * the first axes of params), the slice of slice_elems elements it names. Returns 0, or 1 when an index is
 * outside its axis (TFLite refuses those too, naming no value). */
#include <string.h>

#include "kernels.h"

int xx_gather_nd_ref(int64_t n_slices, int32_t index_depth, const int64_t *params_dims, int64_t slice_elems,
                     const void *indices, int32_t indices_are_int64, size_t elem, const void *params, void *y) {
    const size_t slice_bytes = (size_t)slice_elems * elem;
    char *dst = (char *)y;
    for (int64_t i = 0; i < n_slices; ++i, dst += slice_bytes) {
        int64_t offset = 0;
        for (int32_t d = 0; d < index_depth; ++d) {
            const int64_t k = i * index_depth + d;
            const int64_t v = indices_are_int64 ? ((const int64_t *)indices)[k] : ((const int32_t *)indices)[k];
            if (v < 0 || v >= params_dims[d]) return 1;
            offset = offset * params_dims[d] + v;
        }
        memcpy(dst, (const char *)params + (size_t)offset * slice_bytes, slice_bytes);
    }
    return 0;
}
