/* plan_invoke.c — running a prepared plan: its ops in order (and band segments), profiled or not, and the
 * ways to stop an invoke from outside (cancel, a time limit). */
#define _POSIX_C_SOURCE 200112L
#include <stdlib.h>
#include <time.h>

#include "bands.h"
#include "ops.h"
#include "plan_internal.h"
#include "program.h"

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void rl_invoke_guard_init(rl_invoke_guard *guard) {
    memset(guard, 0, sizeof *guard);
    const char *ms = getenv("RILLET_INVOKE_TIMEOUT_MS"); /* for a service that must answer in time */
    if (ms && *ms) {
        const long long value = strtoll(ms, NULL, 10);
        guard->timeout_ns = value > 0 ? value * 1000000 : 0;
    }
}

void rl_plan_cancel(rl_plan *plan) {
    if (plan) __atomic_store_n(&plan->guard->cancel, 1, __ATOMIC_RELAXED);
}

void rl_plan_set_invoke_timeout(rl_plan *plan, int64_t milliseconds) {
    plan->guard->timeout_ns = milliseconds > 0 ? milliseconds * 1000000 : 0;
}

rl_status rl_invoke_check_stop(rl_plan *plan) {
    const rl_invoke_guard *g = plan->guard;
    if (__atomic_load_n(&g->cancel, __ATOMIC_RELAXED)) return rl_fail(plan, RL_CANCELLED, "the invoke was cancelled");
    if (g->deadline_ns && now_ns() > g->deadline_ns)
        return rl_fail(plan, RL_CANCELLED, "the invoke ran past its time limit of %lld ms",
                       (long long)(g->timeout_ns / 1000000));
    return RL_OK;
}

static rl_status run_ops(rl_plan *plan, double *op_seconds) {
    const rl_invoke_guard *g = plan->guard;
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        rl_op *op = &plan->ops[i];
        if (op->folded) {
            if (op_seconds) op_seconds[i] = 0.0;
            continue;
        }
        plan->current_op = i;
        /* One load per op while no limit is set: a clock is read only when a time limit is. */
        if (__atomic_load_n(&g->cancel, __ATOMIC_RELAXED) || g->deadline_ns) {
            const rl_status s = rl_invoke_check_stop(plan);
            if (s != RL_OK) return s;
        }
        if (op->segment_last >= 0 && !op_seconds) { /* the ops up to segment_last, in bands (bands.h) */
            i = rl_plan_run_segment(plan, i);
            continue;
        }
        const double start = op_seconds ? now_seconds() : 0.0;
        rl_status s = op->dynamic ? rl_plan_refresh_dynamic_op(plan, op) : RL_OK;
        if (s == RL_OK) s = op->run ? op->run(plan, op) : op->kind->eval(plan, op);
        if (s != RL_OK) return s;
        if (op_seconds) op_seconds[i] = now_seconds() - start;
    }
    plan->current_op = -1;
    return RL_OK;
}

rl_status rl_plan_invoke_profiled(rl_plan *plan, double *op_seconds) {
    if (!plan->prepared) {
        plan->current_op = -1;
        return rl_fail(plan, RL_BAD_STATE, "invoke before the plan is prepared (call allocate_tensors)");
    }
    rl_invoke_guard *g = plan->guard;
    if (g->depth++ == 0) { /* the outermost invoke: a cancel from before it does not reach it, as TFLite's */
        __atomic_store_n(&g->cancel, 0, __ATOMIC_RELAXED);
        g->deadline_ns = g->timeout_ns ? now_ns() + g->timeout_ns : 0;
    }
    const rl_status s = run_ops(plan, op_seconds);
    if (--g->depth == 0) g->deadline_ns = 0;
    return s;
}

rl_status rl_plan_invoke(rl_plan *plan) { return rl_plan_invoke_profiled(plan, NULL); }
