/* fc_rowdot.c — FULLY_CONNECTED of a few input rows (batch 1, typically) on the row-dot micro-kernels, reading
 * the weights where the model holds them, row-major [units][depth]: the packed GEMM would copy them (as many
 * bytes as the model's weights, at every start) for a product that streams them once anyway. The output
 * channels are split across the plan's threads in tiles of whole kernel steps; each output's sum is the
 * kernel's whatever the tile, so results do not depend on the thread count. See fc_rowdot.h. */
#include <string.h>

#include "conv_gemm.h"
#include "fc_rowdot.h"

/* A row-dot multiply-add in rl_pool_for's units: each weight is read once, for one or two products, where a
 * GEMM's is reused over mr rows, so a MAC costs several of a GEMM's. An int8 squeeze-and-excite 1x1 of
 * EfficientNet-B0 (48 -> 1152, 55K MACs) took 8 us on one thread, four times a 65K-MAC GEMM tile's time, and
 * ran on the caller alone while the second thread waited. */
#define RL_ROWDOT_MAC_WORK 4

/* The op's typed state: one allocation holding this struct and, for int8, the prepared biases. */
typedef struct {
    int32_t int8;
    size_t m, n, kc;
    rl_f32_rowdot_config f32;
    rl_qs8_rowdot_config qs8;
    rl_f32_minmax_params f32_params;
    rl_qs8_requantization_params qs8_params;
    int32_t *qs8_bias;    /* n: the model's bias - (input_zero_point + input_offset) * sum(w[n]) */
    const float *scales;  /* n requantization scales: op->scratch */
    size_t tile_n;        /* output channels per thread tile, a multiple of the kernel's nr */
    /* Set at every invoke (the weights too: a constant's data never moves, but the state need not know). */
    const char *x, *w;
    const float *f32_bias;
    char *y;
} rl_fc_rowdot_state;

RL_STATIC_ASSERT(sizeof(rl_fc_rowdot_state) <= 256, "rl_fc_rowdot_state stays a small header before its biases");

/* Output channels j .. j + count - 1 of every row. */
static void rowdot_tile(void *context, size_t i, size_t j, size_t rows, size_t count) {
    const rl_fc_rowdot_state *st = (const rl_fc_rowdot_state *)context;
    (void)i, (void)rows;
    if (st->int8)
        st->qs8.rowdot(st->m, count, st->kc, (const int8_t *)st->x, st->kc, (const int8_t *)st->w + j * st->kc,
                       st->qs8_bias + j, st->scales + j, (int8_t *)st->y + j, st->n, &st->qs8_params);
    else
        st->f32.rowdot(st->m, count, st->kc, (const float *)st->x, st->kc, (const float *)st->w + j * st->kc,
                       st->f32_bias ? st->f32_bias + j : NULL, (float *)st->y + j, st->n, &st->f32_params);
}

static rl_status run_rowdot(rl_plan *plan, rl_op *op) {
    rl_fc_rowdot_state *st = (rl_fc_rowdot_state *)op->state;
    const rl_tensor *bias = rl_input(plan, op, 2);
    st->x = (const char *)rl_input(plan, op, 0)->data;
    st->w = (const char *)rl_input(plan, op, 1)->data;
    st->f32_bias = bias && !st->int8 ? (const float *)bias->data : NULL;
    st->y = (char *)rl_output(plan, op, 0)->data;
    rl_threadpool *pool = rl_pool_for(plan, RL_ROWDOT_MAC_WORK * st->m * st->n * st->kc);
    rl_parallelize_2d_tile_2d(pool, rowdot_tile, st, 1, st->n, 1, pool ? st->tile_n : st->n);
    return RL_OK;
}

/* The wrapping sum of count int8 values, in runs of 256 summed as unsigned bytes (offset by 128) in 16 bits,
 * which cannot overflow there: a loop the compiler vectorises 8-16 bytes a step on the baseline ISA, where the
 * sign-extending sum took 1.46 instructions a byte (x86; EfficientNet-B0's and MobileNetV2's 1280x1000 head,
 * 1.9M of a start) and this takes 0.78. */
static uint32_t s8_sum(const int8_t *w, size_t count) {
    uint32_t total = 0;
    for (size_t k0 = 0; k0 < count; k0 += 256) {
        const size_t end = count - k0 < 256 ? count : k0 + 256;
        uint16_t run = 0;
        for (size_t k = k0; k < end; ++k) run = (uint16_t)(run + ((uint8_t)w[k] ^ 0x80u));
        total += run;
    }
    return total - 128u * (uint32_t)count;
}

/* bias[n] - (input_zero_point + input_offset) * sum(w[n]), wrapping as the kernels' sums do. */
static void prepare_qs8_bias(size_t n, size_t kc, const int8_t *w, const int32_t *bias, int32_t input_zero_point,
                             int32_t input_offset, int32_t *out) {
    const uint32_t offset = (uint32_t)input_zero_point + (uint32_t)input_offset;
    for (size_t j = 0; j < n; ++j) {
        out[j] = (int32_t)((bias ? (uint32_t)bias[j] : 0u) - offset * s8_sum(w + j * kc, kc));
    }
}

rl_status rl_use_fc_rowdot(rl_plan *plan, rl_op *op, size_t rows, size_t units, size_t depth, int32_t int8) {
    const size_t sizes[2] = {sizeof(rl_fc_rowdot_state), int8 ? units * sizeof(int32_t) : 0};
    void *parts[2];
    rl_fc_rowdot_state *st = (rl_fc_rowdot_state *)rl_op_state_parts(plan, op, 2, sizes, parts);
    if (!st) return RL_NO_MEMORY;
    memset(st, 0, sizeof *st);
    st->int8 = int8;
    st->m = rows;
    st->n = units;
    st->kc = depth;
    st->f32 = plan->kernels->f32_rowdot;
    st->qs8 = plan->kernels->qs8_rowdot;
    st->f32_params = (rl_f32_minmax_params){.min = op->prep.act_min, .max = op->prep.act_max};
    const size_t nr = int8 ? st->qs8.nr : st->f32.nr;
    const size_t want = RL_TILES_PER_THREAD * (size_t)rl_threadpool_threads(plan->pool);
    const size_t steps = (units + nr - 1) / nr;
    st->tile_n = nr * ((steps + want - 1) / want);
    if (int8) {
        const rl_tensor *weights = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
        st->qs8_params = rl_qs8_requantization_of(&op->prep.q);
        st->qs8_bias = (int32_t *)parts[1];
        st->scales = (const float *)op->scratch;
        prepare_qs8_bias(units, depth, (const int8_t *)rl_known_data(weights),
                         bias ? (const int32_t *)rl_known_data(bias) : NULL, st->qs8_params.input_zero_point,
                         st->qs8.input_offset, st->qs8_bias);
    }
    op->packed_weight_bytes = 0; /* the model's own weights, already counted as such */
    op->run = run_rowdot;
    op->setup = NULL;
    return RL_OK;
}
