/* f32_vexp__neon.h — what the NEON softmax, scaling and GELU kernels (f32_vexp.h) share: f32_exp__neon.h's
 * multiply-add (fused on aarch64 and armv7's VFPv4) and its loads and stores of a last n % 4 values. */
#ifndef RILLET_F32_VEXP_NEON_H
#define RILLET_F32_VEXP_NEON_H

#include "f32_exp__neon.h"
#include "f32_vexp.h"

#endif
