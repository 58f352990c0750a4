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

static int64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Where each op's work went (rl_plan_invoke_thread_profiled): `slots` is the pool's accounting, threads + 1
 * of them (rl_threadpool_set_accounting), zeroed before each op and read after it. */
typedef struct {
    double *op_thread_seconds; /* threads per op */
    int64_t *slots;
    int32_t threads;
} rl_thread_profile;

static void thread_profile_begin(rl_thread_profile *tp, int64_t *cpu_start) {
    for (int32_t k = 0; k <= tp->threads; ++k) tp->slots[k] = 0;
    *cpu_start = thread_cpu_ns();
}

/* The caller's work is its CPU time over the op less its waits for the workers (spinning is not work). */
static void thread_profile_end(rl_thread_profile *tp, int32_t op, int64_t cpu_start) {
    double *row = tp->op_thread_seconds + (size_t)op * (size_t)tp->threads;
    row[0] = 1e-9 * (double)(thread_cpu_ns() - cpu_start - tp->slots[tp->threads]);
    for (int32_t k = 1; k < tp->threads; ++k) row[k] = 1e-9 * (double)__atomic_load_n(&tp->slots[k], __ATOMIC_RELAXED);
}

static rl_status run_ops(rl_plan *plan, double *op_seconds, rl_thread_profile *tp) {
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
        int64_t cpu_start = 0;
        if (tp) thread_profile_begin(tp, &cpu_start);
        const double start = op_seconds ? now_seconds() : 0.0;
        /* The ops up to segment_last, in bands (bands.h); a thread profile times the segment as its first op
         * (the others read 0), a plain profile runs its ops one by one to time each. */
        if (op->segment_last >= 0 && (!op_seconds || tp)) {
            const int32_t head = i;
            i = op->segment_last;
            rl_status s = rl_plan_run_segment(plan, head);
            if (s == RL_OK) s = rl_plan_check_segment(plan, head, i);
            if (s != RL_OK) return s;
            for (int32_t j = head + 1; op_seconds && j <= i; ++j) op_seconds[j] = 0.0;
            if (op_seconds) op_seconds[head] = now_seconds() - start;
            if (tp) thread_profile_end(tp, head, cpu_start);
            continue;
        }
        rl_status s = op->dynamic ? rl_plan_refresh_dynamic_op(plan, op) : RL_OK;
        if (s == RL_OK) s = op->run ? op->run(plan, op) : op->kind->eval(plan, op);
        if (s != RL_OK) return s;
        if (op_seconds) op_seconds[i] = now_seconds() - start;
        if (tp) thread_profile_end(tp, i, cpu_start);
    }
    plan->current_op = -1;
    return RL_OK;
}

static rl_status invoke(rl_plan *plan, double *op_seconds, rl_thread_profile *tp) {
    if (!plan->prepared) {
        plan->current_op = -1;
        return rl_fail(plan, RL_BAD_STATE, "invoke before the plan is prepared (call allocate_tensors)");
    }
    rl_invoke_guard *g = plan->guard;
    if (g->depth++ == 0) { /* the outermost invoke: a cancel from before it does not reach it, as TFLite's */
        __atomic_store_n(&g->cancel, 0, __ATOMIC_RELAXED);
        g->deadline_ns = g->timeout_ns ? now_ns() + g->timeout_ns : 0;
    }
    const rl_status s = run_ops(plan, op_seconds, tp);
    if (--g->depth == 0) g->deadline_ns = 0;
    return s;
}

rl_status rl_plan_invoke(rl_plan *plan) { return invoke(plan, NULL, NULL); }
rl_status rl_plan_invoke_profiled(rl_plan *plan, double *op_seconds) { return invoke(plan, op_seconds, NULL); }

rl_status rl_plan_invoke_thread_profiled(rl_plan *plan, double *op_seconds, double *op_thread_seconds) {
    const int32_t threads = rl_threadpool_threads(plan->pool);
    int64_t slots[RL_MAX_PROFILED_THREADS + 1];
    if (threads > RL_MAX_PROFILED_THREADS)
        return rl_fail(plan, RL_INVALID, "a thread profile covers at most %d threads, the plan runs on %d",
                       RL_MAX_PROFILED_THREADS, (int)threads);
    for (int32_t i = 0; i < plan->n_ops * threads; ++i) op_thread_seconds[i] = 0.0;
    rl_thread_profile tp = {.op_thread_seconds = op_thread_seconds, .slots = slots, .threads = threads};
    rl_threadpool_set_accounting(plan->pool, slots);
    const rl_status s = invoke(plan, op_seconds, &tp);
    rl_threadpool_set_accounting(plan->pool, NULL);
    return s;
}
