/* qd8_gemm.h — hybrid (dynamically quantized) GEMM and IGEMM micro-kernels: int8 rows quantized on the fly
 * (qd8: one zero point and scale per row, or per image), times int8 weights with one scale per output channel
 * (qc8w), to float32, as XNNPACK's qd8_f32_qc8w kernels compute it. The tile contract is gemm.h's (a kernel
 * computes up to mr rows by nc columns, walking the packed panels of nr columns itself; a narrow last panel of
 * 1 to 8 columns is 8 wide where nr is 16; kernels never read past what they are given).
 *
 * Packed weights (rl_pack_qd8_gemm): for each panel of nr output channels:
 *   nr int32 sums of the column's weights, sum(w[n][...]) (0 past n), for the zero-point correction;
 *   then the weights exactly as rl_pack_qs8_gemm lays them out (taps, blocks of kr channels, nr columns);
 *   then nr float weight scales, then nr float biases (0 past n, or with no bias).
 * A row with zero point zp and dequantizing scale s gives, per column,
 *   acc = sum(x * w) - zp * sum(w)   (wrapping modulo 2^32: the same bits as sum((x - zp) * w))
 *   y = fmaf((float)acc * s, weight_scale, bias), clamped to [min, max],
 * which is qd8_f32_qc8w_fully_connected_ref's and qd8_f32_qc8w_conv2d_ref's xnnpack_output, bit for bit.
 * IGEMM padding taps point at a buffer holding the row's zero point, so they add nothing. */
#ifndef RILLET_QD8_GEMM_H
#define RILLET_QD8_GEMM_H

#include "gemm.h"
#include "isa.h"

typedef struct {
    int32_t zero_point;
    float scale; /* the dequantizing scale: the real value of one step */
} rl_qd8_row_quantization;

/* rows[i] is row i's quantization (i < mr). */
typedef void (*rl_qd8_gemm_fn)(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride, const void *w,
                               float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                               const rl_f32_minmax_params *params);
typedef void (*rl_qd8_igemm_fn)(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                const rl_f32_minmax_params *params);

/* The hybrid ops' input quantization of n floats (an image or a row) to int8: returns the dequantizing scale
 * and sets the zero point. XNNPACK's (f32_qd8_quantize_ref) for CONV_2D, FULLY_CONNECTED and BATCH_MATMUL;
 * TFLite's (f32_qs8_asymmetric_quantize_tflite_ref) for DEPTHWISE_CONV_2D. */
typedef float (*rl_f32_quantize_fn)(int64_t n, const float *x, int8_t *q, int32_t *zero_point);

/* The same two quantizations in three steps, for an image that several threads quantize in parts: each part's
 * range (rminmax), the quantization the whole range gives (rl_qd8_quantization_of_range, or TFLite's), then each
 * part's values. A range is a min and a max, exact, so the parts' ranges combine in any order into the whole's
 * and the three steps give the one-step functions' bits whatever the parts. */
typedef struct {
    float multiplier; /* each value is rounded from x * multiplier */
    float scale;      /* the dequantizing scale, as the one-step functions return it */
    int32_t zero_point;
    int32_t all_zero; /* TFLite's empty range: every value is 0 */
} rl_f32_qs8_quantization;
/* Widens [*lo, *hi] to hold the n values (NaN is skipped, as the one-step functions skip it); start at 0, 0. */
typedef void (*rl_f32_rminmax_fn)(int64_t n, const float *x, float *lo, float *hi);
typedef void (*rl_f32_quantize_values_fn)(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p);

typedef struct {
    uint32_t mr, nr, kr;
    rl_qd8_gemm_fn gemm;
    rl_qd8_igemm_fn igemm;
    /* Optional (NULL on paths without them): a GEMM whose rows hold every byte plus 128 (q ^ 0x80, read as
     * uint8), as quantize_u8 writes them (XNNPACK's qdu8): vpdpbusd multiplies unsigned bytes, and the signed
     * kernel flips each byte it broadcasts. Same scale and zero point, same sums, the same bits as gemm. */
    rl_qd8_gemm_fn gemm_u8;
    rl_f32_quantize_fn quantize_u8;
    /* Optional: gemm_u8 for a block of one row (mr 1), where the mr-row kernel would compute the row mr times, of up
     * to 4 rows and of up to 5 (the same template at 4 and 5 rows), where it would compute them again up to mr. */
    rl_qd8_gemm_fn gemm_u8_1row, gemm_u8_4row, gemm_u8_5row;
    /* Optional: gemm for a block of one row, on paths without gemm_u8. */
    rl_qd8_gemm_fn gemm_1row;
    /* Optional: igemm on an image whose bytes hold every value plus 128, as quantize_values_u8 writes them (the
     * three-step form, qd8_values' bytes plus 128), its padding taps at the zero point plus 128. */
    rl_qd8_igemm_fn igemm_u8;
    rl_f32_quantize_values_fn quantize_values_u8;
} rl_qd8_gemm_config;

/* A tile's row pointers, as every qd8 entry point sets them up: row i (< tile_mr) of the tile is row i of the block
 * when i < mr, else the block's last row again (its products are computed and stored over the last row's, with
 * the same bits, so a kernel needs no per-row test). in: the GEMM's input rows a_stride apart, or NULL for an IGEMM
 * (its rows come through the indirection buffer); out: the rows of c; rq: each row's quantization. */
static inline __attribute__((always_inline)) void rl_qd8_tile_rows(size_t tile_mr, size_t mr, const int8_t *a,
                                                                   size_t a_stride, float *c, size_t c_stride,
                                                                   const rl_qd8_row_quantization *rows,
                                                                   const int8_t **in, float **out,
                                                                   const rl_qd8_row_quantization **rq) {
    for (size_t i = 0; i < tile_mr; ++i) {
        const size_t row = i < mr ? i : mr - 1;
        if (in) in[i] = a + row * a_stride;
        out[i] = c + row * c_stride, rq[i] = rows + row;
    }
}

/* A GEMM entry point over a tile body rows_fn(rows, nc, kc, in, w, out, rq, params) (static, always inlined): the
 * tile's rows from rl_qd8_tile_rows, and one row (a FULLY_CONNECTED on one token) inlined on its own so that it
 * runs one row's accumulators rather than tile_mr rows' for one. */
#define RL_QD8_GEMM_ONE_ROW_OR_TILE(name, tile_mr, rows_fn)                                                     \
    void name(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride, const void *w, float *c,      \
              size_t c_stride, const rl_qd8_row_quantization *rows, const rl_f32_minmax_params *params) {      \
        const int8_t *in[tile_mr];                                                                              \
        float *out[tile_mr];                                                                                    \
        const rl_qd8_row_quantization *rq[tile_mr];                                                             \
        rl_qd8_tile_rows(tile_mr, mr, a, a_stride, c, c_stride, rows, in, out, rq);                             \
        if (mr == 1)                                                                                            \
            rows_fn(1, nc, kc, in, w, out, rq, params);                                                         \
        else                                                                                                    \
            rows_fn(tile_mr, nc, kc, in, w, out, rq, params);                                                   \
    }

/* An IGEMM tap's row pointers (tap[i] for i < mr, the last of them again past mr), as rl_qd8_tile_rows. */
static inline __attribute__((always_inline)) void rl_qd8_tap_rows(size_t tile_mr, size_t mr,
                                                                  const int8_t *const *tap, const int8_t **in) {
    for (size_t i = 0; i < tile_mr; ++i) in[i] = tap[i < mr ? i : mr - 1];
}

size_t rl_qd8_gemm_packed_size(size_t n, size_t ks, size_t kc, size_t nr, size_t kr);
/* w: [n][ks][kc] int8; scales: n floats; bias: n floats or NULL. */
void rl_pack_qd8_gemm(size_t n, size_t ks, size_t kc, size_t nr, size_t kr, const int8_t *w, const float *scales,
                      const float *bias, void *packed);

/* A BATCH_MATMUL's y, [k][n] (adj_y false): the same panels, no bias. */
void rl_pack_qd8_gemm_kn(size_t n, size_t k, size_t nr, size_t kr, const int8_t *y, const float *scales,
                         void *packed);

rl_f32_qs8_quantization rl_qd8_quantization_of_range(float lo, float hi);
rl_f32_qs8_quantization rl_tflite_quantization_of_range(float lo, float hi);

typedef struct {
    rl_f32_quantize_fn qd8, tflite; /* one step */
    rl_f32_rminmax_fn rminmax;
    rl_f32_quantize_values_fn qd8_values, tflite_values;
} rl_qd8_quantize_config;
rl_qd8_quantize_config rl_qd8_quantize_config_for(rl_isa isa);
void f32_rminmax__scalar(int64_t n, const float *x, float *lo, float *hi);
void f32_qd8_quantize_values__scalar(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p);
void f32_qs8_quantize_values_tflite__scalar(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p);
#if defined(__x86_64__) || defined(_M_X64)
float f32_qd8_quantize__avx2(int64_t n, const float *x, int8_t *q, int32_t *zero_point);
float f32_qs8_asymmetric_quantize_tflite__avx2(int64_t n, const float *x, int8_t *q, int32_t *zero_point);
void f32_rminmax__avx2(int64_t n, const float *x, float *lo, float *hi);
void f32_qd8_quantize_values__avx2(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p);
void f32_qs8_quantize_values_tflite__avx2(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p);
/* The AVX-512 paths' qd8 quantization (TFLite's stays AVX2's there); qdu8: the same bytes plus 128. */
float f32_qd8_quantize__avx512(int64_t n, const float *x, int8_t *q, int32_t *zero_point);
float f32_qdu8_quantize__avx512(int64_t n, const float *x, int8_t *q, int32_t *zero_point);
void f32_rminmax__avx512(int64_t n, const float *x, float *lo, float *hi);
void f32_qd8_quantize_values__avx512(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p);
void f32_qdu8_quantize_values__avx512(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p);
#endif

/* The path's kernels: AVX-512 VNNI's 8x16c4 on that path, AVX2's on the other x86 SIMD paths, the dot-product
 * 4x16c4 on NEONDOT (aarch64), NEON's 4x8c1 on NEON, the scalar ones elsewhere. */
rl_qd8_gemm_config rl_qd8_gemm_config_for(rl_isa isa);
/* The tile for weights without -128, where the path has one whose products are exact only then (aarch64 NEON's
 * 2x8c16, rl_qs8_gemm_pairs_config_for's int8 tile); else gemm == NULL. A driver whose weights are constant and free
 * of -128 (memchr for 0x80; dynamic-range weights are symmetric, so usually) packs and runs it instead. */
rl_qd8_gemm_config rl_qd8_gemm_pairs_config_for(rl_isa isa);

/* Scalar: the specification. */
void qd8_f32_qc8w_gemm_2x4c1__scalar(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                     const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                     const rl_f32_minmax_params *params);
void qd8_f32_qc8w_igemm_2x4c1__scalar(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                      const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                      const rl_f32_minmax_params *params);
#if defined(__x86_64__) || defined(_M_X64)
void qd8_f32_qc8w_gemm_6x16c2__avx2(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                    const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                    const rl_f32_minmax_params *params);
void qd8_f32_qc8w_gemm_1x16c2__avx2(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                    const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                    const rl_f32_minmax_params *params);
void qd8_f32_qc8w_igemm_6x16c2__avx2(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                     const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                     const rl_f32_minmax_params *params);
void qd8_f32_qc8w_gemm_8x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                          const void *w, float *c, size_t c_stride,
                                          const rl_qd8_row_quantization *rows, const rl_f32_minmax_params *params);
void qdu8_f32_qc8w_gemm_8x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                           const void *w, float *c, size_t c_stride,
                                           const rl_qd8_row_quantization *rows, const rl_f32_minmax_params *params);
void qdu8_f32_qc8w_gemm_4x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                           const void *w, float *c, size_t c_stride,
                                           const rl_qd8_row_quantization *rows, const rl_f32_minmax_params *params);
void qdu8_f32_qc8w_gemm_5x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                           const void *w, float *c, size_t c_stride,
                                           const rl_qd8_row_quantization *rows, const rl_f32_minmax_params *params);
void qdu8_f32_qc8w_gemm_1x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                           const void *w, float *c, size_t c_stride,
                                           const rl_qd8_row_quantization *rows, const rl_f32_minmax_params *params);
void qd8_f32_qc8w_igemm_8x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, size_t ks,
                                           const int8_t *const *indirection, const void *w, float *c,
                                           size_t c_stride, const rl_qd8_row_quantization *rows,
                                           const rl_f32_minmax_params *params);
void qdu8_f32_qc8w_igemm_8x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, size_t ks,
                                            const int8_t *const *indirection, const void *w, float *c,
                                            size_t c_stride, const rl_qd8_row_quantization *rows,
                                            const rl_f32_minmax_params *params);
#endif
#if RL_HAVE_NEON_KERNELS
void qd8_f32_qc8w_gemm_4x8c1__neon(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                   const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                   const rl_f32_minmax_params *params);
void qd8_f32_qc8w_igemm_4x8c1__neon(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                    const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                    const rl_f32_minmax_params *params);
#if defined(__aarch64__)
/* The input quantizations on aarch64 NEON (armv7 keeps the scalar ones). */
float f32_qd8_quantize__neon(int64_t n, const float *x, int8_t *q, int32_t *zero_point);
float f32_qs8_asymmetric_quantize_tflite__neon(int64_t n, const float *x, int8_t *q, int32_t *zero_point);
void f32_rminmax__neon(int64_t n, const float *x, float *lo, float *hi);
void f32_qd8_quantize_values__neon(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p);
void f32_qs8_quantize_values_tflite__neon(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p);
/* aarch64 NEON without dot products, weights without -128 (rl_qd8_gemm_pairs_config_for): pairs on kr 16. */
void qd8_f32_qc8w_gemm_2x8c16__neon(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                    const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                    const rl_f32_minmax_params *params);
void qd8_f32_qc8w_igemm_2x8c16__neon(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                     const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                     const rl_f32_minmax_params *params);
/* aarch64 with the dot-product extension: sdot on kr 4. */
void qd8_f32_qc8w_gemm_4x16c4__neondot(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                       const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                       const rl_f32_minmax_params *params);
void qd8_f32_qc8w_igemm_4x16c4__neondot(size_t mr, size_t nc, size_t kc, size_t ks,
                                        const int8_t *const *indirection, const void *w, float *c, size_t c_stride,
                                        const rl_qd8_row_quantization *rows, const rl_f32_minmax_params *params);
#endif
#endif

#endif
