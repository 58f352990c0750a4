/* kernel_table.c — the kernel table a plan dispatches through, filled for one instruction-set path.
 *
 * Designated initializers only: a reordered or renamed field is a compile error, never two kernels
 * silently swapped. The whole-op references serve the ops (and dtypes) that have no micro-kernel driver
 * yet; each micro-kernel family maps the path to its best config. */
#include "f32_configs.h"
#include "f32_unary.h"
#include "kernels.h"
#include "qs8_configs.h"

/* Element-wise unary ops: the reference, whose LOGISTIC the x86 SIMD paths run with hardware FMA (the same
 * bits, f32_unary.h); the AVX-512 paths' RSQRT is XNNPACK's AVX-512 estimate and step (within 2 ulp); the NEON
 * paths' HARD_SWISH is XNNPACK's (f32_unary__neon.c). */
typedef void (*f32_unary_fn)(rl_unary_op op, int64_t count, const float *x, float *y);

static f32_unary_fn f32_unary_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return f32_unary__avx512;
    if (isa == RL_ISA_AVX2) return f32_unary__avx2;
#endif
#if RL_HAVE_NEON_KERNELS
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return f32_unary__neon;
#endif
    (void)isa;
    return f32_unary_ref;
}

static rl_x32_transpose_2d_fn x32_transpose_2d_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return x32_transpose_2d__avx2;
#endif
#if RL_HAVE_NEON_KERNELS
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return x32_transpose_2d__neon;
#endif
    (void)isa;
    return x32_transpose_2d__scalar;
}

typedef void (*f32_rdsum_fn)(size_t reduced, size_t channels, size_t row_stride, const float *x, float *y);

static f32_rdsum_fn f32_rdsum_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return f32_rdsum__avx2;
#endif
#if RL_HAVE_NEON_KERNELS
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return f32_rdsum__neon;
#endif
    (void)isa;
    return f32_rdsum__scalar;
}

typedef void (*s8_softmax_fn)(int64_t rows, int32_t depth, const float *exp_table, float output_scale,
                              int32_t output_zero_point, const int8_t *x, int8_t *y);

static s8_softmax_fn s8_softmax_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return s8_softmax__avx2;
#endif
    (void)isa;
    return s8_softmax_ref;
}

/* LOG_SOFTMAX and the changing-weights one-row FULLY_CONNECTED in Eigen's SSE order: the x86 SIMD paths run the
 * reference's lanes in SSE registers (the same bits); elsewhere the reference. */
typedef void (*f32_log_softmax_fn)(int64_t rows, int32_t depth, const float *x, float *y);
typedef void (*f32_gemv_eigen_fn)(size_t n_total, size_t n0, size_t nc, size_t kc, const float *x, const float *w,
                                  const float *bias, float *y, float act_min, float act_max);

static f32_log_softmax_fn f32_log_softmax_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return f32_log_softmax__avx2;
#endif
    (void)isa;
    return f32_log_softmax_ref;
}

static f32_gemv_eigen_fn f32_gemv_eigen_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return f32_gemv_eigen__avx2;
#endif
    (void)isa;
    return f32_gemv_eigen_ref;
}

rl_kernel_table rl_kernel_table_for(rl_isa isa) {
    const rl_kernel_table table = {
        .f32_conv2d = f32_conv2d_ref,
        .f32_dwconv2d = f32_dwconv2d_ref,
        .f32_maxpool2d = f32_maxpool2d_ref,
        .f32_avgpool2d = f32_avgpool2d_ref,
        .f32_fully_connected = f32_fully_connected_ref,
        .f32_batch_matmul = f32_batch_matmul_ref,
        .s8_conv2d = s8_conv2d_ref,
        .s8_dwconv2d = s8_dwconv2d_ref,
        .s8_fully_connected = s8_fully_connected_ref,
        .s8_batch_matmul = s8_batch_matmul_ref,
        .qd8_f32_qc8w_fully_connected = qd8_f32_qc8w_fully_connected_ref,
        .qd8_f32_qc8w_conv2d = qd8_f32_qc8w_conv2d_ref,
        .qd8_f32_qc8w_dwconv2d = qd8_f32_qc8w_dwconv2d_ref,
        .qd8_f32_qc8w_batch_matmul = qd8_f32_qc8w_batch_matmul_ref,
        .f32_s8_quantize = rl_f32_qs8_vcvt_for(isa),
        .s8_requantize = s8_requantize_ref,
        .qs8_f32_vcvt = rl_qs8_f32_vcvt_for(isa),
        .f16_f32_convert = f16_f32_convert_ref,
        .f32_binary = f32_binary_ref,
        .f32_unary = f32_unary_for(isa),
        .f32_softmax = f32_softmax_ref,
        .f32_log_softmax = f32_log_softmax_for(isa),
        .f32_gemv_eigen = f32_gemv_eigen_for(isa),
        .x32_transpose_2d = x32_transpose_2d_for(isa),
        .f32_reduce_sum = f32_reduce_sum_ref,
        .s8_binary = s8_binary_ref,
        .s8_lut = rl_s8_lut_for(isa),
        .qs8_rdsum = rl_qs8_rdsum_for(isa),
        .f32_rdsum = f32_rdsum_for(isa),
        .s8_maxpool2d = s8_maxpool2d_ref,
        .s8_avgpool2d = s8_avgpool2d_ref,
        .s8_softmax = s8_softmax_for(isa),
        .s8_reduce = s8_reduce_ref,
        .s8_log_softmax = s8_log_softmax_ref,
        .f32_gemm = rl_f32_gemm_config_for(isa),
        .f32_gemm_wide = rl_f32_gemm_wide_config_for(isa),
        .qs8_gemm = rl_qs8_gemm_config_for(isa),
        .qs8_gemm_pairs = rl_qs8_gemm_pairs_config_for(isa),
        .qs16_gemm = rl_qs16_gemm_config_for(isa),
        .qd8_gemm = rl_qd8_gemm_config_for(isa),
        .qd8_gemm_pairs = rl_qd8_gemm_pairs_config_for(isa),
        .qd8_dwconv = rl_qd8_dwconv_for(isa),
        .qd8_quantize = rl_qd8_quantize_config_for(isa),
        .f32_dwconv = rl_f32_dwconv_config_for(isa),
        .qs8_dwconv = rl_qs8_dwconv_config_for(isa),
        .f32_dwconv_narrow = rl_f32_dwconv_narrow_config_for(isa),
        .qs8_dwconv_narrow = rl_qs8_dwconv_narrow_config_for(isa),
        .f32_dwconv_small = rl_f32_dwconv_small_config_for(isa),
        .qs8_dwconv_small = rl_qs8_dwconv_small_config_for(isa),
        .qs8_vbinary = rl_qs8_vbinary_config_for(isa),
        .f32_vbinary = rl_f32_vbinary_config_for(isa),
        .qs8_pool = rl_qs8_pool_config_for(isa),
        .s8_ibilinear = rl_s8_ibilinear_for(isa),
        .f32_pool = rl_f32_pool_config_for(isa),
        .f32_rowdot = rl_f32_rowdot_config_for(isa),
        .qs8_rowdot = rl_qs8_rowdot_config_for(isa),
        .s8_s32_rowdot = rl_s8_s32_rowdot_config_for(isa),
        .vactivation = rl_vactivation_config_for(isa),
        .f32_vexp = rl_f32_vexp_config_for(isa),
        .s32_s8_requantize_fixedpoint = rl_s32_s8_requantize_fixedpoint_for(isa),
        .s16_velementwise = rl_s16_velementwise_config_for(isa),
    };
    return table;
}

rl_lstm_kernels rl_lstm_kernels_of(const rl_kernel_table *table, int narrow_weights) {
    const rl_lstm_kernels k = {.f32_rowdot = table->f32_rowdot.rowdot,
                               .s8_s32_rowdot = narrow_weights ? table->s8_s32_rowdot.rowdot_narrow_weights
                                                               : table->s8_s32_rowdot.rowdot,
                               .activation = table->vactivation,
                               .quantize_asymmetric = table->qd8_quantize.tflite};
    return k;
}
