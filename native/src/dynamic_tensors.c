/* dynamic_tensors.c — tensors whose shape is known only during invoke (TFLite's dynamic tensors).
 *
 * A control-flow op whose output's shape depends on the data (a WHILE body that grows a loop value, IF
 * branches that give different shapes) marks that output RL_STORAGE_DYNAMIC, and the plan marks so every
 * output of an op that reads a dynamic tensor. A dynamic tensor has its own heap block outside the arena,
 * grown when a larger shape comes; plan.c prepares a dynamic op again, just before it runs, when one of
 * its inputs changed shape or memory. The arena plan of everything else is untouched. */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"

#define RL_DYNAMIC_ALIGNMENT 64

const char *rl_shape_text(const rl_shape *s, char text[RL_SHAPE_TEXT]) {
    size_t used = 0;
    text[used++] = '[';
    for (int32_t d = 0; d < s->rank && d < RL_MAX_DIMS; ++d) {
        char dim[16]; /* ", -2147483648" */
        const int n = snprintf(dim, sizeof dim, d ? ", %d" : "%d", s->dims[d]);
        if (n <= 0 || n >= (int)sizeof dim) break;
        memcpy(text + used, dim, (size_t)n);
        used += (size_t)n;
    }
    text[used++] = ']';
    text[used] = '\0';
    return text;
}

/* The bytes of `dtype` in `shape`, or SIZE_MAX for a shape no tensor may take (a negative dimension, or
 * beyond 2^40 bytes, prepare's limit for every tensor). */
static size_t shape_bytes(int32_t dtype, const rl_shape *shape) {
    const int64_t count = rl_shape_count(shape);
    const size_t size = rl_dtype_size(dtype) ? rl_dtype_size(dtype) : 1;
    if (count < 0 || (double)count * (double)size > 1099511627776.0) return SIZE_MAX;
    return (size_t)count * rl_dtype_size(dtype);
}

size_t rl_model_tensor_bytes(const rl_plan *plan) {
    if (!plan->program) return plan->arena_bytes + plan->dynamic_bytes;
    size_t n = 0;
    for (int32_t i = 0; i < plan->program->n_plans; ++i) {
        const rl_plan *p = plan->program->plans[i];
        if (p) n += p->arena_bytes + p->dynamic_bytes;
    }
    return n;
}

rl_status rl_dynamic_reserve(rl_plan *plan, rl_tensor *t) {
    const size_t bytes = shape_bytes(t->dtype, &t->shape);
    if (bytes == SIZE_MAX) {
        char text[RL_SHAPE_TEXT];
        return rl_fail(plan, RL_INVALID, "a %s tensor of shape %s is larger than 2^40 bytes or malformed",
                       rl_dtype_name(t->dtype), rl_shape_text(&t->shape, text));
    }
    if (t->owned && bytes <= t->capacity) {
        t->data = t->owned;
        t->bytes = bytes;
        return RL_OK;
    }
    /* A tensor that grows during invoke is held to the memory limit with every tensor of the model (each
     * subgraph's arena and dynamic tensors), not only by its own size: a loop that grows it without bound
     * stops there. Half as much again as asked, so that a value grown a row at a time is not reallocated at
     * every row; exactly what is asked when the extra would pass the limit. */
    const size_t model = rl_model_tensor_bytes(plan) - t->capacity, limit = plan->memory_limit;
    size_t capacity = (bytes + bytes / 2 + RL_DYNAMIC_ALIGNMENT - 1) / RL_DYNAMIC_ALIGNMENT * RL_DYNAMIC_ALIGNMENT;
    if (capacity < bytes || capacity > limit || model > limit - capacity)
        capacity = (bytes + RL_DYNAMIC_ALIGNMENT - 1) / RL_DYNAMIC_ALIGNMENT * RL_DYNAMIC_ALIGNMENT;
    if (capacity == 0) capacity = RL_DYNAMIC_ALIGNMENT;
    if (capacity < bytes || capacity > limit || model > limit - capacity)
        return rl_fail(plan, RL_NO_MEMORY, "a tensor of %zu bytes, whose shape changes during invoke, would bring the "
                       "model's tensors to %.0f bytes, more than the memory limit of %zu bytes", bytes,
                       (double)model + (double)capacity, limit);
    void *block = NULL;
    if (posix_memalign(&block, RL_DYNAMIC_ALIGNMENT, capacity) != 0)
        return rl_fail(plan, RL_NO_MEMORY, "out of memory for a %zu-byte tensor whose shape changed", bytes);
    memset(block, 0, capacity);
    free(t->owned);
    plan->dynamic_bytes = plan->dynamic_bytes - t->capacity + capacity;
    t->owned = block;
    t->capacity = capacity;
    t->data = block;
    t->bytes = bytes;
    return RL_OK;
}

rl_status rl_tensor_resize(rl_plan *plan, rl_tensor *t, const rl_shape *shape) {
    if (t->storage != RL_STORAGE_DYNAMIC) {
        if (rl_shape_equal(&t->shape, shape)) return RL_OK;
        char has[RL_SHAPE_TEXT], gets[RL_SHAPE_TEXT];
        return rl_fail(plan, RL_BAD_STATE, "a tensor prepared as %s gets a value of shape %s",
                       rl_shape_text(&t->shape, has), rl_shape_text(shape, gets));
    }
    const rl_shape old = t->shape;
    t->shape = *shape;
    const rl_status s = rl_dynamic_reserve(plan, t);
    if (s != RL_OK) t->shape = old; /* the block still holds the old shape */
    return s;
}

int rl_reads_dynamic_tensor(const rl_plan *plan, const rl_op *op) {
    for (int32_t k = 0; k < op->n_inputs; ++k)
        if (op->inputs[k] >= 0 && plan->tensors[op->inputs[k]].storage == RL_STORAGE_DYNAMIC) return 1;
    return 0;
}

int rl_dynamic_inputs_changed(const rl_plan *plan, const rl_op *op) {
    if (!op->seen) return 1;
    for (int32_t k = 0; k < op->n_inputs; ++k) {
        if (op->inputs[k] < 0) continue;
        const rl_tensor *t = &plan->tensors[op->inputs[k]];
        if (t->data != op->seen[k].data || !rl_shape_equal(&t->shape, &op->seen[k].shape)) return 1;
    }
    return 0;
}

rl_status rl_dynamic_op_ready(rl_plan *plan, rl_op *op) {
    for (int32_t k = 0; k < op->n_outputs; ++k) {
        rl_tensor *out = rl_output(plan, op, k);
        out->storage = RL_STORAGE_DYNAMIC;
        const rl_status s = rl_dynamic_reserve(plan, out);
        if (s != RL_OK) return s;
    }
    if (op->arena_scratch_bytes > op->heap_scratch_bytes) {
        if (rl_check_memory_limit(plan, op->arena_scratch_bytes, "the op's scratch") != RL_OK) return RL_NO_MEMORY;
        void *block = NULL;
        if (posix_memalign(&block, RL_DYNAMIC_ALIGNMENT, op->arena_scratch_bytes) != 0)
            return rl_fail(plan, RL_NO_MEMORY, "out of memory for %zu bytes of scratch", op->arena_scratch_bytes);
        free(op->heap_scratch);
        op->heap_scratch = block;
        op->heap_scratch_bytes = op->arena_scratch_bytes;
    }
    op->arena_scratch = op->arena_scratch_bytes ? op->heap_scratch : NULL;
    if (op->setup) {
        const rl_status s = op->setup(plan, op);
        if (s != RL_OK) return s;
    }
    if (!op->seen) {
        op->seen = (rl_seen_input *)calloc((size_t)op->n_inputs + 1, sizeof *op->seen);
        if (!op->seen) return rl_fail(plan, RL_NO_MEMORY, "out of memory preparing the op");
    }
    for (int32_t k = 0; k < op->n_inputs; ++k) {
        if (op->inputs[k] < 0) continue;
        op->seen[k].shape = plan->tensors[op->inputs[k]].shape;
        op->seen[k].data = plan->tensors[op->inputs[k]].data;
    }
    op->stale = 0;
    return RL_OK;
}

void rl_dynamic_op_defer(rl_plan *plan, rl_op *op) {
    op->stale = 1;
    plan->message[0] = '\0';
    plan->failed_op = -1;
    for (int32_t k = 0; k < op->n_outputs; ++k) {
        rl_tensor *out = rl_output(plan, op, k);
        out->storage = RL_STORAGE_DYNAMIC;
        out->shape.rank = 1; /* empty until the op runs */
        out->shape.dims[0] = 0;
    }
}
