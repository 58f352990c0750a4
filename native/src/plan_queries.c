/* plan_queries.c — what a prepared plan tells its caller: tensors' shapes, bytes and data, ops' state, the
 * arena and constants' sizes, and the spans of the model file that invoke still reads. */
#include <string.h>

#include "ops.h"
#include "plan_internal.h"

int32_t rl_plan_tensor_count(const rl_plan *plan) { return plan->n_tensors; }
int32_t rl_plan_op_count(const rl_plan *plan) { return plan->n_ops; }

int32_t rl_plan_tensor_rank(const rl_plan *plan, int32_t tensor) {
    return (tensor >= 0 && tensor < plan->n_tensors) ? plan->tensors[tensor].shape.rank : -1;
}

int32_t rl_plan_tensor_dim(const rl_plan *plan, int32_t tensor, int32_t axis) {
    if (tensor < 0 || tensor >= plan->n_tensors) return -1;
    const rl_shape *s = &plan->tensors[tensor].shape;
    return (axis >= 0 && axis < s->rank) ? s->dims[axis] : -1;
}

size_t rl_plan_tensor_bytes(const rl_plan *plan, int32_t tensor) {
    return (tensor >= 0 && tensor < plan->n_tensors) ? rl_tensor_bytes(&plan->tensors[tensor]) : 0;
}

int32_t rl_plan_is_prepared(const rl_plan *plan) { return plan->prepared; }

void *rl_plan_tensor_data(rl_plan *plan, int32_t tensor) {
    if (tensor < 0 || tensor >= plan->n_tensors) return NULL;
    const rl_tensor *t = &plan->tensors[tensor];
    /* Until prepared again, a resized tensor's memory is still its old shape's, maybe smaller: no pointer to it
     * (only to a constant, which lies in the model's bytes). */
    if (!plan->prepared && !t->file_data) return NULL;
    return t->data;
}

int32_t rl_plan_tensor_storage(const rl_plan *plan, int32_t tensor) {
    return (tensor >= 0 && tensor < plan->n_tensors) ? plan->tensors[tensor].storage : RL_STORAGE_NONE;
}

int32_t rl_plan_op_is_folded(const rl_plan *plan, int32_t op) {
    return (op >= 0 && op < plan->n_ops) ? plan->ops[op].folded : 0;
}

size_t rl_plan_arena_bytes(const rl_plan *plan) { return plan->arena_bytes; }

size_t rl_plan_constant_bytes(const rl_plan *plan) {
    size_t n = 0;
    for (int32_t i = 0; i < plan->n_tensors; ++i)
        if (plan->tensors[i].file_data) n += plan->tensors[i].file_bytes;
    return n;
}

/* Whether an invoke reads input k's own bytes: the op runs at invoke and did not pack that input (a dynamic
 * op is prepared again at invoke, so it reads what it packs). */
static int32_t input_read_at_invoke(const rl_op *op, int32_t k) {
    return !op->folded && (op->dynamic || k >= 32 || !(op->packed_inputs >> k & 1u));
}

size_t rl_plan_constant_spans(const rl_plan *plan, const void *model, size_t model_bytes, uint64_t *spans,
                              size_t capacity) {
    const uintptr_t base = (uintptr_t)model;
    size_t n = 0;
    for (int32_t t = 0; t < plan->n_tensors; ++t) {
        const rl_tensor *tensor = &plan->tensors[t];
        const uintptr_t at = (uintptr_t)tensor->file_data;
        if (!tensor->file_data || at < base || at - base > model_bytes || tensor->file_bytes > model_bytes - (at - base))
            continue;
        if (n < capacity) {
            spans[3 * n] = (uint64_t)(at - base);
            spans[3 * n + 1] = (uint64_t)tensor->file_bytes;
            spans[3 * n + 2] = 0;
        }
        ++n;
    }
    /* One pass over the ops marks each span an invoke reads (spans are in tensor order: found by search). */
    const size_t written = n < capacity ? n : capacity;
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        const rl_op *op = &plan->ops[i];
        for (int32_t k = 0; k < op->n_inputs; ++k) {
            const int32_t t = op->inputs[k];
            if (t < 0 || t >= plan->n_tensors || !plan->tensors[t].file_data || !input_read_at_invoke(op, k)) continue;
            const uint64_t at = (uint64_t)((uintptr_t)plan->tensors[t].file_data - base);
            for (size_t j = 0; j < written; ++j)
                if (spans[3 * j] == at && spans[3 * j + 1] == (uint64_t)plan->tensors[t].file_bytes) spans[3 * j + 2] = 1;
        }
    }
    return n;
}

size_t rl_plan_folded_bytes(const rl_plan *plan) {
    size_t n = 0;
    for (int32_t i = 0; i < plan->n_tensors; ++i)
        if (plan->tensors[i].storage == RL_STORAGE_FOLDED) n += plan->tensors[i].bytes;
    return n;
}

size_t rl_plan_packed_weight_bytes(const rl_plan *plan) {
    size_t n = 0;
    for (int32_t i = 0; i < plan->n_ops; ++i) n += plan->ops[i].packed_weight_bytes;
    return n;
}

size_t rl_plan_op_state_bytes(const rl_plan *plan) {
    size_t n = 0;
    for (int32_t i = 0; i < plan->n_ops; ++i) n += plan->ops[i].state_bytes + plan->ops[i].scratch_bytes;
    return n;
}

size_t rl_plan_dynamic_bytes(const rl_plan *plan) { return plan->dynamic_bytes; }

const char *rl_plan_isa(const rl_plan *plan) { return rl_isa_name(plan->isa); }

int32_t rl_plan_op_segment_last(const rl_plan *plan, int32_t op) {
    return plan->prepared && op >= 0 && op < plan->n_ops ? plan->ops[op].segment_last : -1;
}

int32_t rl_plan_threads(const rl_plan *plan) { return rl_threadpool_threads(plan->pool); }

int32_t rl_op_is_known(int32_t builtin_code) { return rl_find_op_kind(builtin_code) != NULL; }

/* The graph's inputs and outputs and a tensor's type and quantization: what an app in C needs to feed and read
 * a model without parsing the flatbuffer itself (the Python runtime reads them from the file). */
int32_t rl_plan_input_count(const rl_plan *plan) { return plan->n_graph_inputs; }
int32_t rl_plan_output_count(const rl_plan *plan) { return plan->n_graph_outputs; }

int32_t rl_plan_input(const rl_plan *plan, int32_t i) {
    return (i >= 0 && i < plan->n_graph_inputs) ? plan->graph_inputs[i] : -1;
}

int32_t rl_plan_output(const rl_plan *plan, int32_t i) {
    return (i >= 0 && i < plan->n_graph_outputs) ? plan->graph_outputs[i] : -1;
}

int32_t rl_plan_tensor_dtype(const rl_plan *plan, int32_t tensor) {
    return (tensor >= 0 && tensor < plan->n_tensors) ? plan->tensors[tensor].dtype : -1;
}

int32_t rl_plan_tensor_quantization(const rl_plan *plan, int32_t tensor, float *scale, int64_t *zero_point) {
    if (tensor < 0 || tensor >= plan->n_tensors) return 0;
    const rl_tensor *t = &plan->tensors[tensor];
    if (t->q_count > 0) {
        if (scale) *scale = t->q_scales[0];
        if (zero_point) *zero_point = t->q_zero_points[0];
    }
    return t->q_count;
}

const char *rl_status_name(int32_t status) {
    switch (status) {
    case RL_OK: return "ok";
    case RL_INVALID: return "invalid";
    case RL_UNSUPPORTED: return "unsupported";
    case RL_NO_MEMORY: return "out of memory";
    case RL_BAD_STATE: return "bad state";
    case RL_CANCELLED: return "cancelled";
    }
    return "unknown status";
}
