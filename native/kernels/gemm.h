/* gemm.h — GEMM and IGEMM micro-kernels (float32; int8 with per-channel int8 weights), the layout of the
 * weights they read (packed once, at prepare, by rl_pack_*), and the per-ISA configs dispatch picks from.
 *
 * A micro-kernel computes one tile: up to `mr` rows (1..MR) of the output by `nc` columns (any count; it
 * walks the packed panels of NR columns itself, the last one partial). The op's driver owns the loop over
 * the tensor and the split across threads; a kernel never sees a shape. Every path gives the scalar
 * kernel's result: int8 bit for bit, float32 within 1e-6 relative (the sum over k runs in the same order,
 * k ascending, for every element, whatever mr, nc or the thread split).
 *
 * Kernels never read past what they are given (no over-read of a row's end, no reading of pointers past
 * mr): a model's last tensor may end where the arena ends.
 */
#ifndef RILLET_GEMM_H
#define RILLET_GEMM_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* The clamp lets NaN through, as XNNPACK's does: the scalar kernels compare (v < min ? min : v), and the SIMD
 * ones take max(min, v) then min(max, v), bound first, since x86's max/min return their second operand when
 * either is NaN. */
typedef struct {
    float min, max; /* the fused activation's clamp */
} rl_f32_minmax_params;

/* 0 where [min, max] is [-inf, inf] (an op without a fused activation, as most of a transformer's are): the max and
 * min would return their input, NaN too, so a kernel may leave them out. */
static inline int rl_f32_minmax_clamps(const rl_f32_minmax_params *params) {
    return params->min != -INFINITY || params->max != INFINITY;
}

/* int8 requantization, XNNPACK's fp32 form (see rl_requantize_fp32 in kernels.h): the int32 accumulator to
 * float, times the channel's scale, clamped to [min_less_zero_point, max_less_zero_point], rounded to
 * nearest with ties to even, plus output_zero_point. */
typedef struct {
    float min_less_zero_point, max_less_zero_point;
    int32_t output_zero_point;
    int32_t input_zero_point; /* what the IGEMM zero buffer holds; already folded into the packed bias */
} rl_qs8_requantization_params;

/* ---- float32 ----
 * Packed weights (rl_pack_f32_gemm): for each panel of nr output channels: nr biases (0 where there is no
 * bias or past n), then for each k in 0..ks*kc-1 (tap-major: tap 0's kc channels, then tap 1's, ...) nr
 * weights (0 past n). A panel is nr * (1 + ks * kc) floats; but where nr is 16 or 32 and the last panel would
 * hold 1 to 8 columns, it is 8 columns wide (8 biases, then 8 weights per k), and where nr is 32 and it would
 * hold 9 to 16, 16 wide: the x86 kernels read them with 8- and 16-lane vectors, so layers of 8, 24, 56, 144 ...
 * channels pack few zero columns (rl_f32_gemm_panel_width).
 * A kernel call's nc therefore ends at n or on a panel boundary (drivers split columns in whole panels),
 * so that a last panel of at most 8 (or 16) columns is the narrow one.
 *
 * GEMM: row i of A is a + i * a_stride (elements), kc floats. Row i of C is c + i * c_stride (elements),
 * nc floats written. w points at the first panel.
 * IGEMM: `indirection` holds ks * MR row pointers, tap-major: indirection[p * MR + i] is row i's kc input
 * floats for tap p (a zero buffer for padding taps). All MR slots of each tap hold valid pointers, but
 * the kernel reads only the first mr. */
typedef void (*rl_f32_gemm_fn)(size_t mr, size_t nc, size_t kc, const float *a, size_t a_stride, const float *w,
                               float *c, size_t c_stride, const rl_f32_minmax_params *params);
typedef void (*rl_f32_igemm_fn)(size_t mr, size_t nc, size_t kc, size_t ks, const float *const *indirection,
                                const float *w, float *c, size_t c_stride, const rl_f32_minmax_params *params);

/* w: n rows of ks * kc weights ([n][ks][kc], a CONV_2D OHWI filter or a FULLY_CONNECTED [units, depth]);
 * bias: n floats or NULL. Writes rl_f32_gemm_packed_size(...) bytes at packed. */
size_t rl_f32_gemm_packed_size(size_t n, size_t ks, size_t kc, size_t nr);
/* The width of the panel that starts at column n0 (a multiple of nr) of n: nr, or 8 for a narrow last one. */
size_t rl_f32_gemm_panel_width(size_t n, size_t n0, size_t nr);
void rl_pack_f32_gemm(size_t n, size_t ks, size_t kc, size_t nr, const float *w, const float *bias, float *packed);
/* w [n][k] into the same panels with zero biases (rl_pack_f32_gemm's bytes for ks 1 and no bias), the
 * config's SIMD packer: for drivers that pack at every invoke (BATCH_MATMUL's y with adj_y). */
typedef void (*rl_f32_gemm_packw_fn)(size_t n, size_t k, size_t nr, const float *w, float *packed);

/* ---- int8: int8 activations, int8 weights with one float scale per output channel ----
 * Packed weights (rl_pack_qs8_gemm): for each panel of nr output channels:
 *   nr int32 biases: bias[n] - (input_zero_point + input_offset) * sum(w[n][...]), in wrapping 32-bit
 *     arithmetic (0 past n); input_offset is the config's: 0, or 128 for kernels that add 128 to every
 *     input byte to use unsigned-by-signed dot products (VNNI), whose extra 128 * sum(w) this cancels;
 *   then for each tap p in 0..ks-1 and each block of kr channels (kc rounded up to kr, zero-filled): for
 *     each of the nr columns, kr int8 weights (0 past n or kc);
 *   then nr float scales (input_scale * filter_scale / output_scale; 0 past n).
 * As float32's, where nr is 16 and the last panel would hold 1 to 8 columns it is 8 wide (8 biases, blocks of
 * 8 * kr weights, 8 scales; rl_qs8_gemm_panel_width), so layers of 8, 24, 56 channels pack no zero columns,
 * and a kernel call's nc ends at n or on a panel boundary: a panel that starts with at most 8 columns left is
 * the narrow one.
 * Accumulation wraps modulo 2^32, as XNNPACK's; kernels must give those bits (no saturating adds).
 * GEMM/IGEMM arguments as float32's, with int8 rows; the IGEMM zero buffer holds the input zero point. */
typedef void (*rl_qs8_gemm_fn)(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride, const void *w,
                               int8_t *c, size_t c_stride, const rl_qs8_requantization_params *params);
typedef void (*rl_qs8_igemm_fn)(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                const void *w, int8_t *c, size_t c_stride, const rl_qs8_requantization_params *params);

size_t rl_qs8_gemm_packed_size(size_t n, size_t ks, size_t kc, size_t nr, size_t kr);
/* The width of the int8 panel that starts at column n0 (a multiple of nr) of n: nr, or 8 for a narrow last one. */
size_t rl_qs8_gemm_panel_width(size_t n, size_t n0, size_t nr);
/* w: [n][ks][kc] int8; bias: n int32 or NULL; scales: n floats. */
void rl_pack_qs8_gemm(size_t n, size_t ks, size_t kc, size_t nr, size_t kr, int32_t input_zero_point,
                      int32_t input_offset, const int8_t *w, const int32_t *bias, const float *scales, void *packed);

/* One full panel (nr columns, all real; depth = ks * kc a multiple of kr) of rl_pack_qs8_gemm's weights, from nr
 * rows of depth bytes at rows: writes the panel's depth * nr bytes (no biases, no scales) and each column's
 * wrapping weight sum. A path's vector packer; rl_pack_qs8_gemm_for runs it on every full panel. */
typedef void (*rl_qs8_gemm_packw_panel_fn)(size_t depth, const int8_t *rows, void *packed, uint32_t *sums);

/* What dispatch hands an op: the tile and the kernels of one ISA. */
typedef struct {
    uint32_t mr, nr;
    rl_f32_gemm_fn gemm;
    rl_f32_igemm_fn igemm;
    rl_f32_gemm_packw_fn packw_goi;
    rl_f32_gemm_fn gemm1; /* optional: a block of one row, gemm's sums in gemm's order (the same bits) */
} rl_f32_gemm_config;

typedef struct {
    uint32_t mr, nr, kr;
    int32_t input_offset;
    rl_qs8_gemm_fn gemm;
    rl_qs8_igemm_fn igemm;
    /* 1: gemm and igemm take any number of rows (mr may pass MR), looping over blocks of MR themselves (the
     * IGEMM's block b at indirection + b * ks * MR), so a driver makes one call per tile, not one per MR rows */
    uint32_t any_m;
    rl_qs8_gemm_packw_panel_fn packw_panel; /* optional: NULL packs with the generic panel */
} rl_qs8_gemm_config;

/* rl_pack_qs8_gemm for one config (its nr, kr, input offset), its full panels by its packw_panel where it has
 * one: the same bytes. */
void rl_pack_qs8_gemm_for(const rl_qs8_gemm_config *config, size_t n, size_t ks, size_t kc, int32_t input_zero_point,
                          const int8_t *w, const int32_t *bias, const float *scales, void *packed);

#endif
