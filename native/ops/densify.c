/* densify.c — DENSIFY of a sparse constant (TFLite's sparsity format): the reader decodes the tensor's
 * SparsityParameters into the op's scratch (rl_sparsity, pointing into the model's bytes) and gives the
 * sparse tensor its values only; prepare checks the format against the dense shape, and since the input is a
 * constant the op is folded: the dense tensor is built once, at prepare.
 *
 * The format walks `n_levels` levels in traversal order: the original axes (blocked when a block map splits
 * them) then the block axes. A DENSE level spans dense_size positions; a SPARSE_CSR level lists, for the
 * position of the level above, the indices segments[p] .. segments[p + 1] - 1 of array_indices. Each leaf
 * takes the next stored value; every other element is zero (TFLite's FormatConverter::SparseToDense). */
#include <string.h>

#include "ops.h"

static int64_t index_at(const rl_sparse_vector *v, int64_t i) {
    if (v->type == 0) {
        int32_t x;
        memcpy(&x, v->data + 4 * i, 4);
        return x;
    }
    if (v->type == 1) {
        uint16_t x;
        memcpy(&x, v->data + 2 * i, 2);
        return x;
    }
    return v->data[i];
}

typedef struct {
    const rl_sparsity *sp;
    const char *values;
    char *out;
    size_t elem;
    int64_t dense_dims[RL_MAX_DIMS];
    int64_t next; /* the next stored value */
    int32_t index[2 * RL_MAX_DIMS];
} densify_walk;

/* 0, or 1 when the format points outside itself (a malformed file). */
static int populate(densify_walk *w, int32_t level, int64_t prev) {
    const rl_sparsity *sp = w->sp;
    if (level == sp->n_levels) {
        int64_t orig[RL_MAX_DIMS] = {0}, flat = 0;
        for (int32_t i = 0; i < sp->rank; ++i) orig[sp->traversal_order[i] & (RL_MAX_DIMS - 1)] = w->index[i];
        for (size_t i = (size_t)sp->rank; i < (size_t)sp->n_levels && i < 2 * RL_MAX_DIMS; ++i) { /* checked by the reader */
            const int32_t block = (sp->traversal_order[i] - sp->rank) & (RL_MAX_DIMS - 1);
            const int32_t dim = sp->block_map[block] & (RL_MAX_DIMS - 1);
            orig[dim] = orig[dim] * sp->block_size[block] + w->index[i];
        }
        for (int32_t d = 0; d < sp->rank; ++d) {
            if (orig[d] < 0 || orig[d] >= w->dense_dims[d]) return 1;
            flat = flat * w->dense_dims[d] + orig[d];
        }
        if (w->next >= sp->n_values) return 1;
        memcpy(w->out + (size_t)flat * w->elem, w->values + (size_t)w->next * w->elem, w->elem);
        ++w->next;
        return 0;
    }
    const rl_sparse_level *l = &sp->levels[level];
    if (l->format == 0) {
        for (int64_t i = 0; i < l->dense_size; ++i) {
            w->index[level] = (int32_t)i;
            if (populate(w, level + 1, prev * l->dense_size + i)) return 1;
        }
        return 0;
    }
    if (prev < 0 || prev + 1 >= l->segments.count) return 1;
    const int64_t begin = index_at(&l->segments, prev), end = index_at(&l->segments, prev + 1);
    if (begin < 0 || end < begin || end > l->indices.count) return 1;
    for (int64_t i = begin; i < end; ++i) {
        w->index[level] = (int32_t)index_at(&l->indices, i);
        if (populate(w, level + 1, i)) return 1;
    }
    return 0;
}

rl_status rl_prepare_densify(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0);
    rl_tensor *output = rl_output(plan, op, 0);
    const rl_sparsity *sp = (const rl_sparsity *)op->scratch;
    if (!sp || op->scratch_bytes < sizeof *sp || (!rl_known_data(input) && rl_shape_count(&input->shape) != 0))
        return rl_fail(plan, RL_UNSUPPORTED, "the input must be a sparse constant of the model");
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    if (output->shape.rank != sp->rank)
        return rl_fail(plan, RL_INVALID, "the output has rank %d, the sparse tensor %d", output->shape.rank, sp->rank);
    for (int32_t d = 0; d < sp->rank; ++d)
        if (output->shape.dims[d] != sp->dense_dims[d])
            return rl_fail(plan, RL_INVALID, "the output's axis %d is %d, the sparse tensor's %d", d,
                           output->shape.dims[d], sp->dense_dims[d]);
    return RL_OK; /* the output keeps the dense shape the model declares */
}

rl_status rl_eval_densify(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0);
    rl_tensor *output = rl_output(plan, op, 0);
    densify_walk w = {.sp = (const rl_sparsity *)op->scratch, .values = (const char *)input->data,
                      .out = (char *)output->data, .elem = rl_dtype_size(output->dtype)};
    for (int32_t d = 0; d < w.sp->rank; ++d) w.dense_dims[d] = w.sp->dense_dims[d];
    memset(output->data, 0, (size_t)rl_shape_count(&output->shape) * w.elem);
    if (populate(&w, 0, 0))
        return rl_fail(plan, RL_INVALID, "malformed: the sparse tensor's format points outside its values or shape");
    return RL_OK;
}
