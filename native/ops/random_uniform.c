/* random_uniform.c — RANDOM_UNIFORM, float32: dropout's mask on the device. The stream is TFLite's: Philox
 * keyed by (seed, seed2) when either is non-zero, restarted when the plan is prepared (as LiteRT's Prepare
 * restarts it), advancing across invokes; both zero asks for a non-deterministic stream, seeded here from
 * the clock and an address. So with the same seeds rillet and LiteRT draw the same numbers. */
#include <stdint.h>
#include <time.h>

#include "ops.h"

typedef struct {
    uint32_t key[2];
    uint32_t counter[4];
    int64_t count;
} rl_random_uniform_state;

RL_STATIC_ASSERT(sizeof(rl_random_uniform_state) <= 32, "rl_random_uniform_state is a small struct");

static rl_status run_random_uniform(rl_plan *plan, rl_op *op) {
    rl_random_uniform_state *st = (rl_random_uniform_state *)op->state;
    f32_random_uniform_ref(st->key, st->counter, st->count, (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

/* A 64-bit value that differs between runs and between ops: what TFLite draws from /dev/urandom. */
static uint64_t nondeterministic_seed(const void *salt, uint64_t k) {
    uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32) ^ (uint64_t)(uintptr_t)salt ^ (k << 17);
    x ^= x >> 33; /* splitmix64's finaliser spreads the few changing bits over the word */
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

rl_status rl_prepare_random_uniform(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    const rl_tensor *shape = rl_input(plan, op, 0);
    rl_tensor *output = rl_output(plan, op, 0);
    if ((s = rl_expect_dtype(plan, shape, "shape", RL_INT32)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", RL_FLOAT32)) != RL_OK) return s;
    if ((s = rl_known_indices(plan, shape, "shape")) != RL_OK) return s;
    const int64_t rank = rl_shape_count(&shape->shape);
    if (shape->shape.rank != 1 || rank > RL_MAX_DIMS)
        return rl_fail(plan, RL_INVALID, "shape must be a vector of at most %d sizes", RL_MAX_DIMS);
    output->shape.rank = (int32_t)rank;
    for (int32_t d = 0; d < rank; ++d) {
        const int64_t v = rl_read_index(shape, d);
        if (v < 0 || v > INT32_MAX) return rl_fail(plan, RL_INVALID, "shape[%d] = %lld", d, (long long)v);
        output->shape.dims[d] = (int32_t)v;
    }
    rl_random_uniform_state *st = (rl_random_uniform_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    /* LiteRT keeps the seeds as C ints: the low 32 bits, sign-extended, key and count its Philox */
    uint64_t seed = (uint64_t)(int64_t)(int32_t)(uint32_t)op->params.random.seed;
    uint64_t seed2 = (uint64_t)(int64_t)(int32_t)(uint32_t)op->params.random.seed2;
    if (seed == 0 && seed2 == 0) {
        seed = nondeterministic_seed(st, 1);
        seed2 = nondeterministic_seed(st, 2);
    }
    *st = (rl_random_uniform_state){.key = {(uint32_t)seed, (uint32_t)(seed >> 32)},
                                    .counter = {0, 0, (uint32_t)seed2, (uint32_t)(seed2 >> 32)},
                                    .count = rl_shape_count(&output->shape)};
    op->run = run_random_uniform;
    return RL_OK;
}

rl_status rl_eval_random_uniform(rl_plan *plan, rl_op *op) { return run_random_uniform(plan, op); }
