/* control_flow.c — IF and WHILE over the program's subgraphs (program.c holds which plan is which).
 *
 * A callee's graph inputs take the shapes of the values passed in, and the callee is prepared from the
 * caller's prepare, so a resize of the caller reaches it; its outputs' shapes are then known, and invoke
 * only copies: the caller's values into the callee's inputs, the callee's outputs back. IF's output shapes
 * are its branches' (both branches must agree); WHILE's loop values keep their shapes from one iteration to
 * the next. Both are stateful: a branch may touch the program's variables, so neither is folded.
 *
 * Dynamic shapes are refused, naming the tensor and both shapes: branches that give an output different
 * shapes, a WHILE body that grows or shrinks a loop value (LiteRT runs both with dynamic tensors). Running
 * them needs the caller's plan to resize tensors during invoke, which its one arena placed at prepare
 * cannot. */
#include <stdio.h>
#include <string.h>

#include "ops.h"
#include "program.h"

/* memcpy for tensors that may be empty: an empty tensor may have no memory, and memcpy from NULL is undefined
 * even for 0 bytes. */
static void copy_bytes(void *to, const void *from, size_t bytes) {
    if (bytes) memcpy(to, from, bytes);
}

/* "[2, 3]" into text (a scalar is "[]"), for messages; RL_SHAPE_TEXT bytes hold any shape. */
#define RL_SHAPE_TEXT (RL_MAX_DIMS * 13 + 3)
static const char *shape_text(const rl_shape *s, char text[RL_SHAPE_TEXT]) {
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

static void copy_in(rl_plan *plan, const rl_op *op, int32_t first, rl_plan *sub) {
    for (int32_t k = 0; k < sub->n_graph_inputs; ++k) {
        rl_tensor *to = &sub->tensors[sub->graph_inputs[k]];
        copy_bytes(to->data, rl_input(plan, op, first + k)->data, to->bytes);
    }
}

static rl_status invoke_callee(rl_plan *plan, rl_plan *sub, const char *role) {
    const rl_status s = rl_plan_invoke(sub);
    if (s != RL_OK) return rl_fail(plan, s, "its %s subgraph failed: %s", role, rl_plan_message(sub));
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
        if (!rl_shape_equal(&a->shape, &b->shape)) {
            char then_shape[RL_SHAPE_TEXT], else_shape[RL_SHAPE_TEXT];
            return rl_fail(plan, RL_UNSUPPORTED, "the branches give output %d (tensor %d) different shapes, %s from "
                           "then subgraph %d and %s from else subgraph %d: rillet does not run dynamic shapes yet",
                           k, op->outputs[k], shape_text(&a->shape, then_shape), indices[0],
                           shape_text(&b->shape, else_shape), indices[1]);
        }
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
    rl_plan *sub = plan->program->plans[index];
    if (!sub || !sub->prepared) return rl_fail(plan, RL_BAD_STATE, "its subgraph %d is not prepared", index);
    copy_in(plan, op, 1, sub);
    const rl_status s = invoke_callee(plan, sub, taken ? "then" : "else");
    if (s != RL_OK) return s;
    for (int32_t k = 0; k < op->n_outputs; ++k) {
        rl_tensor *out = rl_output(plan, op, k);
        copy_bytes(out->data, sub->tensors[sub->graph_outputs[k]].data, out->bytes);
    }
    return RL_OK;
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
        if (!rl_shape_equal(&next->shape, &in->shape)) {
            char in_shape[RL_SHAPE_TEXT], next_shape[RL_SHAPE_TEXT];
            return rl_fail(plan, RL_UNSUPPORTED, "its body subgraph %d changes the shape of loop value %d (tensor %d) "
                           "from %s to %s: rillet does not run a WHILE whose loop values change shape (dynamic "
                           "shapes) yet", bi, k, op->inputs[k], shape_text(&in->shape, in_shape),
                           shape_text(&next->shape, next_shape));
        }
        out->shape = in->shape;
    }
    return RL_OK;
}

rl_status rl_eval_while(rl_plan *plan, rl_op *op) {
    rl_plan *cond = plan->program->plans[op->params.while_op.cond_subgraph_index];
    rl_plan *body = plan->program->plans[op->params.while_op.body_subgraph_index];
    if (!cond || !body || !cond->prepared || !body->prepared)
        return rl_fail(plan, RL_BAD_STATE, "its cond or body subgraph is not prepared");
    /* The outputs hold the current loop values. */
    for (int32_t k = 0; k < op->n_outputs; ++k)
        copy_bytes(rl_output(plan, op, k)->data, rl_input(plan, op, k)->data, rl_output(plan, op, k)->bytes);
    /* TFLite's WHILE has no bound; a program may set one (a fuzzer, or a service that must not hang on a
     * hostile model), and the loop then stops with an error instead of running on. */
    const int64_t limit = plan->program->loop_limit;
    for (int64_t iteration = 0;; ++iteration) {
        if (limit && iteration >= limit)
            return rl_fail(plan, RL_INVALID, "ran %lld iterations, the program's loop limit", (long long)limit);
        for (int32_t k = 0; k < cond->n_graph_inputs; ++k)
            copy_bytes(cond->tensors[cond->graph_inputs[k]].data, rl_output(plan, op, k)->data, rl_output(plan, op, k)->bytes);
        rl_status s = invoke_callee(plan, cond, "cond");
        if (s != RL_OK) return s;
        if (!*(const uint8_t *)cond->tensors[cond->graph_outputs[0]].data) return RL_OK;
        for (int32_t k = 0; k < body->n_graph_inputs; ++k)
            copy_bytes(body->tensors[body->graph_inputs[k]].data, rl_output(plan, op, k)->data, rl_output(plan, op, k)->bytes);
        if ((s = invoke_callee(plan, body, "body")) != RL_OK) return s;
        for (int32_t k = 0; k < op->n_outputs; ++k)
            copy_bytes(rl_output(plan, op, k)->data, body->tensors[body->graph_outputs[k]].data, rl_output(plan, op, k)->bytes);
    }
}
