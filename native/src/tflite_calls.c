/* tflite_calls.c — the whole-model checks a plan of one subgraph needs: every op of every subgraph has a
 * kernel (counted, for the caller to list), and the subgraph call graph (CALL_ONCE, IF, WHILE and
 * StableHLO bodies) names existing subgraphs and has no cycle, as converter/format's `check_calls`. */
#include <stdlib.h>

#include "tflite_reader.h"

/* Per options type that names subgraphs: the vtable slots of those fields (io.py's SUBGRAPH_REFERENCES). */
typedef struct {
    int8_t options2; /* BuiltinOptions2's member */
    uint8_t type;
    int8_t slots[2]; /* -1: none */
} calling_options;

static const calling_options calling[] = {
    {0, 16, {0, -1}},  /* CallOptions.subgraph */
    {0, 92, {0, 1}},   /* IfOptions.then_subgraph_index, else_subgraph_index */
    {0, 93, {0, 1}},   /* WhileOptions.cond_subgraph_index, body_subgraph_index */
    {0, 103, {0, -1}}, /* CallOnceOptions.init_subgraph_index */
    {1, 6, {1, -1}},   /* StablehloReduceOptions.body_subgraph_index */
    {1, 7, {6, -1}},   /* StablehloScatterOptions.update_computation_subgraph_index */
    {1, 13, {5, -1}},  /* StablehloReduceWindowOptions.body_subgraph_index */
    {1, 14, {2, -1}},  /* StablehloSortOptions.comparator_subgraph_index */
    {1, 15, {0, 1}},   /* StablehloWhileOptions.cond_subgraph_index, body_subgraph_index */
};

typedef struct {
    int32_t from, to;
} call_edge;

typedef struct {
    rl_plan *plan;
    rl_fb *fb;
    int32_t n_subgraphs;
    call_edge *edges;
    int32_t n_edges, cap_edges;
} call_graph;

static rl_status malformed(call_graph *g, int32_t s, int32_t j, const char *problem) {
    g->plan->current_op = -1;
    if (j < 0) return rl_fail(g->plan, RL_INVALID, "malformed: subgraph %d: %s", s, problem);
    return rl_fail(g->plan, RL_INVALID, "malformed: subgraph %d operator %d: %s", s, j, problem);
}

static rl_status add_calls(call_graph *g, int32_t s, int32_t j, int options2, int32_t type, uint64_t pos) {
    const size_t n = sizeof calling / sizeof calling[0];
    for (size_t k = 0; k < n; ++k) {
        if (calling[k].options2 != options2 || calling[k].type != type) continue;
        rl_fb_table options;
        if (!rl_fb_table_at(g->fb, pos, &options)) return malformed(g, s, j, g->fb->problem);
        for (int f = 0; f < 2 && calling[k].slots[f] >= 0; ++f) {
            double target;
            if (!rl_fb_scalar(g->fb, &options, calling[k].slots[f], FB_I32, 0, &target))
                return malformed(g, s, j, g->fb->problem);
            if (target < 0 || target >= g->n_subgraphs)
                return malformed(g, s, j, "it calls a subgraph that is not there");
            if (g->n_edges == g->cap_edges) {
                const int32_t cap = g->cap_edges ? 2 * g->cap_edges : 16;
                call_edge *grown = (call_edge *)realloc(g->edges, sizeof *grown * (size_t)cap);
                if (!grown) return rl_fail(g->plan, RL_NO_MEMORY, "out of memory reading the model");
                g->edges = grown;
                g->cap_edges = cap;
            }
            g->edges[g->n_edges++] = (call_edge){s, (int32_t)target};
        }
    }
    return RL_OK;
}

static rl_status read_calls(call_graph *g, const int32_t *codes, int32_t n_codes, int32_t s, const rl_fb_table *sg,
                            rl_tflite_unknown_ops *unknown) {
    rl_fb *fb = g->fb;
    rl_fb_vector ops;
    if (!rl_fb_vector_of(fb, sg, RL_TFLITE_SUBGRAPH_OPERATORS, 4, &ops, NULL)) return malformed(g, s, -1, fb->problem);
    for (uint32_t j = 0; j < ops.count; ++j) {
        rl_fb_table op;
        double opcode;
        int32_t type, type2;
        uint64_t pos, pos2;
        if (!rl_fb_table_in(fb, &ops, j, &op) || !rl_fb_scalar(fb, &op, 0, FB_U32, 0, &opcode) ||
            !rl_fb_union(fb, &op, RL_TFLITE_OP_OPTIONS_TYPE, RL_TFLITE_OPTIONS_TYPES, &type, &pos) ||
            !rl_fb_union(fb, &op, RL_TFLITE_OP_OPTIONS2_TYPE, RL_TFLITE_OPTIONS2_TYPES, &type2, &pos2))
            return malformed(g, s, (int32_t)j, fb->problem);
        if (opcode >= n_codes) return malformed(g, s, (int32_t)j, "its opcode index is out of range");
        const int32_t code = codes[(int32_t)opcode];
        if (!rl_find_op_kind(code) && !unknown->count++) {
            unknown->subgraph = s;
            unknown->op = (int32_t)j;
            unknown->code = code;
        }
        rl_status status = type ? add_calls(g, s, (int32_t)j, 0, type, pos) : RL_OK;
        if (status == RL_OK && type2) status = add_calls(g, s, (int32_t)j, 1, type2, pos2);
        if (status != RL_OK) return status;
    }
    return RL_OK;
}

/* Kahn's algorithm: the graph has a cycle when some subgraph is never left without callers. The calls
 * are grouped by caller first (a counting sort), so the walk is linear in subgraphs and calls. */
static rl_status check_cycles(call_graph *g) {
    const size_t n = (size_t)g->n_subgraphs;
    int32_t *callers = (int32_t *)calloc(n + 1, sizeof(int32_t));
    int32_t *first = (int32_t *)calloc(n + 2, sizeof(int32_t));
    int32_t *callees = (int32_t *)malloc(sizeof(int32_t) * ((size_t)g->n_edges + 1));
    int32_t *ready = (int32_t *)malloc(sizeof(int32_t) * (n + 1));
    rl_status status = RL_OK;
    if (!callers || !first || !callees || !ready) {
        status = rl_fail(g->plan, RL_NO_MEMORY, "out of memory reading the model");
        goto done;
    }
    for (int32_t e = 0; e < g->n_edges; ++e) {
        callers[g->edges[e].to]++;
        first[g->edges[e].from + 2]++;
    }
    for (size_t s = 2; s < n + 2; ++s) first[s] += first[s - 1];
    for (int32_t e = 0; e < g->n_edges; ++e) callees[first[g->edges[e].from + 1]++] = g->edges[e].to;
    int32_t n_ready = 0, left = g->n_subgraphs;
    for (int32_t s = 0; s < g->n_subgraphs; ++s)
        if (!callers[s]) ready[n_ready++] = s;
    while (n_ready) {
        const int32_t s = ready[--n_ready];
        --left;
        for (int32_t e = first[s]; e < first[s + 1]; ++e)
            if (--callers[callees[e]] == 0) ready[n_ready++] = callees[e];
    }
    if (left) {
        int32_t s = 0;
        while (!callers[s]) ++s;
        status = malformed(g, s, -1, "it is on a cycle of subgraph calls");
    }
done:
    free(callers);
    free(first);
    free(callees);
    free(ready);
    return status;
}

rl_status rl_tflite_check_calls(rl_plan *plan, rl_fb *fb, const rl_fb_table *model, const int32_t *codes,
                                int32_t n_codes, rl_tflite_unknown_ops *unknown) {
    call_graph g = {.plan = plan, .fb = fb};
    rl_fb_vector subgraphs;
    unknown->count = 0;
    if (!rl_fb_vector_of(fb, model, RL_TFLITE_MODEL_SUBGRAPHS, 4, &subgraphs, NULL)) {
        plan->current_op = -1;
        return rl_fail(plan, RL_INVALID, "malformed: Model.subgraphs: %s", fb->problem);
    }
    g.n_subgraphs = (int32_t)subgraphs.count;
    rl_status status = RL_OK;
    for (int32_t s = 0; s < g.n_subgraphs && status == RL_OK; ++s) {
        rl_fb_table sg;
        status = rl_fb_table_in(fb, &subgraphs, (uint32_t)s, &sg) ? read_calls(&g, codes, n_codes, s, &sg, unknown)
                                                                 : malformed(&g, s, -1, fb->problem);
    }
    if (status == RL_OK && g.n_edges) status = check_cycles(&g);
    free(g.edges);
    return status;
}
