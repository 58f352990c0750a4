/* qs8_configs.h — the int8 (qs8 activations, per-channel int8 weights) GEMM/IGEMM and depthwise micro-kernels
 * librillet has, and the config each instruction-set path gets.
 *
 * Packed-weight alignment: every config has nr * kr and channel_tile multiples of 4, so each panel (tile) of
 * rl_pack_qs8_gemm / rl_pack_qs8_dwconv is a multiple of 4 bytes and its int32 biases and float scales sit at
 * 4-byte offsets from the packed block's start. The kernels still use unaligned loads (memcpy, loadu), so
 * they do not depend on the block's own alignment.
 */
#ifndef RILLET_QS8_CONFIGS_H
#define RILLET_QS8_CONFIGS_H

#include "dwconv.h"
#include "gemm.h"
#include "isa.h"
#include "kernels.h"

/* An ISA without kernels of its own gets the best lower path's (AVX512 -> AVX2; NEONDOT's depthwise -> NEON's;
 * an armv6 build's NEON -> scalar). */
rl_qs8_gemm_config rl_qs8_gemm_config_for(rl_isa isa);
/* The tile for filters without a weight of -128, where the path has one whose products are exact only then (two
 * int8 products summed in int16: aarch64 NEON's 2x8c16); else gemm == NULL. A driver whose filter is constant and
 * free of -128 (memchr for 0x80) packs and runs this config instead of rl_qs8_gemm_config_for's. */
rl_qs8_gemm_config rl_qs8_gemm_pairs_config_for(rl_isa isa);
rl_qs8_dwconv_config rl_qs8_dwconv_config_for(rl_isa isa);
/* As rl_f32_dwconv_narrow_config_for: AVX2's 16-channel kernel on the AVX-512 paths, else the path's own. */
rl_qs8_dwconv_config rl_qs8_dwconv_narrow_config_for(rl_isa isa);
/* As rl_f32_dwconv_small_config_for: AVX2's 8-channel kernel on the AVX2 and AVX-512 paths, else the path's
 * own. */
rl_qs8_dwconv_config rl_qs8_dwconv_small_config_for(rl_isa isa);
/* Element-wise (kernels.h) and pooling (pool.h) micro-kernels: AVX2's on every x86 SIMD path (ADD's two kernels:
 * AVX-512's on the AVX-512 paths), NEON's on both Arm ones. */
rl_qs8_vbinary_config rl_qs8_vbinary_config_for(rl_isa isa);
rl_qs8_pool_config rl_qs8_pool_config_for(rl_isa isa);
/* int8 bilinear resizing on XNNPACK's arithmetic (kernels.h's rl_s8_ibilinear_fn): AVX2's on every x86 SIMD
 * path, NEON's on both Arm ones. */
rl_s8_ibilinear_fn rl_s8_ibilinear_for(rl_isa isa);
/* An int8 function as a 256-entry table (kernels.h's rl_s8_lut_fn): NEON's table lookups on Arm. */
rl_s8_lut_fn rl_s8_lut_for(rl_isa isa);
/* int8 sums over the middle axis of [reduced, channels] (kernels.h's rl_qs8_rdsum_fn): AVX2's on every x86 SIMD
 * path, NEON's on both Arm paths. */
rl_qs8_rdsum_fn rl_qs8_rdsum_for(rl_isa isa);

/* Scalar: the specification. */
void qs8_qc8w_gemm_2x4c1__scalar(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride, const void *w,
                                 int8_t *c, size_t c_stride, const rl_qs8_requantization_params *params);
void qs8_qc8w_igemm_2x4c1__scalar(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                  const void *w, int8_t *c, size_t c_stride,
                                  const rl_qs8_requantization_params *params);
void qs8_qc8w_dwconv_4c__scalar(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                                size_t indirection_step, const int8_t *const *weights, const void *packed,
                                int8_t *output, size_t output_stride, const rl_qs8_requantization_params *params);

#if defined(__x86_64__) || defined(_M_X64)
void qs8_qc8w_gemm_6x16c2__avx2(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride, const void *w,
                                int8_t *c, size_t c_stride, const rl_qs8_requantization_params *params);
void qs8_qc8w_igemm_6x16c2__avx2(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                 const void *w, int8_t *c, size_t c_stride,
                                 const rl_qs8_requantization_params *params);
void qs8_qc8w_gemm_packw_16c2__avx2(size_t depth, const int8_t *rows, void *packed, uint32_t *sums);
void qs8_qc8w_dwconv_16c__avx2(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                               size_t indirection_step, const int8_t *const *weights, const void *packed,
                               int8_t *output, size_t output_stride, const rl_qs8_requantization_params *params);
void qs8_qc8w_dwconv_8c__avx2(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                              size_t indirection_step, const int8_t *const *weights, const void *packed,
                              int8_t *output, size_t output_stride, const rl_qs8_requantization_params *params);
void qs8_qc8w_dwconv_32c__avx512(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                                 size_t indirection_step, const int8_t *const *weights, const void *packed,
                                 int8_t *output, size_t output_stride, const rl_qs8_requantization_params *params);
/* VNNI kernels add 128 to every input byte (xor 0x80) for vpdpbusd's unsigned operand: config input_offset 128. */
void qs8_qc8w_gemm_7x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                      const void *w, int8_t *c, size_t c_stride,
                                      const rl_qs8_requantization_params *params);
void qs8_qc8w_igemm_7x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                       const void *w, int8_t *c, size_t c_stride,
                                       const rl_qs8_requantization_params *params);
#endif

#if RL_HAVE_NEON_KERNELS
/* NEON without dot products (aarch64, armv7): widening multiply-adds on kr 1. */
void qs8_qc8w_gemm_4x8c1__neon(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride, const void *w,
                               int8_t *c, size_t c_stride, const rl_qs8_requantization_params *params);
void qs8_qc8w_igemm_4x8c1__neon(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                const void *w, int8_t *c, size_t c_stride,
                                const rl_qs8_requantization_params *params);
void qs8_qc8w_dwconv_16c__neon(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                               size_t indirection_step, const int8_t *const *weights, const void *packed,
                               int8_t *output, size_t output_stride, const rl_qs8_requantization_params *params);
/* Filters without a weight of -128 only (rl_qs8_dwconv_config.dwconv_pairs). */
void qs8_qc8w_dwconv_16c_pairs__neon(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                                     size_t indirection_step, const int8_t *const *weights, const void *packed,
                                     int8_t *output, size_t output_stride,
                                     const rl_qs8_requantization_params *params);
#endif
#if defined(__aarch64__)
/* aarch64 NEON without dot products, filters without -128 (rl_qs8_gemm_pairs_config_for): smull/smlal pairs on
 * kr 16 (qs8_qc8w_mrx8c16__neon.h). */
void qs8_qc8w_gemm_2x8c16__neon(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride, const void *w,
                               int8_t *c, size_t c_stride, const rl_qs8_requantization_params *params);
void qs8_qc8w_igemm_2x8c16__neon(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                const void *w, int8_t *c, size_t c_stride,
                                const rl_qs8_requantization_params *params);
/* aarch64 with the dot-product extension: sdot on kr 4, signed by signed (input_offset 0). */
void qs8_qc8w_gemm_4x16c4__neondot(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride, const void *w,
                                   int8_t *c, size_t c_stride, const rl_qs8_requantization_params *params);
void qs8_qc8w_igemm_4x16c4__neondot(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                    const void *w, int8_t *c, size_t c_stride,
                                    const rl_qs8_requantization_params *params);
#endif

#endif
