/* plan.c — building a plan and preparing it (shapes, constant folding, arena offsets). The tensor helpers ops
 * use are in tensor_helpers.c, invoking in plan_invoke.c, the queries in plan_queries.c. */
#define _POSIX_C_SOURCE 200112L
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "arena_planner.h"
#include "bands.h"
#include "ops.h"
#include "plan_internal.h"
#include "program.h"

#define RL_ARENA_ALIGNMENT 64

/* ---- building ---- */

/* The path RILLET_ISA names (when set) or the best this CPU runs; a path the CPU lacks is an error, not a
 * crash on the first instruction it cannot execute. */
static rl_status choose_isa(rl_plan *plan) {
    const char *forced = getenv("RILLET_ISA");
    if (!forced || !*forced) {
        plan->isa = rl_detect_isa();
        return RL_OK;
    }
    const int isa = rl_isa_parse(forced);
    if (isa < 0)
        return rl_fail(plan, RL_INVALID, "RILLET_ISA=%.40s names no path (ref, scalar, avx2, avx512, avx512vnni, neon, "
                       "neondot)", forced);
    if (!rl_isa_supported((rl_isa)isa))
        return rl_fail(plan, RL_UNSUPPORTED, "RILLET_ISA=%s: this CPU runs at most %s", forced,
                       rl_isa_name(rl_detect_isa()));
    plan->isa = (rl_isa)isa;
    return RL_OK;
}

/* The default limit on one allocation: the machine's physical memory (a plan that needs more cannot run),
 * or RILLET_MEMORY_LIMIT_MB when set. */
static size_t default_memory_limit(void) {
    const char *forced = getenv("RILLET_MEMORY_LIMIT_MB");
    if (forced && *forced) {
        char *end;
        const unsigned long long mb = strtoull(forced, &end, 10);
        if (*end == '\0' && mb > 0 && mb < (1ull << 40)) return (size_t)(mb << 20);
    }
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && (double)pages * (double)page < (double)SIZE_MAX) return (size_t)pages * (size_t)page;
    return SIZE_MAX;
}

void rl_plan_set_memory_limit(rl_plan *plan, size_t bytes) { plan->memory_limit = bytes ? bytes : SIZE_MAX; }

rl_status rl_check_memory_limit(rl_plan *plan, size_t bytes, const char *what) {
    if (bytes <= plan->memory_limit) return RL_OK;
    return rl_fail(plan, RL_NO_MEMORY, "%s needs %zu bytes, more than the memory limit of %zu bytes", what, bytes,
                   plan->memory_limit);
}

int32_t rl_best_isa(void) { return (int32_t)rl_detect_isa(); }

rl_status rl_plan_create(rl_plan **plan_out, int32_t num_threads) {
    return rl_plan_create_on(plan_out, num_threads, -1);
}

rl_status rl_plan_create_on(rl_plan **plan_out, int32_t num_threads, int32_t isa) {
    rl_plan *plan = (rl_plan *)calloc(1, sizeof *plan);
    *plan_out = plan;
    if (!plan) return RL_NO_MEMORY;
    plan->num_threads = num_threads > 0 ? num_threads : 1;
    plan->failed_op = -1;
    plan->current_op = -1;
    plan->memory_limit = default_memory_limit();
    rl_invoke_guard_init(&plan->own_guard);
    plan->guard = &plan->own_guard;
    rl_status s = RL_OK;
    if (isa < 0) s = choose_isa(plan);
    else if (isa <= RL_ISA_NEONDOT) plan->isa = (rl_isa)isa;
    else s = rl_fail(plan, RL_INVALID, "kernel path %d is not one rl_best_isa returns", isa);
    plan->kernel_table = rl_kernel_table_for(s == RL_OK ? plan->isa : RL_ISA_SCALAR);
    plan->kernels = &plan->kernel_table;
    if (s != RL_OK) return s;
    plan->pool = rl_threadpool_create(plan->num_threads);
    return RL_OK;
}

static void release_op_state(rl_plan *plan, rl_op *op) {
    rl_zeroed_free(plan->block_cache, &op->state_block);
    op->state = NULL;
    op->state_bytes = 0;
    op->packed_weight_bytes = 0;
    op->packed_inputs = 0;
}

static void release_prepared(rl_plan *plan) {
    for (int32_t i = 0; i < plan->n_tensors; ++i) {
        free(plan->tensors[i].owned);
        plan->tensors[i].owned = NULL;
        plan->tensors[i].capacity = 0;
        plan->tensors[i].data = NULL;
        plan->tensors[i].storage = RL_STORAGE_NONE;
    }
    plan->dynamic_bytes = 0;
    rl_zeroed_free(plan->block_cache, &plan->arena_block);
    plan->arena = NULL;
    plan->arena_bytes = 0;
    plan->prepared = 0;
}

void rl_plan_set_block_cache(rl_plan *plan, rl_block_cache *cache) { plan->block_cache = cache; }

void rl_plan_destroy(rl_plan *plan) {
    if (!plan) return;
    if (plan->program) /* the program must not invoke a plan that is gone */
        for (int32_t i = 0; i < plan->program->n_plans; ++i)
            if (plan->program->plans[i] == plan) plan->program->plans[i] = NULL;
    release_prepared(plan);
    for (int32_t i = 0; i < plan->n_tensors; ++i) {
        free(plan->tensors[i].q_scales);
        free(plan->tensors[i].q_zero_points);
    }
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        free(plan->ops[i].inputs);
        free(plan->ops[i].outputs);
        free(plan->ops[i].scratch);
        free(plan->ops[i].seen);
        free(plan->ops[i].heap_scratch);
        release_op_state(plan, &plan->ops[i]);
    }
    rl_threadpool_destroy(plan->pool);
    free(plan->tensors);
    free(plan->ops);
    free(plan->graph_inputs);
    free(plan->graph_outputs);
    free(plan->carried);
    free(plan);
}

const char *rl_plan_message(const rl_plan *plan) { return plan->message; }
int32_t rl_plan_failed_op(const rl_plan *plan) { return plan->failed_op; }

static rl_status check_shape(rl_plan *plan, int32_t rank, const int32_t *shape) {
    if (rank < 0 || rank > RL_MAX_DIMS)
        return rl_fail(plan, RL_UNSUPPORTED, "rank %d is outside 0..%d", rank, RL_MAX_DIMS);
    for (int32_t d = 0; d < rank; ++d)
        if (shape[d] < 0) return rl_fail(plan, RL_INVALID, "dimension %d is %d", d, shape[d]);
    return RL_OK;
}

rl_status rl_plan_add_tensor(rl_plan *plan, int32_t dtype, int32_t rank, const int32_t *shape,
                             const void *data, size_t data_bytes, int32_t is_variable) {
    plan->current_op = -1;
    const rl_status s = check_shape(plan, rank, shape);
    if (s != RL_OK) return s;
    if (plan->n_tensors == plan->cap_tensors) {
        int32_t cap = plan->cap_tensors ? plan->cap_tensors * 2 : 64;
        rl_tensor *grown = (rl_tensor *)realloc(plan->tensors, (size_t)cap * sizeof *grown);
        if (!grown) return rl_fail(plan, RL_NO_MEMORY, "out of memory adding a tensor");
        plan->tensors = grown;
        plan->cap_tensors = cap;
    }
    rl_tensor *t = &plan->tensors[plan->n_tensors++];
    memset(t, 0, sizeof *t);
    t->dtype = dtype;
    t->shape.rank = rank;
    for (int32_t d = 0; d < rank; ++d) t->shape.dims[d] = shape[d];
    t->file_data = data;
    t->file_bytes = data_bytes;
    t->is_variable = is_variable;
    t->storage = RL_STORAGE_NONE;
    plan->prepared = 0;
    return RL_OK;
}

rl_status rl_plan_set_quantization(rl_plan *plan, int32_t tensor, int32_t count, const float *scales,
                                   const int64_t *zero_points, int32_t quantized_dimension) {
    if (tensor < 0 || tensor >= plan->n_tensors) return rl_fail(plan, RL_INVALID, "no tensor %d", tensor);
    rl_tensor *t = &plan->tensors[tensor];
    free(t->q_scales);
    free(t->q_zero_points);
    t->q_scales = (float *)malloc(sizeof(float) * (size_t)(count > 0 ? count : 1));
    t->q_zero_points = (int64_t *)malloc(sizeof(int64_t) * (size_t)(count > 0 ? count : 1));
    if (!t->q_scales || !t->q_zero_points) return rl_fail(plan, RL_NO_MEMORY, "out of memory");
    for (int32_t i = 0; i < count; ++i) {
        /* TFLite's quantization spec: a scale is a positive real. Zero, negative, NaN, infinite or subnormal
         * scales would make every requantization below divide by zero or overflow the float-to-int casts. */
        const int integer = t->dtype != RL_FLOAT32 && t->dtype != RL_FLOAT16; /* a float's are never used */
        if (integer && (!(scales[i] >= FLT_MIN) || !isfinite(scales[i])))
            return rl_fail(plan, RL_INVALID, "malformed: tensor %d: quantization scale %d is %g; a scale must be "
                           "positive, finite and normal", tensor, i, (double)scales[i]);
        t->q_scales[i] = scales[i];
        t->q_zero_points[i] = zero_points[i];
    }
    t->q_count = count;
    t->q_dimension = quantized_dimension;
    return RL_OK;
}

rl_status rl_plan_add_op(rl_plan *plan, int32_t builtin_code, int32_t n_inputs, const int32_t *inputs,
                         int32_t n_outputs, const int32_t *outputs, const rl_op_params *params) {
    plan->current_op = plan->n_ops;
    for (int32_t i = 0; i < n_inputs; ++i)
        if (inputs[i] < -1 || inputs[i] >= plan->n_tensors)
            return rl_fail(plan, RL_INVALID, "input %d names tensor %d, the model has %d", i, inputs[i],
                           plan->n_tensors);
    for (int32_t i = 0; i < n_outputs; ++i)
        if (outputs[i] < 0 || outputs[i] >= plan->n_tensors)
            return rl_fail(plan, RL_INVALID, "output %d names tensor %d, the model has %d", i, outputs[i],
                           plan->n_tensors);
    if (plan->n_ops == plan->cap_ops) {
        int32_t cap = plan->cap_ops ? plan->cap_ops * 2 : 32;
        rl_op *grown = (rl_op *)realloc(plan->ops, (size_t)cap * sizeof *grown);
        if (!grown) return rl_fail(plan, RL_NO_MEMORY, "out of memory adding an op");
        plan->ops = grown;
        plan->cap_ops = cap;
    }
    rl_op *op = &plan->ops[plan->n_ops];
    memset(op, 0, sizeof *op);
    op->inputs = (int32_t *)malloc(sizeof(int32_t) * (size_t)(n_inputs + 1));
    op->outputs = (int32_t *)malloc(sizeof(int32_t) * (size_t)(n_outputs + 1));
    if (!op->inputs || !op->outputs) {
        free(op->inputs);
        free(op->outputs);
        return rl_fail(plan, RL_NO_MEMORY, "out of memory adding an op");
    }
    memcpy(op->inputs, inputs, sizeof(int32_t) * (size_t)n_inputs);
    memcpy(op->outputs, outputs, sizeof(int32_t) * (size_t)n_outputs);
    op->n_inputs = n_inputs;
    op->n_outputs = n_outputs;
    op->code = builtin_code;
    op->kind = rl_find_op_kind(builtin_code);
    if (params) op->params = *params;
    plan->n_ops++;
    plan->prepared = 0;
    return RL_OK;
}

static rl_status copy_indices(rl_plan *plan, int32_t **dst, int32_t n, const int32_t *src) {
    free(*dst);
    *dst = (int32_t *)malloc(sizeof(int32_t) * (size_t)(n + 1));
    if (!*dst) return rl_fail(plan, RL_NO_MEMORY, "out of memory");
    for (int32_t i = 0; i < n; ++i) {
        if (src[i] < 0 || src[i] >= plan->n_tensors)
            return rl_fail(plan, RL_INVALID, "graph input/output %d names tensor %d, the model has %d", i,
                           src[i], plan->n_tensors);
        (*dst)[i] = src[i];
    }
    return RL_OK;
}

rl_status rl_plan_set_io(rl_plan *plan, int32_t n_inputs, const int32_t *inputs, int32_t n_outputs,
                         const int32_t *outputs) {
    plan->current_op = -1;
    rl_status s = copy_indices(plan, &plan->graph_inputs, n_inputs, inputs);
    if (s != RL_OK) return s;
    plan->n_graph_inputs = n_inputs;
    s = copy_indices(plan, &plan->graph_outputs, n_outputs, outputs);
    if (s != RL_OK) return s;
    plan->n_graph_outputs = n_outputs;
    plan->prepared = 0;
    return RL_OK;
}

static const char *unsupported_reason(const rl_plan *plan, const rl_op *op) {
    if (!op->kind) return "no kernel";
    /* The dtype of the data the op computes on (its kind's data_input), else of its first input present. */
    int32_t dtype = -1;
    const int32_t data = op->kind->data_input;
    if (data < op->n_inputs && op->inputs[data] >= 0) dtype = plan->tensors[op->inputs[data]].dtype;
    for (int32_t k = 0; k < op->n_inputs && dtype < 0; ++k)
        if (op->inputs[k] >= 0) dtype = plan->tensors[op->inputs[k]].dtype;
    if (dtype >= 0 && (dtype > 31 || !(op->kind->dtypes & (1u << dtype)))) return rl_dtype_name(dtype);
    return NULL;
}

int32_t rl_plan_op_supported(const rl_plan *plan, int32_t op) {
    return op >= 0 && op < plan->n_ops && unsupported_reason(plan, &plan->ops[op]) == NULL;
}

rl_status rl_plan_check_support(rl_plan *plan) {
    size_t used = 0;
    int32_t missing = 0;
    plan->message[0] = '\0';
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        const rl_op *op = &plan->ops[i];
        const char *why = unsupported_reason(plan, op);
        if (!why) continue;
        ++missing;
        if (used < sizeof plan->message) {
            int n = snprintf(plan->message + used, sizeof plan->message - used, "%sop %d (code %d, %s)",
                             missing > 1 ? "; " : "", i, op->code, why);
            if (n > 0) used += (size_t)n;
        }
    }
    plan->failed_op = -1;
    return missing ? RL_UNSUPPORTED : RL_OK;
}

rl_status rl_plan_set_tensor_shape(rl_plan *plan, int32_t tensor, int32_t rank, const int32_t *shape) {
    plan->current_op = -1;
    if (tensor < 0 || tensor >= plan->n_tensors) return rl_fail(plan, RL_INVALID, "no tensor %d", tensor);
    const rl_status s = check_shape(plan, rank, shape);
    if (s != RL_OK) return s;
    rl_tensor *t = &plan->tensors[tensor];
    if (t->file_data) return rl_fail(plan, RL_INVALID, "tensor %d is constant; its shape cannot change", tensor);
    t->shape.rank = rank;
    for (int32_t d = 0; d < rank; ++d) t->shape.dims[d] = shape[d];
    plan->prepared = 0;
    return RL_OK;
}

static int is_graph_input(const rl_plan *plan, int32_t tensor) {
    for (int32_t i = 0; i < plan->n_graph_inputs; ++i)
        if (plan->graph_inputs[i] == tensor) return 1;
    return 0;
}

static int is_graph_output(const rl_plan *plan, int32_t tensor) {
    for (int32_t i = 0; i < plan->n_graph_outputs; ++i)
        if (plan->graph_outputs[i] == tensor) return 1;
    return 0;
}

rl_status rl_plan_set_carried(rl_plan *plan, int32_t count, const int32_t *outputs, const int32_t *inputs) {
    plan->current_op = -1;
    if (count < 0) return rl_fail(plan, RL_INVALID, "carried pairs: count %d is negative", count);
    for (int32_t i = 0; i < count; ++i) {
        if (!is_graph_output(plan, outputs[i]))
            return rl_fail(plan, RL_INVALID, "carried output %d: tensor %d is not a graph output", i, outputs[i]);
        if (!is_graph_input(plan, inputs[i]))
            return rl_fail(plan, RL_INVALID, "carried input %d: tensor %d is not a graph input", i, inputs[i]);
        for (int32_t k = 0; k < i; ++k)
            if (inputs[k] == inputs[i])
                return rl_fail(plan, RL_INVALID, "carried input tensor %d is fed by two outputs", inputs[i]);
    }
    int32_t *pairs = (int32_t *)malloc(sizeof *pairs * (size_t)(2 * count + 1));
    if (!pairs) return rl_fail(plan, RL_NO_MEMORY, "out of memory");
    for (int32_t i = 0; i < count; ++i) {
        pairs[2 * i] = outputs[i];
        pairs[2 * i + 1] = inputs[i];
    }
    free(plan->carried);
    plan->carried = pairs;
    plan->n_carried = count;
    plan->prepared = 0;
    return RL_OK;
}

void rl_plan_set_preserve_all_tensors(rl_plan *plan, int32_t preserve) {
    plan->preserve_all = preserve;
    plan->prepared = 0;
}

/* ---- preparing ---- */

void *rl_op_scratch(rl_plan *plan, rl_op *op, size_t bytes) {
    if (bytes == 0) bytes = 1;
    if (rl_check_memory_limit(plan, bytes, "the op's scratch") != RL_OK) return NULL;
    if (op->scratch_bytes < bytes) {
        void *grown = realloc(op->scratch, bytes);
        if (!grown) {
            rl_fail(plan, RL_NO_MEMORY, "out of memory preparing the op");
            return NULL;
        }
        op->scratch = grown;
        op->scratch_bytes = bytes;
    }
    memset(op->scratch, 0, bytes);
    return op->scratch;
}

void *rl_op_state(rl_plan *plan, rl_op *op, size_t bytes) {
    release_op_state(plan, op);
    if (rl_check_memory_limit(plan, bytes, "the op's prepared state") != RL_OK) return NULL;
    op->state_block = rl_zeroed_alloc(plan->block_cache, bytes);
    if (!op->state_block.base) {
        rl_fail(plan, RL_NO_MEMORY, "out of memory preparing the op (%zu bytes of state)", bytes);
        return NULL;
    }
    op->state = op->state_block.base;
    op->state_bytes = bytes;
    return op->state;
}

void *rl_op_state_parts(rl_plan *plan, rl_op *op, int32_t count, const size_t *bytes, void **parts) {
    size_t total = 0;
    for (int32_t i = 0; i < count; ++i) total += (bytes[i] + 63) / 64 * 64;
    char *memory = (char *)rl_op_state(plan, op, total);
    if (!memory) return NULL;
    for (int32_t i = 0; i < count; ++i) {
        parts[i] = memory;
        memory += (bytes[i] + 63) / 64 * 64;
    }
    return parts[0];
}

void rl_request_arena_scratch(rl_op *op, size_t bytes) {
    if (bytes > op->arena_scratch_bytes) op->arena_scratch_bytes = bytes;
}

/* Shapes beyond 2^40 bytes are malformed for an edge runtime, and would overflow size arithmetic. */
static int shape_too_large(const rl_tensor *t) {
    double bytes = (double)(rl_dtype_size(t->dtype) ? rl_dtype_size(t->dtype) : 1);
    for (int32_t d = 0; d < t->shape.rank; ++d) bytes *= (double)t->shape.dims[d];
    return bytes > 1099511627776.0;
}

/* An empty tensor (a zero in its shape) may have no memory at all; kernels still form pointers into it and
 * pass it to memcpy with 0 bytes, which C leaves undefined for NULL. Every empty tensor without memory points
 * at this instead. */
static const union {
    long double ld;
    int64_t i;
    void *p;
} empty_tensor_memory; /* read-only: nothing writes 0 bytes, and a bug that wrote more would fault here */

static void give_empty_tensors_memory(rl_plan *plan) {
    for (int32_t i = 0; i < plan->n_tensors; ++i) {
        rl_tensor *t = &plan->tensors[i];
        const int empty = rl_shape_count(&t->shape) == 0;
        if (!t->data && empty) t->data = (void *)(uintptr_t)&empty_tensor_memory;
        else if (t->data == (const void *)&empty_tensor_memory && !empty) t->data = NULL; /* an op gave it a shape */
    }
}

static rl_status place_constants(rl_plan *plan) {
    for (int32_t i = 0; i < plan->n_tensors; ++i) {
        rl_tensor *t = &plan->tensors[i];
        if (!t->file_data) continue;
        if (shape_too_large(t)) return rl_fail(plan, RL_INVALID, "tensor %d is larger than 2^40 bytes", i);
        t->bytes = rl_tensor_bytes(t);
        if (t->bytes != t->file_bytes)
            return rl_fail(plan, RL_INVALID, "constant tensor %d holds %zu bytes, its shape and type need %zu", i,
                           t->file_bytes, t->bytes);
        const size_t align = rl_dtype_size(t->dtype) ? rl_dtype_size(t->dtype) : 1;
        if ((uintptr_t)t->file_data % align == 0) {
            t->data = (void *)(uintptr_t)t->file_data; /* used in place, never written */
        } else {
            t->owned = malloc(t->bytes ? t->bytes : 1);
            if (!t->owned) return rl_fail(plan, RL_NO_MEMORY, "out of memory realigning tensor %d", i);
            memcpy(t->owned, t->file_data, t->bytes);
            t->data = t->owned;
        }
        t->storage = RL_STORAGE_CONSTANT;
    }
    return RL_OK;
}

static int op_is_foldable(const rl_plan *plan, const rl_op *op) {
    if (op->kind->stateful) return 0; /* reads or writes the program's variables: runs at every invoke */
    if (op->kind->shape_only) return 1;
    int any = 0;
    for (int32_t i = 0; i < op->n_inputs; ++i) {
        if (op->inputs[i] < 0) continue;
        const rl_tensor *t = &plan->tensors[op->inputs[i]];
        if (!rl_known_data(t) && rl_shape_count(&t->shape) != 0) return 0; /* an empty one holds nothing to wait for */
        any = 1;
    }
    return any;
}

static rl_status fold_op(rl_plan *plan, rl_op *op) {
    for (int32_t i = 0; i < op->n_outputs; ++i) {
        rl_tensor *t = rl_output(plan, op, i);
        t->bytes = rl_tensor_bytes(t);
        if (rl_check_memory_limit(plan, t->bytes, "a folded constant") != RL_OK) return RL_NO_MEMORY;
        free(t->owned);
        t->owned = malloc(t->bytes ? t->bytes : 1);
        if (!t->owned) return rl_fail(plan, RL_NO_MEMORY, "out of memory folding a constant");
        t->data = t->owned;
        t->storage = RL_STORAGE_FOLDED;
    }
    op->folded = 1;
    /* A folded op runs once, now, before the arena exists: its scratch is a temporary allocation. */
    void *scratch = NULL;
    if (op->arena_scratch_bytes && !(scratch = malloc(op->arena_scratch_bytes)))
        return rl_fail(plan, RL_NO_MEMORY, "out of memory folding a constant");
    op->arena_scratch = scratch;
    rl_status s = op->setup ? op->setup(plan, op) : RL_OK;
    if (s == RL_OK) s = op->run ? op->run(plan, op) : op->kind->eval(plan, op);
    op->arena_scratch = NULL;
    free(scratch);
    return s;
}

static void touch(rl_tensor *t, int32_t step) {
    if (t->storage == RL_STORAGE_CONSTANT || t->storage == RL_STORAGE_FOLDED || t->storage == RL_STORAGE_DYNAMIC)
        return;
    if (t->storage == RL_STORAGE_NONE) {
        t->storage = RL_STORAGE_ARENA;
        t->first_op = step;
        t->last_op = step;
    }
    if (step < t->first_op) t->first_op = step;
    if (step > t->last_op) t->last_op = step;
}

static int is_graph_edge(const rl_plan *plan, int32_t tensor) {
    return is_graph_input(plan, tensor) || is_graph_output(plan, tensor);
}

/* DYNAMIC_UPDATE_SLICE (op i) may write over its operand x: no op after it reads x's block (x and every view
 * sharing it: their union is the root's lifetime, final for ops before i as share_view_blocks goes in order,
 * so a later reader of any of them shows as a last step past this op's), and neither the update nor the
 * start indices live in that block (the update's rows would be read while being overwritten). */
static int updates_in_place(const rl_plan *plan, const int32_t *root, int32_t i) {
    const rl_op *op = &plan->ops[i];
    if (op->kind->eval != rl_eval_dynamic_update_slice || op->n_inputs != 3) return 0;
    const int32_t r = root[op->inputs[0]];
    if (plan->tensors[r].last_op != i + 1) return 0;
    for (int32_t k = 1; k < 3; ++k)
        if (op->inputs[k] < 0 || root[op->inputs[k]] == r) return 0;
    return 1;
}

/* DYNAMIC_UPDATE_SLICE (op i) writes a carried cache in place: its operand x is a graph input the caller feeds
 * with this op's output y after every invoke (rl_plan_set_carried), so y's values are x's next ones and x's
 * block may become y's. No other op reads x (it would see the update), x is not an output itself, and neither
 * the update nor the start indices are x. */
static int carries_in_place(const rl_plan *plan, int32_t i) {
    const rl_op *op = &plan->ops[i];
    if (op->kind->eval != rl_eval_dynamic_update_slice || op->n_inputs != 3) return 0;
    const int32_t x = op->inputs[0], y = op->outputs[0];
    int carried = 0;
    for (int32_t k = 0; k < plan->n_carried; ++k) carried |= plan->carried[2 * k] == y && plan->carried[2 * k + 1] == x;
    if (!carried || is_graph_output(plan, x)) return 0;
    for (int32_t j = 0; j < plan->n_ops; ++j) {
        const rl_op *other = &plan->ops[j];
        for (int32_t k = 0; k < other->n_inputs; ++k)
            if (other->inputs[k] == x && (j != i || k != 0)) return 0;
    }
    return 1;
}

/* A view op (RESHAPE, SQUEEZE, EXPAND_DIMS: the ops whose eval is rl_eval_copy) gives its output its input's
 * block instead of a copy of it: Whisper's attention reshapes [6, 1500, 1500] to [1, 6, 1500, 1500] and back,
 * 54 MB copied each way. root[t] is the tensor whose block t uses (t itself for every other tensor), and a root
 * lives over the union of its views' lifetimes, so no other tensor is placed over any of them. That is safe
 * because the only op that writes the shared bytes is the root's producer: every view's op reads and writes the
 * same bytes (rl_eval_copy skips the copy), and no op writes into its inputs. Graph inputs and outputs keep
 * blocks of their own (a caller that sets an input after invoke must not change an output), and so does
 * everything under preserve_all (each intermediate is inspected as it was written).
 * DYNAMIC_UPDATE_SLICE's output takes its operand's block too when this op is the last to read that block
 * (updates_in_place): the op then writes only the update (its kernel skips the copy when x == y), where
 * a decoder's KV cache would otherwise be copied whole at every step; and so does it, graph edges though they
 * are, when the caller carries the output back into the operand (carries_in_place). */
static void share_view_blocks(rl_plan *plan, int32_t *root) {
    for (int32_t i = 0; i < plan->n_tensors; ++i) root[i] = i;
    if (plan->preserve_all) return;
    for (int32_t i = 0; i < plan->n_ops; ++i) { /* in order: an input's root is final before its views' */
        const rl_op *op = &plan->ops[i];
        if (op->folded || op->dynamic || op->n_inputs < 1 || op->n_outputs != 1 || op->inputs[0] < 0) continue;
        const int carried = carries_in_place(plan, i);
        if (op->kind->eval != rl_eval_copy && !carried && !updates_in_place(plan, root, i)) continue;
        const int32_t x = op->inputs[0], y = op->outputs[0];
        rl_tensor *tx = &plan->tensors[x], *ty = &plan->tensors[y];
        if (x == y || tx->storage != RL_STORAGE_ARENA || ty->storage != RL_STORAGE_ARENA ||
            rl_tensor_bytes(tx) != rl_tensor_bytes(ty) ||
            (!carried && (is_graph_edge(plan, x) || is_graph_edge(plan, y))))
            continue;
        rl_tensor *r = &plan->tensors[root[x]];
        root[y] = root[x];
        if (ty->first_op < r->first_op) r->first_op = ty->first_op;
        if (ty->last_op > r->last_op) r->last_op = ty->last_op;
    }
}

/* The steps op i's arena scratch lives over: its own, or to the last op that reads it (arena_scratch_until) and
 * over every segment it then meets, whose bands run those ops' steps side by side; or, when the op's bands read
 * it (band_reads_scratch), over its own segment. */
static rl_arena_block op_scratch_block(const rl_plan *plan, int32_t i) {
    const rl_op *op = &plan->ops[i];
    rl_arena_block b = {.bytes = op->arena_scratch_bytes, .first_step = i + 1, .last_step = i + 1};
    if (op->arena_scratch_until <= i && !op->band_reads_scratch) return b;
    if (op->arena_scratch_until > i) b.last_step = op->arena_scratch_until + 1;
    for (int32_t h = 0; h < plan->n_ops; ++h) { /* in order: a segment reached by an extension is met after it */
        const int32_t e = plan->ops[h].segment_last;
        if (e < 0 || h + 1 > b.last_step || e + 1 < b.first_step) continue;
        if (h + 1 < b.first_step) b.first_step = h + 1;
        if (e + 1 > b.last_step) b.last_step = e + 1;
    }
    return b;
}

/* Every arena tensor (but views, which share their root's: share_view_blocks) and every op's scratch becomes a
 * block with a lifetime; the planner places them. */
static rl_status plan_arena_offsets(rl_plan *plan) {
    int32_t n = 0;
    rl_arena_block *blocks = (rl_arena_block *)malloc(sizeof *blocks * (size_t)(plan->n_tensors + plan->n_ops + 1));
    int32_t *root = (int32_t *)malloc(sizeof *root * (size_t)(plan->n_tensors + 1));
    if (!blocks || !root) {
        free(blocks);
        free(root);
        return rl_fail(plan, RL_NO_MEMORY, "out of memory planning the arena");
    }
    share_view_blocks(plan, root);
    for (int32_t i = 0; i < plan->n_tensors; ++i) {
        rl_tensor *t = &plan->tensors[i];
        if (t->storage != RL_STORAGE_ARENA) continue;
        t->bytes = rl_tensor_bytes(t);
        if (root[i] != i) continue;
        blocks[n++] = (rl_arena_block){.bytes = t->bytes, .first_step = t->first_op, .last_step = t->last_op};
    }
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        const rl_op *op = &plan->ops[i];
        if (op->folded || op->dynamic || !op->arena_scratch_bytes) continue;
        blocks[n++] = op_scratch_block(plan, i);
    }
    const size_t total = rl_place_arena_blocks(blocks, n, RL_ARENA_ALIGNMENT);
    if (total == (size_t)-1) {
        free(blocks);
        free(root);
        return rl_fail(plan, RL_NO_MEMORY, "out of memory planning the arena");
    }
    plan->arena_bytes = total;
    if (rl_check_memory_limit(plan, total, "the arena") != RL_OK) {
        free(blocks);
        free(root);
        return RL_NO_MEMORY;
    }
    plan->arena_block = rl_zeroed_alloc(plan->block_cache, total + RL_ARENA_ALIGNMENT);
    plan->arena = plan->arena_block.base;
    if (!plan->arena) {
        free(blocks);
        free(root);
        return rl_fail(plan, RL_NO_MEMORY, "out of memory allocating a %zu-byte arena", total);
    }
    char *base = (char *)plan->arena;
    base += (RL_ARENA_ALIGNMENT - (uintptr_t)base % RL_ARENA_ALIGNMENT) % RL_ARENA_ALIGNMENT;
    int32_t k = 0;
    for (int32_t i = 0; i < plan->n_tensors; ++i) {
        rl_tensor *t = &plan->tensors[i];
        if (t->storage == RL_STORAGE_ARENA && root[i] == i) t->data = base + blocks[k++].offset;
    }
    for (int32_t i = 0; i < plan->n_tensors; ++i)
        if (root[i] != i) plan->tensors[i].data = plan->tensors[root[i]].data;
    free(root);
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        rl_op *op = &plan->ops[i];
        if (op->dynamic) continue; /* its scratch is on the heap (rl_dynamic_op_ready) */
        op->arena_scratch = (op->folded || !op->arena_scratch_bytes) ? NULL : base + blocks[k++].offset;
    }
    free(blocks);
    return RL_OK;
}

/* The op's prepare, from a clean slate: its shapes, state and scratch request. */
static rl_status prepare_op(rl_plan *plan, rl_op *op) {
    memset(&op->prep, 0, sizeof op->prep);
    op->run = NULL;
    op->setup = NULL;
    op->arena_scratch_bytes = 0;
    op->arena_scratch_until = 0;
    op->band_rows = 0;
    op->band_row_pixels = 0;
    op->band_pointwise = 0;
    op->band_whole_rows = 0;
    op->band_chunks = 0;
    op->band_whole_inputs = 0;
    op->begin_rows = NULL;
    op->run_rows = NULL;
    op->run_rows_scattered = NULL;
    op->band_scatter_granule = 0;
    op->band_scattered = 0;
    op->band_no_scratch = 0;
    op->band_reads_scratch = 0;
    op->band_cache_pixels = 0;
    op->end_rows = NULL;
    release_op_state(plan, op);
    const rl_status s = op->kind->prepare(plan, op);
    if (s != RL_OK) return s;
    for (int32_t k = 0; k < op->n_outputs; ++k)
        if (shape_too_large(&plan->tensors[op->outputs[k]]))
            return rl_fail(plan, RL_INVALID, "output %d would be larger than 2^40 bytes", k);
    return RL_OK;
}

/* A dynamic op just before it runs: prepared again when an input changed shape or memory since its last
 * prepare (a control-flow op before it gave a new shape). */
rl_status rl_plan_refresh_dynamic_op(rl_plan *plan, rl_op *op) {
    if (!op->stale && !rl_dynamic_inputs_changed(plan, op)) return RL_OK;
    op->stale = 1;
    const rl_status s = prepare_op(plan, op);
    return s != RL_OK ? s : rl_dynamic_op_ready(plan, op);
}

rl_status rl_plan_prepare(rl_plan *plan) {
    release_prepared(plan);
    plan->current_op = -1;
    plan->failed_op = -1;
    plan->message[0] = '\0';
    rl_status s = place_constants(plan);
    if (s == RL_OK) s = rl_plan_check_graph(plan); /* a plan built op by op is checked here */
    if (s != RL_OK) return s;
    give_empty_tensors_memory(plan); /* before folding: a folded op may read an empty tensor */
    for (int32_t i = 0; i < plan->n_graph_inputs; ++i)
        if (shape_too_large(&plan->tensors[plan->graph_inputs[i]]))
            return rl_fail(plan, RL_INVALID, "input tensor %d is larger than 2^40 bytes", plan->graph_inputs[i]);
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        rl_op *op = &plan->ops[i];
        plan->current_op = i;
        op->folded = 0;
        if (!op->kind) return rl_fail(plan, RL_UNSUPPORTED, "rillet has no kernel for builtin op %d", op->code);
        for (int32_t k = 0; k < op->n_inputs; ++k)
            if (op->inputs[k] >= 0 && plan->tensors[op->inputs[k]].is_variable &&
                op->code != 44 /* UNIDIRECTIONAL_SEQUENCE_LSTM keeps its state itself (lstm.c) */)
                return rl_fail(plan, RL_UNSUPPORTED, "variable tensors are not supported yet");
        op->dynamic = rl_reads_dynamic_tensor(plan, op);
        op->stale = 0;
        for (int32_t k = 0; k < op->n_outputs && op->dynamic; ++k) rl_output(plan, op, k)->storage = RL_STORAGE_DYNAMIC;
        s = prepare_op(plan, op);
        if (op->dynamic) { /* prepared for the shapes its inputs have now; again at invoke when they change */
            if (s != RL_OK) rl_dynamic_op_defer(plan, op);
            continue;
        }
        if (s != RL_OK) return s;
        if (op_is_foldable(plan, op)) {
            s = fold_op(plan, op);
            if (s != RL_OK) return s;
        }
    }
    plan->current_op = -1;
    rl_plan_form_segments(plan);
    /* Lifetimes: step 0 is before the first op, step n_ops + 1 after the last. */
    /* Graph inputs live through the whole plan, as in TFLite (its planner's preserve_inputs): a caller may
     * invoke again without setting them, and no intermediate may reuse their memory. */
    for (int32_t i = 0; i < plan->n_graph_inputs; ++i) {
        touch(&plan->tensors[plan->graph_inputs[i]], 0);
        touch(&plan->tensors[plan->graph_inputs[i]], plan->n_ops + 1);
    }
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        const rl_op *op = &plan->ops[i];
        if (op->folded) continue;
        for (int32_t k = 0; k < op->n_inputs; ++k)
            if (op->inputs[k] >= 0) touch(&plan->tensors[op->inputs[k]], i + 1);
        for (int32_t k = 0; k < op->n_outputs; ++k) touch(&plan->tensors[op->outputs[k]], i + 1);
    }
    for (int32_t i = 0; i < plan->n_graph_outputs; ++i)
        touch(&plan->tensors[plan->graph_outputs[i]], plan->n_ops + 1);
    if (plan->preserve_all) {
        for (int32_t i = 0; i < plan->n_tensors; ++i) {
            rl_tensor *t = &plan->tensors[i];
            if (t->storage == RL_STORAGE_NONE) touch(t, 0);
            if (t->storage == RL_STORAGE_ARENA) {
                t->first_op = 0;
                t->last_op = plan->n_ops + 1;
            }
        }
    }
    rl_plan_extend_segment_lifetimes(plan);
    s = plan_arena_offsets(plan);
    if (s != RL_OK) return s;
    for (int32_t i = 0; i < plan->n_tensors; ++i) /* a control-flow op's dynamic outputs */
        if (plan->tensors[i].storage == RL_STORAGE_DYNAMIC && (s = rl_dynamic_reserve(plan, &plan->tensors[i])) != RL_OK)
            return s;
    give_empty_tensors_memory(plan);
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        rl_op *op = &plan->ops[i];
        plan->current_op = i;
        if (op->dynamic) {
            if (!op->stale && (s = rl_dynamic_op_ready(plan, op)) != RL_OK) return s;
            continue;
        }
        if (op->folded || !op->setup) continue;
        if ((s = op->setup(plan, op)) != RL_OK) return s;
    }
    plan->current_op = -1;
    plan->prepared = 1;
    return RL_OK;
}
