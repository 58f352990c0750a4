/* xx_cast_ref.c — element conversion between float32, int8/16/32/64, uint8 and bool, as static_cast. */
#include "kernels.h"

#include "rillet.h"

static double load(int32_t dtype, const void *x, int64_t i) {
    switch (dtype) {
    case RL_FLOAT32: return ((const float *)x)[i];
    case RL_INT32: return ((const int32_t *)x)[i];
    case RL_INT64: return (double)((const int64_t *)x)[i];
    case RL_UINT8: return ((const uint8_t *)x)[i];
    case RL_BOOL: return ((const uint8_t *)x)[i] != 0;
    case RL_INT16: return ((const int16_t *)x)[i];
    case RL_INT8: return ((const int8_t *)x)[i];
    }
    return 0.0;
}

static int known(int32_t dtype) {
    return dtype == RL_FLOAT32 || dtype == RL_INT32 || dtype == RL_INT64 || dtype == RL_UINT8 ||
           dtype == RL_BOOL || dtype == RL_INT16 || dtype == RL_INT8;
}

int xx_cast_ref(int32_t from, int32_t to, int64_t count, const void *x, void *y) {
    if (from == RL_COMPLEX64 && to == RL_FLOAT32) { /* the real part, as TFLite's static_cast of std::real */
        for (int64_t i = 0; i < count; ++i) ((float *)y)[i] = ((const float *)x)[2 * i];
        return 0;
    }
    if (!known(from) || !known(to)) return 1;
    if (from == RL_BOOL && to == RL_FLOAT32) { /* a comparison's mask as 0/1 floats: training's common cast */
        const uint8_t *b = (const uint8_t *)x;
        float *f = (float *)y;
        for (int64_t i = 0; i < count; ++i) f[i] = b[i] != 0 ? 1.0f : 0.0f;
        return 0;
    }
    for (int64_t i = 0; i < count; ++i) {
        if (from == RL_INT64 && to == RL_INT64) {
            ((int64_t *)y)[i] = ((const int64_t *)x)[i];
            continue;
        }
        const double v = load(from, x, i);
        switch (to) {
        case RL_FLOAT32: ((float *)y)[i] = from == RL_INT64 ? (float)((const int64_t *)x)[i] : (float)v; break;
        case RL_INT32: ((int32_t *)y)[i] = (int32_t)v; break;
        case RL_INT64: ((int64_t *)y)[i] = (int64_t)v; break;
        case RL_UINT8: ((uint8_t *)y)[i] = (uint8_t)(int64_t)v; break;
        case RL_BOOL: ((uint8_t *)y)[i] = v != 0.0; break;
        case RL_INT16: ((int16_t *)y)[i] = (int16_t)(int64_t)v; break;
        case RL_INT8: ((int8_t *)y)[i] = (int8_t)(int64_t)v; break;
        }
    }
    return 0;
}
