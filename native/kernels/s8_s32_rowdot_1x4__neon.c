/* s8_s32_rowdot_1x4__neon.c — int8-to-int32 row-dot (rowdot.h), NEON without dot products (aarch64 and armv7):
 * the template of s8_rowdot_1x4__neon.h, the sums plus the bias stored as they are. */
#include "s8_rowdot_1x4__neon.h"

RL_S8_S32_ROWDOT_1X4__NEON(s8_s32_rowdot_1x4__neon)
