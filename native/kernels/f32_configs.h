/* f32_configs.h — which float32 GEMM/IGEMM and depthwise kernels (and tiles) each instruction-set path uses.
 *
 * Dispatch asks once per ISA and keeps the returned struct; an ISA without kernels of its own gets the best
 * lower path's (AVX512VNNI -> AVX512, NEONDOT -> NEON; an armv6 build's NEON -> scalar). Kernels are packed for the
 * config's nr / channel_tile, so an op packs with the same config it later runs. */
#ifndef RILLET_F32_CONFIGS_H
#define RILLET_F32_CONFIGS_H

#include "dwconv.h"
#include "gemm.h"
#include "isa.h"
#include "pool.h"
#include "vcvt.h"

rl_f32_gemm_config rl_f32_gemm_config_for(rl_isa isa);
/* For layers of at least RL_F32_GEMM_WIDE_MIN_COLUMNS output channels: AVX-512's 7x32 tile (f32_igemm_7xnr__avx512.h);
 * other paths: their own config. */
#define RL_F32_GEMM_WIDE_MIN_COLUMNS 64
rl_f32_gemm_config rl_f32_gemm_wide_config_for(rl_isa isa);
rl_f32_dwconv_config rl_f32_dwconv_config_for(rl_isa isa);
/* AVX-512 paths: AVX2's 16-channel kernel, for layers of 16 or 48 channels (rl_dwconv_wants_narrow); other
 * paths: their own. */
rl_f32_dwconv_config rl_f32_dwconv_narrow_config_for(rl_isa isa);
/* Layers of few channels (rl_dwconv_wants_small): AVX2's 8-channel kernel on the AVX2 and AVX-512 paths; other
 * paths: their own. */
rl_f32_dwconv_config rl_f32_dwconv_small_config_for(rl_isa isa);
/* Max and average pooling: AVX2's on every x86 SIMD path, NEON's on both Arm ones. */
rl_f32_pool_config rl_f32_pool_config_for(rl_isa isa);
/* QUANTIZE's float32 to int8 conversion: AVX2's on every x86 SIMD path, NEON's on both Arm ones, else the
 * reference (f32_s8_quantize_ref). */
rl_f32_qs8_vcvt_fn rl_f32_qs8_vcvt_for(rl_isa isa);
/* DEQUANTIZE's int8 to float32 conversion: the same paths, else qs8_f32_vcvt__scalar. */
rl_qs8_f32_vcvt_fn rl_qs8_f32_vcvt_for(rl_isa isa);

#endif
