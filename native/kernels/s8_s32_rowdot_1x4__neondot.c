/* s8_s32_rowdot_1x4__neondot.c — int8-to-int32 row-dot (rowdot.h), NEON with the dot-product extension (aarch64
 * armv8.2-a+dotprod: the Cortex-A76 of a Raspberry Pi 5): the template of s8_rowdot_1x4__neon.h compiled with
 * +dotprod (sdot in its k loop). */
#include "s8_rowdot_1x4__neon.h"

RL_S8_S32_ROWDOT_1X4__NEON(s8_s32_rowdot_1x4__neondot)
