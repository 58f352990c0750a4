/* s16_vlut__scalar.c — TFLite's int16 table lookup with interpolation (s16_velementwise.h): the specification of
 * s16_vlut, rl_s16_lut_lookup (s16_lut_ref.c) on each value. */
#include "s16_elementwise.h"

void s16_vlut__scalar(size_t n, const int16_t *lut, const int16_t *x, int16_t *y) {
    for (size_t i = 0; i < n; ++i) y[i] = rl_s16_lut_lookup(x[i], lut);
}
