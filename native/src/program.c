/* program.c — the program: which plan is which subgraph, and the resource variables they share. */
#include <stdlib.h>
#include <string.h>

#include "program.h"

rl_status rl_program_create(rl_program **program_out) {
    *program_out = (rl_program *)calloc(1, sizeof **program_out);
    if (!*program_out) return RL_NO_MEMORY;
    const char *limit = getenv("RILLET_LOOP_LIMIT"); /* for a service that must not hang on a hostile model */
    if (limit && *limit) rl_program_set_loop_limit(*program_out, strtoll(limit, NULL, 10));
    const char *mb = getenv("RILLET_LOOP_LIMIT_MB");
    if (mb && *mb) {
        const long long value = strtoll(mb, NULL, 10);
        /* Megabytes past what size_t holds (a 32-bit target) mean no practical limit: the most it holds. */
        const uint64_t bytes = value > 0 ? (value >= (1LL << 43) ? UINT64_MAX : (uint64_t)value << 20) : 0;
        rl_program_set_loop_byte_limit(*program_out, bytes > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)bytes);
    }
    rl_invoke_guard_init(&(*program_out)->guard);
    return RL_OK;
}

void rl_program_set_loop_limit(rl_program *program, int64_t iterations) {
    program->loop_limit = iterations > 0 ? iterations : 0;
}

void rl_program_set_loop_byte_limit(rl_program *program, size_t bytes) {
    /* Widened first: a 32-bit size_t never passes INT64_MAX, and gcc's -Wtype-limits refuses the test on it. */
    const uint64_t wide = (uint64_t)bytes;
    program->loop_byte_limit = wide > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)wide;
}

void rl_program_destroy(rl_program *program) {
    if (!program) return;
    for (int32_t i = 0; i < program->n_plans; ++i)
        if (program->plans[i]) {
            program->plans[i]->program = NULL;
            program->plans[i]->guard = &program->plans[i]->own_guard;
        }
    for (int32_t i = 0; i < program->n_variables; ++i) {
        free(program->variables[i].name);
        free(program->variables[i].data);
    }
    free(program->variables);
    free(program->plans);
    free(program->once_done);
    free(program);
}

rl_status rl_program_add_plan(rl_program *program, int32_t index, rl_plan *plan) {
    if (index < 0 || index > (1 << 20)) return rl_fail(plan, RL_INVALID, "subgraph index %d is out of range", index);
    if (plan->program && plan->program != program)
        return rl_fail(plan, RL_INVALID, "the plan already belongs to another program");
    if (index >= program->n_plans) {
        rl_plan **plans = (rl_plan **)realloc(program->plans, sizeof *plans * (size_t)(index + 1));
        if (!plans) return rl_fail(plan, RL_NO_MEMORY, "out of memory adding subgraph %d", index);
        program->plans = plans;
        uint8_t *done = (uint8_t *)realloc(program->once_done, (size_t)(index + 1));
        if (!done) return rl_fail(plan, RL_NO_MEMORY, "out of memory adding subgraph %d", index);
        program->once_done = done;
        for (int32_t i = program->n_plans; i <= index; ++i) {
            program->plans[i] = NULL;
            program->once_done[i] = 0;
        }
        program->n_plans = index + 1;
    }
    program->plans[index] = plan;
    plan->program = program;
    plan->guard = &program->guard;
    return RL_OK;
}

int32_t rl_program_variable_id(rl_program *program, const char *container, const char *shared_name) {
    const size_t lc = strlen(container), ls = strlen(shared_name);
    for (int32_t i = 0; i < program->n_variables; ++i) {
        const char *name = program->variables[i].name;
        if (strcmp(name, container) == 0 && strcmp(name + lc + 1, shared_name) == 0) return i;
    }
    if (program->n_variables == program->cap_variables) {
        const int32_t cap = program->cap_variables ? program->cap_variables * 2 : 16;
        rl_variable *grown = (rl_variable *)realloc(program->variables, sizeof *grown * (size_t)cap);
        if (!grown) return -1;
        program->variables = grown;
        program->cap_variables = cap;
    }
    char *name = (char *)malloc(lc + ls + 2);
    if (!name) return -1;
    memcpy(name, container, lc + 1);
    memcpy(name + lc + 1, shared_name, ls + 1);
    rl_variable *v = &program->variables[program->n_variables];
    memset(v, 0, sizeof *v);
    v->name = name;
    v->dtype = -1;
    return program->n_variables++;
}

int32_t rl_program_variable_count(const rl_program *program) { return program->n_variables; }

void rl_program_reset_variables(rl_program *program) {
    for (int32_t i = 0; i < program->n_variables; ++i) {
        program->variables[i].assigned = 0;
        if (program->variables[i].data) memset(program->variables[i].data, 0, program->variables[i].capacity);
    }
    if (program->once_done) memset(program->once_done, 0, (size_t)program->n_plans);
}

size_t rl_program_variable_bytes(const rl_program *program) {
    size_t n = 0;
    for (int32_t i = 0; i < program->n_variables; ++i) n += program->variables[i].capacity;
    return n;
}

rl_variable *rl_program_variable(rl_plan *plan, int32_t id) {
    if (!plan->program) {
        rl_fail(plan, RL_INVALID, "a resource variable op in a plan that belongs to no program");
        return NULL;
    }
    if (id < 0 || id >= plan->program->n_variables) {
        rl_fail(plan, RL_INVALID, "resource %d names no variable (the program has %d)", id, plan->program->n_variables);
        return NULL;
    }
    return &plan->program->variables[id];
}

/* Room for `bytes` in the variable (the new part zeroed); 0 when out of memory. */
static int grow(rl_variable *v, size_t bytes) {
    if (bytes <= v->capacity) return 1;
    void *grown = realloc(v->data, bytes);
    if (!grown) return 0;
    memset((char *)grown + v->capacity, 0, bytes - v->capacity);
    v->data = grown;
    v->capacity = bytes;
    return 1;
}

void rl_variable_store(rl_variable *v, int32_t dtype, const rl_shape *shape, const void *data, size_t bytes) {
    memcpy(v->data, data, bytes);
    v->bytes = bytes;
    v->dtype = dtype;
    v->shape = *shape;
    v->assigned = 1;
}

rl_status rl_variable_reserve(rl_plan *plan, rl_variable *v, size_t bytes) {
    if (!grow(v, bytes)) return rl_fail(plan, RL_NO_MEMORY, "out of memory for variable %s (%zu bytes)", v->name, bytes);
    return RL_OK;
}

rl_status rl_program_read_variable(const rl_program *program, int32_t id, int32_t *dtype, int32_t *rank,
                                   int32_t *dims, size_t *bytes, const void **data) {
    if (id < 0 || id >= program->n_variables) return RL_INVALID;
    const rl_variable *v = &program->variables[id];
    if (!v->assigned) return RL_BAD_STATE;
    *dtype = v->dtype;
    *rank = v->shape.rank;
    for (int32_t d = 0; d < v->shape.rank; ++d) dims[d] = v->shape.dims[d];
    *bytes = v->bytes;
    *data = v->data;
    return RL_OK;
}

rl_status rl_program_write_variable(rl_program *program, int32_t id, int32_t dtype, int32_t rank,
                                    const int32_t *dims, const void *data, size_t bytes) {
    if (id < 0 || id >= program->n_variables || rank < 0 || rank > RL_MAX_DIMS) return RL_INVALID;
    rl_variable *v = &program->variables[id];
    if (v->dtype >= 0 && v->dtype != dtype) return RL_INVALID;
    size_t expected = rl_dtype_size(dtype);
    for (int32_t d = 0; d < rank; ++d) {
        if (dims[d] < 0) return RL_INVALID;
        expected *= (size_t)dims[d];
    }
    if (expected != bytes || expected == 0) return RL_INVALID;
    if (!grow(v, bytes)) return RL_NO_MEMORY;
    rl_shape shape = {.rank = rank};
    for (int32_t d = 0; d < rank; ++d) shape.dims[d] = dims[d];
    rl_variable_store(v, dtype, &shape, data, bytes);
    return RL_OK;
}

void rl_program_mark_initialized(rl_program *program) {
    if (program->once_done) memset(program->once_done, 1, (size_t)program->n_plans);
}
