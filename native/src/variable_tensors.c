/* variable_tensors.c — TFLite's variable tensors: the state a stateful op (an LSTM) keeps from one invoke to
 * the next, which rillet holds in the op's own state. Resetting zeroes it, op by op, through the kind's
 * reset_state (op_registry.c), as LiteRT's reset_all_variables zeroes the model's variable tensors. */
#include "plan_internal.h"

void rl_plan_reset_variable_tensors(rl_plan *plan) {
    if (!plan) return;
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        rl_op *op = &plan->ops[i];
        if (op->kind && op->kind->reset_state) op->kind->reset_state(op);
    }
}
