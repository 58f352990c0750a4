/* qs8_qc8w_rowdot_1x4__neondot.c — int8 row-dot (rowdot.h), NEON with the dot-product extension (aarch64
 * armv8.2-a+dotprod: the Cortex-A76 of a Raspberry Pi 5): the template of s8_rowdot_1x4__neon.h compiled with
 * +dotprod, so that its k loop takes 32 and 16 bytes a step through sdot. The plain kernel's vmull and vpadal per
 * 8 bytes made an int8 classifier head (EfficientNet-B0's 1280 -> 1000, one row) 0.68M instructions per invoke
 * under qemu, XNNPACK's dot-product GEMM 0.18M. */
#include "s8_rowdot_1x4__neon.h"

RL_QS8_ROWDOT_1X4__NEON(qs8_qc8w_rowdot_1x4__neondot)
