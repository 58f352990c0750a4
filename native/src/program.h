/* program.h — a model's subgraphs over one store of resource variables (the internals of rl_program). */
#ifndef RILLET_PROGRAM_H
#define RILLET_PROGRAM_H

#include "plan_internal.h"

typedef struct {
    char *name;       /* container, a NUL, shared_name: what VAR_HANDLE names */
    int32_t dtype;    /* -1 until the first ASSIGN_VARIABLE is prepared */
    rl_shape shape;   /* the value last assigned */
    void *data;
    size_t bytes, capacity;
    int32_t assigned; /* holds a value (an ASSIGN_VARIABLE ran since the last reset) */
} rl_variable;

struct rl_program {
    rl_plan **plans;     /* by subgraph index; NULL where none was added */
    int32_t n_plans;
    uint8_t *once_done;  /* per subgraph index: its CALL_ONCE already ran */
    rl_variable *variables;
    int32_t n_variables, cap_variables;
    int64_t loop_limit;  /* the most iterations one WHILE may run (rl_program_set_loop_limit); 0: no limit */
    int64_t loop_byte_limit; /* the most bytes one WHILE's loop values may carry, summed over its iterations */
    rl_invoke_guard guard;   /* shared by every plan of the program */
};

/* The variable op's view of the store: NULL (after rl_fail) when the plan has no program or the id is out of
 * range. */
rl_variable *rl_program_variable(rl_plan *plan, int32_t id);
/* Room for `bytes` in the variable, allocated when a plan is prepared (never during an invoke). */
rl_status rl_variable_reserve(rl_plan *plan, rl_variable *v, size_t bytes);
/* Assigns a value that fits the variable's capacity (ASSIGN_VARIABLE, restoring a checkpoint). */
void rl_variable_store(rl_variable *v, int32_t dtype, const rl_shape *shape, const void *data, size_t bytes);

#endif
