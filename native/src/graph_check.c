/* The structure a plan's arena planner and invoke loop rely on, checked once before prepare: every tensor
 * an op writes has one writer, which is neither a graph input nor a constant of the file, and every tensor
 * an op reads is a constant, a graph input, or the output of an earlier op. A model that breaks one of these
 * (a RESHAPE -> PAD cycle back into the input, two ops writing one tensor) is well-formed flatbuffer but
 * not a dataflow graph; the planner would give tensors wrong lifetimes and an op would read memory nothing
 * wrote. */

#include <stdlib.h>

#include "plan_internal.h"

enum { NOT_WRITTEN = -1, GRAPH_INPUT = -2 };

rl_status rl_plan_check_graph(rl_plan *plan) {
    int32_t *writer = (int32_t *)malloc(sizeof(int32_t) * (size_t)(plan->n_tensors + 1));
    if (!writer) return rl_fail(plan, RL_NO_MEMORY, "out of memory checking the graph");
    for (int32_t t = 0; t < plan->n_tensors; ++t) writer[t] = NOT_WRITTEN;
    rl_status status = RL_OK;
    for (int32_t i = 0; i < plan->n_graph_inputs && status == RL_OK; ++i) {
        const int32_t t = plan->graph_inputs[i];
        if (writer[t] == GRAPH_INPUT)
            status = rl_fail(plan, RL_INVALID, "tensor %d is graph input %d twice", t, i);
        writer[t] = GRAPH_INPUT;
    }
    for (int32_t j = 0; j < plan->n_ops && status == RL_OK; ++j) {
        const rl_op *op = &plan->ops[j];
        plan->current_op = j;
        for (int32_t k = 0; k < op->n_inputs && status == RL_OK; ++k) {
            const int32_t t = op->inputs[k];
            /* A variable tensor (an LSTM's state) holds what the op kept from the last invoke. */
            if (t < 0 || plan->tensors[t].file_data || plan->tensors[t].is_variable || writer[t] != NOT_WRITTEN)
                continue;
            /* An empty tensor holds nothing to read (an empty shape list written as a buffer of no bytes). */
            if (rl_shape_count(&plan->tensors[t].shape) == 0) continue;
            status = rl_fail(plan, RL_INVALID, "input %d (tensor %d) is read before any op writes it "
                             "(it is no constant and no graph input)", k, t);
        }
        for (int32_t k = 0; k < op->n_outputs && status == RL_OK; ++k) {
            const int32_t t = op->outputs[k];
            if (writer[t] == GRAPH_INPUT)
                status = rl_fail(plan, RL_INVALID, "output %d writes tensor %d, a graph input", k, t);
            else if (writer[t] != NOT_WRITTEN)
                status = rl_fail(plan, RL_INVALID, "output %d writes tensor %d, which op %d writes already", k, t,
                                 writer[t]);
            else if (plan->tensors[t].file_data)
                status = rl_fail(plan, RL_INVALID, "output %d (tensor %d) is a constant of the file", k, t);
            writer[t] = j;
        }
    }
    if (status == RL_OK) plan->current_op = -1;
    free(writer);
    return status;
}
