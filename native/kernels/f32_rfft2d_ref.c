/* f32_rfft2d_ref.c — RFFT2D of float32 [fft_h, fft_w] blocks (the input's last two axes, zero-padded or cut
 * to the FFT's size) to the fft_w / 2 + 1 non-negative frequencies of each row, as complex64 (real,
 * imaginary float pairs). Summed in double from exact twiddle tables (cos and sin of 2 pi k / n at prepare),
 * as TFLite's kernel computes in double before rounding to float: the results agree to float rounding. */
#include "kernels.h"

void f32_rfft2d_ref(int64_t batches, int32_t in_h, int32_t in_w, int32_t fft_h, int32_t fft_w, const double *twiddle_h,
                    const double *twiddle_w, double *rows, const float *x, float *y) {
    const int32_t out_w = fft_w / 2 + 1;
    for (int64_t b = 0; b < batches; ++b) {
        const float *in = x + b * (int64_t)in_h * in_w;
        for (int32_t n1 = 0; n1 < fft_h; ++n1) /* each row's DFT, for the frequencies kept */
            for (int32_t k2 = 0; k2 < out_w; ++k2) {
                double re = 0.0, im = 0.0;
                if (n1 < in_h)
                    for (int32_t n2 = 0; n2 < fft_w && n2 < in_w; ++n2) {
                        const int64_t t = ((int64_t)k2 * n2) % fft_w;
                        re += in[(int64_t)n1 * in_w + n2] * twiddle_w[2 * t];
                        im -= in[(int64_t)n1 * in_w + n2] * twiddle_w[2 * t + 1];
                    }
                rows[2 * ((int64_t)n1 * out_w + k2)] = re;
                rows[2 * ((int64_t)n1 * out_w + k2) + 1] = im;
            }
        float *out = y + 2 * b * (int64_t)fft_h * out_w;
        for (int32_t k1 = 0; k1 < fft_h; ++k1) /* then the DFT down the columns */
            for (int32_t k2 = 0; k2 < out_w; ++k2) {
                double re = 0.0, im = 0.0;
                for (int32_t n1 = 0; n1 < fft_h; ++n1) {
                    const int64_t t = ((int64_t)k1 * n1) % fft_h;
                    const double c = twiddle_h[2 * t], s = -twiddle_h[2 * t + 1];
                    const double r = rows[2 * ((int64_t)n1 * out_w + k2)], i = rows[2 * ((int64_t)n1 * out_w + k2) + 1];
                    re += r * c - i * s;
                    im += r * s + i * c;
                }
                out[2 * ((int64_t)k1 * out_w + k2)] = (float)re;
                out[2 * ((int64_t)k1 * out_w + k2) + 1] = (float)im;
            }
    }
}
