/* s8_lut_ref.c — any int8 -> int8 element-wise function as a 256-entry table (built by prepare). */
#include "kernels.h"

void s8_lut_ref(int64_t count, const int8_t *table, const int8_t *x, int8_t *y) {
    for (int64_t i = 0; i < count; ++i) y[i] = table[(uint8_t)x[i]];
}
