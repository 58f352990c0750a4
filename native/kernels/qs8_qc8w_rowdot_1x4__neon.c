/* qs8_qc8w_rowdot_1x4__neon.c — int8 row-dot (rowdot.h), NEON without dot products (aarch64 and armv7): the
 * template of s8_rowdot_1x4__neon.h, 16 bytes a step on aarch64 (8 on armv7) through vmull_s8 and vpadalq_s16. */
#include "s8_rowdot_1x4__neon.h"

RL_QS8_ROWDOT_1X4__NEON(qs8_qc8w_rowdot_1x4__neon)
