/* kernel_table_ref.c — the table of scalar reference kernels; SIMD tables copy it and replace entries. */
#include "kernels.h"

static const rl_kernel_table reference_table = {
    f32_conv2d_ref,       f32_dwconv2d_ref,  f32_maxpool2d_ref,       f32_avgpool2d_ref,
    f32_fully_connected_ref, f32_batch_matmul_ref,
    s8_conv2d_ref, s8_dwconv2d_ref, s8_fully_connected_ref,
    s8_batch_matmul_ref, qd8_f32_qc8w_fully_connected_ref,
    qd8_f32_qc8w_conv2d_ref, qd8_f32_qc8w_dwconv2d_ref, qd8_f32_qc8w_batch_matmul_ref,
    f32_s8_quantize_ref, s8_requantize_ref, s8_f32_dequantize_ref, f16_f32_convert_ref,
    f32_binary_ref, f32_unary_ref,
    f32_leaky_relu_ref,   f32_softmax_ref,   f32_log_softmax_ref,     f32_reduce_sum_ref,
    s8_binary_ref,        s8_lut_ref,        s8_maxpool2d_ref,        s8_avgpool2d_ref,
    s8_softmax_ref,       s8_reduce_ref,     s8_log_softmax_ref,
};

const rl_kernel_table *rl_kernel_table_ref(void) { return &reference_table; }
