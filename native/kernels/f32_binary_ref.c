/* f32_binary_ref.c — float32 ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, PRELU and the
 * comparisons, with numpy broadcasting. */
#include "f32_vbinary_scalar.h" /* one element's arithmetic and clamp, shared with the f32_vbinary kernels */

/* One element of op, clamped. */
static inline float element(rl_binary_op op, float x, float y, float lo, float hi) {
    return rl_f32_binary_clamp(rl_f32_binary_apply(op, x, y), lo, hi);
}

/* Same-shape operands, one loop per op so the compiler vectorises each (the common residual ADD). */
static void same_shape(rl_binary_op op, int64_t n, const float *restrict a, const float *restrict b, float lo,
                       float hi, float *restrict out) {
    switch (op) {
    case RL_BIN_ADD: for (int64_t i = 0; i < n; ++i) out[i] = rl_f32_binary_clamp(a[i] + b[i], lo, hi); return;
    case RL_BIN_SUB: for (int64_t i = 0; i < n; ++i) out[i] = rl_f32_binary_clamp(a[i] - b[i], lo, hi); return;
    case RL_BIN_MUL: for (int64_t i = 0; i < n; ++i) out[i] = rl_f32_binary_clamp(a[i] * b[i], lo, hi); return;
    default: for (int64_t i = 0; i < n; ++i) out[i] = element(op, a[i], b[i], lo, hi); return;
    }
}

/* One operand a single value (a learning rate times a gradient, a constant shift): x is the other, `first`
 * says whether the value is the left operand. Loops of their own for ADD, SUB and MUL, as same_shape's.
 * In place is fine: each element is read before it is written. */
static void scalar_operand(rl_binary_op op, int64_t n, const float *x, float v, int first, float lo, float hi,
                           float *out) {
    switch (op) {
    case RL_BIN_ADD: for (int64_t i = 0; i < n; ++i) out[i] = rl_f32_binary_clamp(x[i] + v, lo, hi); return;
    case RL_BIN_MUL: for (int64_t i = 0; i < n; ++i) out[i] = rl_f32_binary_clamp(x[i] * v, lo, hi); return;
    case RL_BIN_SUB:
        if (first) for (int64_t i = 0; i < n; ++i) out[i] = rl_f32_binary_clamp(v - x[i], lo, hi);
        else for (int64_t i = 0; i < n; ++i) out[i] = rl_f32_binary_clamp(x[i] - v, lo, hi);
        return;
    default:
        if (first) for (int64_t i = 0; i < n; ++i) out[i] = element(op, v, x[i], lo, hi);
        else for (int64_t i = 0; i < n; ++i) out[i] = element(op, x[i], v, lo, hi);
        return;
    }
}

/* Whether an operand's rank-8 strides walk it in the output's order with no broadcast (it has every element). */
static int is_full(const int64_t *strides, const int64_t *dims) {
    int64_t s = 1;
    for (int d = 7; d >= 0; --d) {
        if (dims[d] != 1 && strides[d] != s) return 0;
        s *= dims[d];
    }
    return 1;
}

/* Whether an operand is one row along the last axis, repeated over all the others. */
static int is_last_axis_vector(const int64_t *strides, const int64_t *dims) {
    for (int d = 0; d < 7; ++d)
        if (dims[d] != 1 && strides[d] != 0) return 0;
    return strides[7] == 1 || dims[7] == 1;
}

/* One row of n elements of x op y (each a full row, or the vector), with the op's loop chosen once. */
static void row_against_vector(rl_binary_op op, int64_t n, const float *x, const float *y, float lo, float hi,
                               float *out) {
    switch (op) {
    case RL_BIN_ADD: for (int64_t i = 0; i < n; ++i) out[i] = rl_f32_binary_clamp(x[i] + y[i], lo, hi); return;
    case RL_BIN_SUB: for (int64_t i = 0; i < n; ++i) out[i] = rl_f32_binary_clamp(x[i] - y[i], lo, hi); return;
    case RL_BIN_MUL: for (int64_t i = 0; i < n; ++i) out[i] = rl_f32_binary_clamp(x[i] * y[i], lo, hi); return;
    default: for (int64_t i = 0; i < n; ++i) out[i] = element(op, x[i], y[i], lo, hi); return;
    }
}

void f32_binary_ref(rl_binary_op op, const rl_broadcast *bc, const float *a, const float *b, float *out) {
    const float lo = bc->act_min, hi = bc->act_max;
    if (bc->contiguous == 1 && (out == a || out == b)) { /* in place: restrict would not hold */
        for (int64_t i = 0; i < bc->count; ++i) out[i] = element(op, a[i], b[i], lo, hi);
        return;
    }
    if (bc->contiguous == 1) {
        same_shape(op, bc->count, a, b, lo, hi, out);
        return;
    }
    if (bc->contiguous == 2) {
        scalar_operand(op, bc->count, a, b[0], 0, lo, hi, out);
        return;
    }
    if (bc->contiguous == 3) {
        scalar_operand(op, bc->count, b, a[0], 1, lo, hi, out);
        return;
    }
    if (bc->count == 0) return;
    const int64_t inner = bc->out_dims[7];
    const int a_full = is_full(bc->a_strides, bc->out_dims), b_full = is_full(bc->b_strides, bc->out_dims);
    if ((a_full && is_last_axis_vector(bc->b_strides, bc->out_dims)) ||
        (b_full && is_last_axis_vector(bc->a_strides, bc->out_dims))) {
        /* a per-channel operand (a bias, a batch norm's scale): rows of the full one against the vector */
        for (int64_t r = 0; r < bc->count; r += inner)
            row_against_vector(op, inner, a_full ? a + r : a, b_full ? b + r : b, lo, hi, out + r);
        return;
    }
    int64_t index[8] = {0};
    const int64_t sa = bc->a_strides[7], sb = bc->b_strides[7];
    do {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        for (int64_t i = 0; i < inner; ++i) *out++ = element(op, a[ia + i * sa], b[ib + i * sb], lo, hi);
    } while (rl_next_index(7, bc->out_dims, index));
}

static uint8_t compare(rl_compare_op op, float x, float y) {
    switch (op) {
    case RL_CMP_GREATER: return x > y;
    case RL_CMP_GREATER_EQUAL: return x >= y;
    case RL_CMP_LESS: return x < y;
    case RL_CMP_LESS_EQUAL: return x <= y;
    case RL_CMP_EQUAL: return x == y;
    case RL_CMP_NOT_EQUAL: return x != y;
    }
    return 0;
}

void f32_compare_ref(rl_compare_op op, const rl_broadcast *bc, const float *a, const float *b, uint8_t *out) {
    if (bc->count == 0) return;
    if (bc->contiguous == 2 && op == RL_CMP_GREATER) { /* x > constant: an activation gradient's mask */
        const float v = b[0];
        for (int64_t i = 0; i < bc->count; ++i) out[i] = a[i] > v;
        return;
    }
    if (bc->contiguous == 1 && op == RL_CMP_GREATER) { /* y > window: max pooling's gradient */
        for (int64_t i = 0; i < bc->count; ++i) out[i] = a[i] > b[i];
        return;
    }
    int64_t index[8] = {0};
    const int64_t inner = bc->out_dims[7], sa = bc->a_strides[7], sb = bc->b_strides[7];
    do {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        for (int64_t i = 0; i < inner; ++i) *out++ = compare(op, a[ia + i * sa], b[ib + i * sb]);
    } while (rl_next_index(7, bc->out_dims, index));
}

void s32_binary_ref(rl_binary_op op, const rl_broadcast *bc, const int32_t *a, const int32_t *b, int32_t *out) {
    if (bc->count == 0) return;
    int64_t index[8] = {0};
    const int64_t inner = bc->out_dims[7], sa = bc->a_strides[7], sb = bc->b_strides[7];
    do {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        for (int64_t i = 0; i < inner; ++i) {
            const int32_t x = a[ia + i * sa], y = b[ib + i * sb];
            int32_t v = 0;
            switch (op) {
            case RL_BIN_ADD: v = (int32_t)((uint32_t)x + (uint32_t)y); break;
            case RL_BIN_SUB: v = (int32_t)((uint32_t)x - (uint32_t)y); break;
            case RL_BIN_MUL: v = (int32_t)((uint32_t)x * (uint32_t)y); break;
            case RL_BIN_DIV: v = y == 0 ? 0 : x / y; break;
            case RL_BIN_SQUARED_DIFFERENCE: v = (int32_t)((uint32_t)(x - y) * (uint32_t)(x - y)); break;
            case RL_BIN_MAXIMUM: v = x < y ? y : x; break;
            case RL_BIN_MINIMUM: v = y < x ? y : x; break;
            case RL_BIN_PRELU: v = x; break; /* not reached: prepare refuses int32 PRELU */
            }
            *out++ = v;
        }
    } while (rl_next_index(7, bc->out_dims, index));
}
