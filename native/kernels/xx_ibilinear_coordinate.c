/* xx_ibilinear_coordinate.c — where XNNPACK's bilinear resize reads: an output row's (or column's) two source
 * rows and the weight of the second, as xnn_indirection_init_resize_bilinear2d_hwc computes them in float.
 * LiteRT's default Interpreter resizes through XNNPACK when the delegate takes the op (resize.c says when),
 * and these coordinates differ from TFLite's 1/1024ths (s8_resize_ref.c) and float ones (f32_resize_bilinear_ref.c).
 */
#include <math.h>

#include "kernels.h"

void xx_ibilinear_coordinate(int32_t o, int32_t in, int32_t out, int32_t align_corners, int32_t half_pixel_centers,
                             rl_ibilinear_tap *tap) {
    const int32_t adjustment = align_corners && out != 1;
    const float scale = (float)(in - adjustment) / (float)(out - adjustment);
    const float last = (float)(in - 1);
    float source = (float)o * scale;
    if (!align_corners && half_pixel_centers) { /* XNNPACK's default; its flags say legacy otherwise */
        source += 0.5f * scale - 0.5f;
        source = source < 0.0f ? 0.0f : (source > last ? last : source);
    }
    const int32_t lo = (int32_t)source;
    tap->lower = lo;
    tap->upper = lo + 1 < in - 1 ? lo + 1 : in - 1;
    tap->alpha = source - (float)lo;
    tap->alpha_q11 = (int32_t)lrintf(tap->alpha * 2048.0f); /* XNNPACK's int16 weights, rounded to nearest even */
}
