/* random_uniform.c — RANDOM_UNIFORM, float32: dropout's mask on the device. The stream is TFLite's: Philox
 * keyed by (seed, seed2) when either is non-zero, advancing across invokes; both zero asks for a
 * non-deterministic stream, seeded here from the clock and an address. So with the same seeds rillet and
 * LiteRT draw the same numbers.
 *
 * When the stream restarts is LiteRT's too. LiteRT's Prepare restarts it, but LiteRT runs Prepare again only
 * after an input of the subgraph changed shape: allocate_tensors on an unchanged subgraph (which a signature
 * runner calls before every invoke) does nothing. rillet prepares the plan again at every allocate_tensors,
 * so the stream lives in the op's scratch (which outlives a prepare) with the plan's input shapes it started
 * under, and restarts only when those differ. */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "ops.h"

typedef struct {
    uint32_t key[2];
    uint32_t counter[4];
    uint64_t input_shapes; /* a hash of the plan's input shapes when the stream started */
    int64_t seed, seed2;   /* the op's seeds (0, 0: drawn at each start) */
    int32_t started;
} rl_random_stream;

typedef struct {
    rl_random_stream *stream; /* in op->scratch */
    int64_t count;
} rl_random_uniform_state;

RL_STATIC_ASSERT(sizeof(rl_random_stream) <= 64, "rl_random_stream is a small struct");
RL_STATIC_ASSERT(sizeof(rl_random_uniform_state) <= 16, "rl_random_uniform_state is a small struct");

static rl_status run_random_uniform(rl_plan *plan, rl_op *op) {
    rl_random_uniform_state *st = (rl_random_uniform_state *)op->state;
    f32_random_uniform_ref(st->stream->key, st->stream->counter, st->count, (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

/* FNV-1a over every graph input's rank and sizes: what a resize changes. */
static uint64_t hash_input_shapes(const rl_plan *plan) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (int32_t i = 0; i < plan->n_graph_inputs; ++i) {
        const rl_shape *shape = &plan->tensors[plan->graph_inputs[i]].shape;
        h = (h ^ (uint64_t)(uint32_t)shape->rank) * 0x100000001b3ull;
        for (int32_t d = 0; d < shape->rank; ++d) h = (h ^ (uint64_t)(uint32_t)shape->dims[d]) * 0x100000001b3ull;
    }
    return h;
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
    rl_random_stream previous = {0};
    if (op->scratch && op->scratch_bytes >= sizeof previous) memcpy(&previous, op->scratch, sizeof previous);
    rl_random_stream *stream = (rl_random_stream *)rl_op_scratch(plan, op, sizeof *stream); /* zeroed */
    rl_random_uniform_state *st = (rl_random_uniform_state *)rl_op_state(plan, op, sizeof *st);
    if (!stream || !st) return RL_NO_MEMORY;
    const uint64_t input_shapes = hash_input_shapes(plan);
    if (previous.started && previous.input_shapes == input_shapes && previous.seed == op->params.random.seed &&
        previous.seed2 == op->params.random.seed2) {
        *stream = previous; /* nothing was resized: LiteRT would not have prepared again */
    } else {
        /* LiteRT keeps the seeds as C ints: the low 32 bits, sign-extended, key and count its Philox */
        uint64_t seed = (uint64_t)(int64_t)(int32_t)(uint32_t)op->params.random.seed;
        uint64_t seed2 = (uint64_t)(int64_t)(int32_t)(uint32_t)op->params.random.seed2;
        if (seed == 0 && seed2 == 0) {
            seed = nondeterministic_seed(stream, 1);
            seed2 = nondeterministic_seed(stream, 2);
        }
        *stream = (rl_random_stream){.key = {(uint32_t)seed, (uint32_t)(seed >> 32)},
                                     .counter = {0, 0, (uint32_t)seed2, (uint32_t)(seed2 >> 32)},
                                     .input_shapes = input_shapes,
                                     .seed = op->params.random.seed,
                                     .seed2 = op->params.random.seed2,
                                     .started = 1};
    }
    *st = (rl_random_uniform_state){.stream = stream, .count = rl_shape_count(&output->shape)};
    op->run = run_random_uniform;
    return RL_OK;
}

rl_status rl_eval_random_uniform(rl_plan *plan, rl_op *op) { return run_random_uniform(plan, op); }
