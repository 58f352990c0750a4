/* control_flow.c — IF and WHILE over the program's subgraphs (program.c holds which plan is which).
 *
 * A callee's graph inputs take the shapes of the values passed in, and the callee is prepared from the
 * caller's prepare, so a resize of the caller reaches it; invoke copies the caller's values into the
 * callee's inputs and the callee's outputs back. Both are stateful: a branch may touch the program's
 * variables, so neither is folded.
 *
 * Dynamic shapes, as LiteRT runs them with dynamic tensors: IF branches that give an output different
 * shapes, and a WHILE body that grows or shrinks a loop value, make that output dynamic
 * (dynamic_tensors.c): prepare gives it a first guess (the then branch's shape, the loop value's shape
 * going in) and invoke gives it the shape the data made, preparing the callee again whenever the values
 * passed in change shape (a WHILE body at each iteration where a loop value grew). */
#include <string.h>

#include "ops.h"
#include "program.h"

/* memcpy for tensors that may be empty: an empty tensor may have no memory, and memcpy from NULL is undefined
 * even for 0 bytes. */
static void copy_bytes(void *to, const void *from, size_t bytes) {
    if (bytes) memcpy(to, from, bytes);
}

/* The plan of subgraph `index`, or NULL after rl_fail. */
static rl_plan *callee(rl_plan *plan, int32_t index, const char *role) {
    if (!plan->program) {
        rl_fail(plan, RL_INVALID, "a plan that belongs to no program has no %s subgraph", role);
        return NULL;
    }
    if (index < 0 || index >= plan->program->n_plans || !plan->program->plans[index]) {
        rl_fail(plan, RL_INVALID, "its %s subgraph %d is not in the program", role, index);
        return NULL;
    }
    if (plan->program->plans[index] == plan) {
        rl_fail(plan, RL_INVALID, "its %s subgraph is its own", role);
        return NULL;
    }
    return plan->program->plans[index];
}

/* Gives the callee's graph inputs the shapes of the caller's inputs `first`.. and prepares it. */
static rl_status prepare_callee(rl_plan *plan, rl_op *op, int32_t first, rl_plan *sub, const char *role, int32_t index) {
    const int32_t n = op->n_inputs - first;
    if (sub->n_graph_inputs != n)
        return rl_fail(plan, RL_INVALID, "its %s subgraph %d takes %d inputs, it passes %d", role, index,
                       sub->n_graph_inputs, n);
    for (int32_t k = 0; k < n; ++k) {
        const rl_tensor *from = rl_input(plan, op, first + k);
        rl_tensor *to = &sub->tensors[sub->graph_inputs[k]];
        if (!from) return rl_fail(plan, RL_INVALID, "input %d is omitted", first + k);
        if (from->dtype != to->dtype)
            return rl_fail(plan, RL_INVALID, "input %d is %s, its %s subgraph %d takes %s", first + k,
                           rl_dtype_name(from->dtype), role, index, rl_dtype_name(to->dtype));
        if (rl_plan_set_tensor_shape(sub, sub->graph_inputs[k], from->shape.rank, from->shape.dims) != RL_OK)
            return rl_fail(plan, RL_INVALID, "its %s subgraph %d: %s", role, index, rl_plan_message(sub));
    }
    const rl_status s = rl_plan_prepare(sub);
    if (s != RL_OK) return rl_fail(plan, s, "its %s subgraph %d: %s", role, index, rl_plan_message(sub));
    return RL_OK;
}

/* Runs the callee on the caller's tensors `values` (one per graph input): prepared again first when their
 * shapes are not those it was prepared for (a dynamic value, or another op that shares the subgraph). */
static rl_status run_callee(rl_plan *plan, const int32_t *values, rl_plan *sub, const char *role, int32_t index) {
    int reshaped = !sub->prepared;
    for (int32_t k = 0; k < sub->n_graph_inputs; ++k) {
        const rl_tensor *from = &plan->tensors[values[k]];
        if (rl_shape_equal(&from->shape, &sub->tensors[sub->graph_inputs[k]].shape)) continue;
        if (rl_plan_set_tensor_shape(sub, sub->graph_inputs[k], from->shape.rank, from->shape.dims) != RL_OK)
            return rl_fail(plan, RL_INVALID, "its %s subgraph %d: %s", role, index, rl_plan_message(sub));
        reshaped = 1;
    }
    rl_status s = reshaped ? rl_plan_prepare(sub) : RL_OK;
    if (s != RL_OK) return rl_fail(plan, s, "its %s subgraph %d: %s", role, index, rl_plan_message(sub));
    /* Prepared for larger values, the callee's arena counts toward the limit on the model's tensors, as a
     * dynamic tensor's growth does (a loop that grows a value without bound stops there). */
    if (reshaped && rl_model_tensor_bytes(plan) > plan->memory_limit)
        return rl_fail(plan, RL_NO_MEMORY, "its %s subgraph %d, prepared for values of new shapes, brings the "
                       "model's tensors to %zu bytes, more than the memory limit of %zu bytes", role, index,
                       rl_model_tensor_bytes(plan), plan->memory_limit);
    for (int32_t k = 0; k < sub->n_graph_inputs; ++k) {
        rl_tensor *to = &sub->tensors[sub->graph_inputs[k]];
        copy_bytes(to->data, plan->tensors[values[k]].data, rl_tensor_bytes(to));
    }
    if ((s = rl_plan_invoke(sub)) != RL_OK)
        return rl_fail(plan, s, "its %s subgraph %d failed: %s", role, index, rl_plan_message(sub));
    return RL_OK;
}

/* The caller's tensor `to` takes the value of `from` (a callee's output, or the loop's input), shape and all:
 * a dynamic `to` is resized; any other already has the shape. */
static rl_status take_value(rl_plan *plan, rl_tensor *to, const rl_tensor *from) {
    const rl_status s = rl_tensor_resize(plan, to, &from->shape);
    if (s != RL_OK) return s;
    copy_bytes(to->data, from->data, rl_tensor_bytes(from));
    return RL_OK;
}

/* ---- IF: inputs (condition, values...), outputs those of the branch taken ---- */

rl_status rl_prepare_if(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1 << 16);
    if (s != RL_OK) return s;
    const rl_tensor *cond = rl_input(plan, op, 0);
    if (rl_shape_count(&cond->shape) != 1) return rl_fail(plan, RL_INVALID, "the condition must be one value");
    if (cond->dtype != RL_BOOL && cond->dtype != RL_INT32 && cond->dtype != RL_FLOAT32)
        return rl_fail(plan, RL_UNSUPPORTED, "a %s condition", rl_dtype_name(cond->dtype));
    const int32_t indices[2] = {op->params.if_op.then_subgraph_index, op->params.if_op.else_subgraph_index};
    const char *roles[2] = {"then", "else"};
    rl_plan *branches[2];
    for (int32_t b = 0; b < 2; ++b) {
        if (!(branches[b] = callee(plan, indices[b], roles[b]))) return RL_INVALID;
        if ((s = prepare_callee(plan, op, 1, branches[b], roles[b], indices[b])) != RL_OK) return s;
        if (branches[b]->n_graph_outputs != op->n_outputs)
            return rl_fail(plan, RL_INVALID, "its %s subgraph %d gives %d outputs, it has %d", roles[b], indices[b],
                           branches[b]->n_graph_outputs, op->n_outputs);
    }
    for (int32_t k = 0; k < op->n_outputs; ++k) {
        const rl_tensor *a = &branches[0]->tensors[branches[0]->graph_outputs[k]];
        const rl_tensor *b = &branches[1]->tensors[branches[1]->graph_outputs[k]];
        rl_tensor *out = rl_output(plan, op, k);
        if (a->dtype != out->dtype || b->dtype != out->dtype)
            return rl_fail(plan, RL_INVALID, "output %d is %s, the branches give %s and %s", k, rl_dtype_name(out->dtype),
                           rl_dtype_name(a->dtype), rl_dtype_name(b->dtype));
        /* Known only when a branch has run: the branches disagree, or one computes it from a dynamic value. */
        if (!rl_shape_equal(&a->shape, &b->shape) || a->storage == RL_STORAGE_DYNAMIC || b->storage == RL_STORAGE_DYNAMIC)
            out->storage = RL_STORAGE_DYNAMIC;
        out->shape = a->shape;
    }
    return RL_OK;
}

rl_status rl_eval_if(rl_plan *plan, rl_op *op) {
    const rl_tensor *cond = rl_input(plan, op, 0);
    int taken;
    if (cond->dtype == RL_FLOAT32) taken = *(const float *)cond->data != 0.0f;
    else if (cond->dtype == RL_INT32) taken = *(const int32_t *)cond->data != 0;
    else taken = *(const uint8_t *)cond->data != 0;
    const int32_t index = taken ? op->params.if_op.then_subgraph_index : op->params.if_op.else_subgraph_index;
    rl_plan *sub = callee(plan, index, taken ? "then" : "else");
    if (!sub) return RL_BAD_STATE;
    rl_status s = run_callee(plan, op->inputs + 1, sub, taken ? "then" : "else", index);
    for (int32_t k = 0; k < op->n_outputs && s == RL_OK; ++k)
        s = take_value(plan, rl_output(plan, op, k), &sub->tensors[sub->graph_outputs[k]]);
    return s;
}

/* ---- WHILE: the loop values through cond and body until cond gives false ---- */

rl_status rl_prepare_while(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1 << 16);
    if (s != RL_OK) return s;
    if (op->n_outputs != op->n_inputs)
        return rl_fail(plan, RL_INVALID, "%d loop values in, %d out", op->n_inputs, op->n_outputs);
    const int32_t ci = op->params.while_op.cond_subgraph_index, bi = op->params.while_op.body_subgraph_index;
    rl_plan *cond = callee(plan, ci, "cond"), *body = cond ? callee(plan, bi, "body") : NULL;
    if (!cond || !body) return RL_INVALID;
    if ((s = prepare_callee(plan, op, 0, cond, "cond", ci)) != RL_OK) return s;
    if ((s = prepare_callee(plan, op, 0, body, "body", bi)) != RL_OK) return s;
    if (cond->n_graph_outputs != 1 || cond->tensors[cond->graph_outputs[0]].dtype != RL_BOOL ||
        rl_shape_count(&cond->tensors[cond->graph_outputs[0]].shape) != 1)
        return rl_fail(plan, RL_INVALID, "its cond subgraph %d must give one bool", ci);
    if (body->n_graph_outputs != op->n_inputs)
        return rl_fail(plan, RL_INVALID, "its body subgraph %d gives %d values for %d loop values", bi,
                       body->n_graph_outputs, op->n_inputs);
    for (int32_t k = 0; k < op->n_inputs; ++k) {
        const rl_tensor *in = rl_input(plan, op, k), *next = &body->tensors[body->graph_outputs[k]];
        rl_tensor *out = rl_output(plan, op, k);
        if (next->dtype != in->dtype || out->dtype != in->dtype)
            return rl_fail(plan, RL_INVALID, "loop value %d is %s in, %s from the body, %s out", k,
                           rl_dtype_name(in->dtype), rl_dtype_name(next->dtype), rl_dtype_name(out->dtype));
        /* Known only as the loop runs: the body changes it, or it comes in dynamic. */
        if (!rl_shape_equal(&next->shape, &in->shape) || next->storage == RL_STORAGE_DYNAMIC ||
            in->storage == RL_STORAGE_DYNAMIC)
            out->storage = RL_STORAGE_DYNAMIC;
        out->shape = in->shape;
    }
    return RL_OK;
}

rl_status rl_eval_while(rl_plan *plan, rl_op *op) {
    const int32_t ci = op->params.while_op.cond_subgraph_index, bi = op->params.while_op.body_subgraph_index;
    rl_plan *cond = callee(plan, ci, "cond"), *body = cond ? callee(plan, bi, "body") : NULL;
    if (!cond || !body) return RL_BAD_STATE;
    /* The outputs hold the current loop values. */
    rl_status s = RL_OK;
    for (int32_t k = 0; k < op->n_outputs && s == RL_OK; ++k)
        s = take_value(plan, rl_output(plan, op, k), rl_input(plan, op, k));
    /* TFLite's WHILE has no bound; a program may set one (a fuzzer, or a service that must not hang on a
     * hostile model), and the loop then stops with an error instead of running on: on iterations, and on the
     * bytes its loop values carry summed over them (a few iterations of a huge carry take as long as
     * millions of small ones). A loop value that grows without bound stops at the plan's memory limit
     * (RL_NO_MEMORY); rl_plan_cancel and the invoke's time limit stop it between iterations. */
    const int64_t limit = plan->program->loop_limit, byte_limit = plan->program->loop_byte_limit;
    int64_t carried = 0;
    for (int64_t iteration = 0; s == RL_OK; ++iteration) {
        if (limit && iteration >= limit)
            return rl_fail(plan, RL_INVALID, "ran %lld iterations, the program's loop limit", (long long)limit);
        if ((s = rl_invoke_check_stop(plan)) != RL_OK) return s;
        if (byte_limit) {
            for (int32_t k = 0; k < op->n_outputs; ++k) {
                const size_t bytes = rl_tensor_bytes(rl_output(plan, op, k));
                carried = bytes > (size_t)(INT64_MAX - carried) ? INT64_MAX : carried + (int64_t)bytes;
            }
            if (carried > byte_limit)
                return rl_fail(plan, RL_INVALID, "its loop values carried %lld bytes in %lld iterations, more than "
                               "the program's loop limit of %lld bytes", (long long)carried,
                               (long long)iteration + 1, (long long)byte_limit);
        }
        if ((s = run_callee(plan, op->outputs, cond, "cond", ci)) != RL_OK) return s;
        const rl_tensor *go = &cond->tensors[cond->graph_outputs[0]];
        if (go->dtype != RL_BOOL || rl_shape_count(&go->shape) != 1)
            return rl_fail(plan, RL_INVALID, "its cond subgraph %d must give one bool", ci);
        if (!*(const uint8_t *)go->data) return RL_OK;
        if ((s = run_callee(plan, op->outputs, body, "body", bi)) != RL_OK) return s;
        for (int32_t k = 0; k < op->n_outputs && s == RL_OK; ++k)
            s = take_value(plan, rl_output(plan, op, k), &body->tensors[body->graph_outputs[k]]);
    }
    return s;
}
