/* variables.c — VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE and CALL_ONCE: the ops of resource variables,
 * whose values live in the program (program.c) across invokes and subgraphs. What streaming models keep
 * between invokes and what a training step updates.
 *
 * VAR_HANDLE's output is the variable's id, known when the plan is prepared (the op folds); a variable's
 * storage is reserved when a plan that assigns it is prepared, so an invoke only copies. READ_VARIABLE's
 * output has the shape the model declares; reading a variable that holds another size is an error. */
#include <string.h>

#include "ops.h"
#include "program.h"

rl_status rl_prepare_var_handle(rl_plan *plan, rl_op *op) {
    if (op->n_outputs != 1) return rl_fail(plan, RL_INVALID, "takes no input and gives one output");
    rl_tensor *out = rl_output(plan, op, 0);
    rl_status s = rl_expect_dtype(plan, out, "output", RL_RESOURCE);
    if (s != RL_OK) return s;
    if (!rl_program_variable(plan, op->params.var_handle.resource_id)) return RL_INVALID;
    out->shape.rank = 0;
    return RL_OK;
}

rl_status rl_eval_var_handle(rl_plan *plan, rl_op *op) {
    *(int32_t *)rl_output(plan, op, 0)->data = op->params.var_handle.resource_id;
    return RL_OK;
}

/* The variable a resource input names: a VAR_HANDLE's folded output. */
static rl_variable *variable_of(rl_plan *plan, const rl_op *op) {
    const rl_tensor *handle = rl_input(plan, op, 0);
    if (!handle || handle->dtype != RL_RESOURCE || !rl_known_data(handle)) {
        rl_fail(plan, RL_UNSUPPORTED, "the resource input must come from a VAR_HANDLE of the same subgraph");
        return NULL;
    }
    return rl_program_variable(plan, *(const int32_t *)handle->data);
}

rl_status rl_prepare_read_variable(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    const rl_variable *v = variable_of(plan, op);
    if (!v) return RL_INVALID;
    const rl_tensor *out = rl_output(plan, op, 0);
    if (v->dtype >= 0 && v->dtype != out->dtype)
        return rl_fail(plan, RL_INVALID, "variable %s holds %s, the model reads %s", v->name, rl_dtype_name(v->dtype),
                       rl_dtype_name(out->dtype));
    return RL_OK; /* the output keeps the shape the model declares */
}

rl_status rl_eval_read_variable(rl_plan *plan, rl_op *op) {
    const rl_variable *v = variable_of(plan, op);
    if (!v) return RL_INVALID;
    rl_tensor *out = rl_output(plan, op, 0);
    if (!v->assigned)
        return rl_fail(plan, RL_BAD_STATE, "variable %s is read before any value was assigned to it", v->name);
    if (v->bytes != out->bytes || v->dtype != out->dtype)
        return rl_fail(plan, RL_INVALID, "variable %s holds %zu bytes of %s, the model reads %zu bytes of %s", v->name,
                       v->bytes, rl_dtype_name(v->dtype), out->bytes, rl_dtype_name(out->dtype));
    if (out->bytes) memcpy(out->data, v->data, out->bytes);
    return RL_OK;
}

rl_status rl_prepare_assign_variable(rl_plan *plan, rl_op *op) {
    if (op->n_inputs != 2 || op->inputs[0] < 0 || op->inputs[1] < 0)
        return rl_fail(plan, RL_INVALID, "takes a resource and a value");
    rl_variable *v = variable_of(plan, op);
    if (!v) return RL_INVALID;
    const rl_tensor *value = rl_input(plan, op, 1);
    if (v->dtype >= 0 && v->dtype != value->dtype)
        return rl_fail(plan, RL_INVALID, "variable %s holds %s, the model assigns %s", v->name, rl_dtype_name(v->dtype),
                       rl_dtype_name(value->dtype));
    v->dtype = value->dtype;
    return rl_variable_reserve(plan, v, rl_tensor_bytes(value));
}

rl_status rl_eval_assign_variable(rl_plan *plan, rl_op *op) {
    rl_variable *v = variable_of(plan, op);
    if (!v) return RL_INVALID;
    const rl_tensor *value = rl_input(plan, op, 1);
    const size_t bytes = rl_tensor_bytes(value);
    if (bytes > v->capacity) /* another plan's prepare shrank nothing, so only a resize since could cause this */
        return rl_fail(plan, RL_BAD_STATE, "variable %s has room for %zu bytes, %zu assigned: prepare the plan again",
                       v->name, v->capacity, bytes);
    rl_variable_store(v, value->dtype, &value->shape, value->data, bytes);
    return RL_OK;
}

rl_status rl_prepare_call_once(rl_plan *plan, rl_op *op) {
    if (!plan->program) return rl_fail(plan, RL_INVALID, "CALL_ONCE in a plan that belongs to no program");
    const int32_t index = op->params.call_once.init_subgraph_index;
    if (index < 0 || index >= plan->program->n_plans || !plan->program->plans[index])
        return rl_fail(plan, RL_INVALID, "its initialising subgraph %d is not in the program", index);
    if (plan->program->plans[index] == plan) return rl_fail(plan, RL_INVALID, "it calls its own subgraph");
    return RL_OK;
}

rl_status rl_eval_call_once(rl_plan *plan, rl_op *op) {
    rl_program *program = plan->program;
    const int32_t index = op->params.call_once.init_subgraph_index;
    if (program->once_done[index]) return RL_OK;
    rl_plan *init = program->plans[index];
    /* Prepared here when no one prepared it (as LiteRT's CALL_ONCE allocates its subgraph at eval): a
     * signature runner prepares its own subgraph only, not every plan of the program. */
    if (!init->prepared) {
        const rl_status p = rl_plan_prepare(init);
        if (p != RL_OK) return rl_fail(plan, p, "its initialising subgraph %d: %s", index, rl_plan_message(init));
    }
    program->once_done[index] = 1; /* before running it: a cycle of CALL_ONCEs stops instead of recursing */
    const rl_status s = rl_plan_invoke(init);
    if (s != RL_OK) {
        program->once_done[index] = 0;
        return rl_fail(plan, s, "initialising subgraph %d failed: %s", index, rl_plan_message(init));
    }
    return RL_OK;
}
