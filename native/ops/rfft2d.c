/* rfft2d.c — RFFT2D: the 2-D real FFT of a float32 input's last two axes at a constant fft_length (powers of
 * two, as TFLite requires), giving complex64 (f32_rfft2d_ref.c). The twiddle tables and the row transforms'
 * scratch live in the op's state: an invoke allocates nothing. */
#include <math.h>

#include "ops.h"

typedef struct {
    int64_t batches;
    int32_t in_h, in_w, fft_h, fft_w;
    double *twiddle_h, *twiddle_w, *rows;
} rl_rfft2d_state;

static rl_status run_rfft2d(rl_plan *plan, rl_op *op) {
    const rl_rfft2d_state *st = (const rl_rfft2d_state *)op->state;
    f32_rfft2d_ref(st->batches, st->in_h, st->in_w, st->fft_h, st->fft_w, st->twiddle_h, st->twiddle_w, st->rows,
                   (const float *)rl_input(plan, op, 0)->data, (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

static void twiddles(int32_t n, double *table) {
    for (int32_t k = 0; k < n; ++k) {
        const double angle = 2.0 * 3.14159265358979323846 * (double)k / (double)n;
        table[2 * k] = cos(angle);
        table[2 * k + 1] = sin(angle);
    }
}

rl_status rl_prepare_rfft2d(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0), *length = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    if ((s = rl_expect_dtype(plan, input, "input", RL_FLOAT32)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", RL_COMPLEX64)) != RL_OK) return s;
    if ((s = rl_known_indices(plan, length, "fft_length")) != RL_OK) return s;
    if (rl_shape_count(&length->shape) != 2) return rl_fail(plan, RL_INVALID, "fft_length must be two values");
    const int32_t rank = input->shape.rank;
    if (rank < 2) return rl_fail(plan, RL_INVALID, "the input needs rank 2 or more (has %d)", rank);
    const int64_t fh = rl_read_index(length, 0), fw = rl_read_index(length, 1);
    if (fh < 1 || fw < 2 || fh > (1 << 20) || fw > (1 << 20) || (fh & (fh - 1)) || (fw & (fw - 1)))
        return rl_fail(plan, RL_INVALID, "fft_length (%lld, %lld) must be powers of two", (long long)fh, (long long)fw);
    const int32_t out_w = (int32_t)fw / 2 + 1;
    const size_t bytes[4] = {sizeof(rl_rfft2d_state), sizeof(double) * 2 * (size_t)fh, sizeof(double) * 2 * (size_t)fw,
                             sizeof(double) * 2 * (size_t)fh * (size_t)out_w};
    void *parts[4];
    rl_rfft2d_state *st = (rl_rfft2d_state *)rl_op_state_parts(plan, op, 4, bytes, parts);
    if (!st) return RL_NO_MEMORY;
    st->twiddle_h = (double *)parts[1];
    st->twiddle_w = (double *)parts[2];
    st->rows = (double *)parts[3];
    twiddles((int32_t)fh, st->twiddle_h);
    twiddles((int32_t)fw, st->twiddle_w);
    st->in_h = input->shape.dims[rank - 2];
    st->in_w = input->shape.dims[rank - 1];
    st->fft_h = (int32_t)fh;
    st->fft_w = (int32_t)fw;
    st->batches = 1;
    for (int32_t d = 0; d < rank - 2; ++d) st->batches *= input->shape.dims[d];
    output->shape = input->shape;
    output->shape.dims[rank - 2] = (int32_t)fh;
    output->shape.dims[rank - 1] = out_w;
    op->run = run_rfft2d;
    return RL_OK;
}

rl_status rl_eval_rfft2d(rl_plan *plan, rl_op *op) { return run_rfft2d(plan, op); }
