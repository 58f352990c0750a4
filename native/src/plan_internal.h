/* plan_internal.h — the plan's data (tensors, ops, arena) and the interface every op implements. */
#ifndef RILLET_PLAN_INTERNAL_H
#define RILLET_PLAN_INTERNAL_H

#include "rillet.h"
#include "cpu_features.h"
#include "kernels.h"
#include "quant.h"
#include "threadpool.h"
#include "zeroed_memory.h"

/* C99 has no static_assert: a negative array size fails the build instead. */
#define RL_STATIC_ASSERT_JOIN2(a, b) a##b
#define RL_STATIC_ASSERT_JOIN(a, b) RL_STATIC_ASSERT_JOIN2(a, b)
#define RL_STATIC_ASSERT(condition, message) \
    typedef char RL_STATIC_ASSERT_JOIN(rl_static_assert_, __LINE__)[(condition) ? 1 : -1]

typedef struct {
    int32_t rank;
    int32_t dims[RL_MAX_DIMS];
} rl_shape;

typedef struct {
    int32_t dtype;
    rl_shape shape;
    const void *file_data; /* constant bytes in the model file, used in place */
    size_t file_bytes;
    int32_t is_variable;
    int32_t storage;  /* rl_storage, decided at prepare */
    void *data;       /* where the bytes are after prepare */
    size_t bytes;
    void *owned;      /* folded values, a realigned constant or a dynamic tensor's block, freed by the plan */
    size_t capacity;  /* a dynamic tensor's block: the bytes it holds room for */
    size_t arena_offset;
    int32_t first_op, last_op; /* lifetime over the ops that run at invoke */
    /* Quantization, kept for the int8 kernels. */
    int32_t q_count;
    float *q_scales;
    int64_t *q_zero_points;
    int32_t q_dimension;
} rl_tensor;

/* What prepare computes once for the eval of an op. */
typedef struct {
    int32_t pad_w, pad_h;
    float act_min, act_max;
    int32_t axis;
    int32_t begin[RL_MAX_DIMS], stride[RL_MAX_DIMS], after[RL_MAX_DIMS];
    int32_t perm[RL_MAX_DIMS];
    int32_t reduce_axes[RL_MAX_DIMS]; /* 1 where an axis is reduced */
    rl_broadcast bc;
    int64_t dims[RL_MAX_DIMS], out_dims[RL_MAX_DIMS];
    int64_t outer, inner, count;
    float divisor;
    rl_quant_params q; /* int8 ops: zero points, multipliers, clamp range (quant.h) */
} rl_prepared;

struct rl_op_kind;

#define RL_TAKES_F32 (1u << RL_FLOAT32)
#define RL_TAKES_I32 (1u << RL_INT32)
#define RL_TAKES_ANY                                                                                        \
    ((1u << RL_FLOAT32) | (1u << RL_INT32) | (1u << RL_UINT8) | (1u << RL_INT64) | (1u << RL_BOOL) |       \
     (1u << RL_INT16) | (1u << RL_INT8))

typedef struct rl_op rl_op;

/* What a dynamic op was last prepared for: one input's shape and where its bytes were. */
typedef struct {
    rl_shape shape;
    const void *data;
} rl_seen_input;

struct rl_op {
    int32_t code;
    const struct rl_op_kind *kind;
    int32_t n_inputs, n_outputs;
    int32_t *inputs, *outputs;
    rl_op_params params;
    rl_prepared prep;
    int32_t folded;
    void *scratch; /* per-op memory prepare owns (per-channel multipliers, tables); see rl_op_scratch */
    size_t scratch_bytes;
    /* The op's typed state (its driver's struct, packed weights, indirection), from rl_op_state; NULL for
     * ops still on rl_prepared. */
    void *state;
    size_t state_bytes;
    rl_zeroed_block state_block;
    size_t packed_weight_bytes; /* the part of state that is repacked weights (memory_report) */
    /* Bit i: input i is a constant this op copied into its packed weights at prepare and never reads again
     * (rl_plan_constant_spans tells the runtime which file pages no invoke touches). */
    uint32_t packed_inputs;
    /* The eval prepare chose for this op's dtypes and shapes (NULL: the kind's eval), and an optional
     * step that runs once the arena is placed (pointers into it: indirection buffers). */
    rl_status (*run)(rl_plan *plan, rl_op *op);
    rl_status (*setup)(rl_plan *plan, rl_op *op);
    /* Scratch that lives in the arena for the op's step only (rl_request_arena_scratch), or, when a later op
     * reads it (arena_scratch_until, that op's index; a hybrid projection's quantized rows, which the projections
     * after it on the same input reuse: conv_hybrid_gemm.c), to that op's step and over every segment either
     * step is in (bands.h), so the op may band with it. */
    size_t arena_scratch_bytes, arena_scratch_offset;
    void *arena_scratch;
    int32_t arena_scratch_until;
    /* A dynamic op reads a tensor whose shape is known only during invoke (a control-flow op's output, or
     * what is computed from one): it is prepared again before it runs whenever an input's shape or memory
     * changed (seen), its outputs are dynamic too, and its scratch lives on the heap, not in the arena.
     * stale: its last prepare failed or never ran for the shapes it will see. */
    int32_t dynamic, stale;
    rl_seen_input *seen;
    void *heap_scratch;
    size_t heap_scratch_bytes;
    /* Banded execution (bands.h), offered by an op's prepare when a band of its output can be computed on its
     * own: the output is band_rows rows (batch * height) of band_row_pixels pixels, both positive; run_rows
     * computes pixels [first, first + count) (whole rows when band_whole_rows); begin_rows (or NULL) takes the
     * tensors' addresses before a band job, and a segment's first op may also read its inputs whole there, on
     * the plan's threads (they are complete: the hybrid depthwise finds each image's range). band_pointwise: pixel p reads only pixel p of its inputs (which have the
     * same rows and pixels), so the op may follow the ops that wrote them in the same band without waiting
     * for the other bands. */
    size_t band_rows, band_row_pixels;
    int32_t band_pointwise, band_whole_rows;
    /* band_chunks: an element-wise op (or a view) that computes any contiguous chunk of its output from the same
     * chunk of each input it reads per element, so it joins a segment of U units whenever its output splits into
     * U equal chunks (its rows and pixels then become the segment's); band_whole_inputs: bit k when input k is
     * read whole (a single value, a vector of channels), which no earlier op of its segment may write. */
    int32_t band_chunks;
    uint32_t band_whole_inputs;
    void (*begin_rows)(rl_plan *plan, rl_op *op);
    void (*run_rows)(rl_plan *plan, const rl_op *op, size_t first, size_t count);
    /* band_no_scratch: run_rows and begin_rows use none of the op's arena scratch (only its own run does), so
     * the op may band though it has some. band_reads_scratch: begin_rows fills the scratch and run_rows reads
     * it, so it lives over the op's whole segment (and over the op's step alone when it runs on its own). */
    int32_t band_no_scratch, band_reads_scratch;
    /* band_cache_pixels (or 0): the most pixels of a band that keep what the op hands on in cache (attention's
     * scores rows, from a product too large for it); a segment holding the op runs in as many bands as keep to
     * it, more than its threads, and even on one thread. */
    size_t band_cache_pixels;
    /* run_rows_scattered (or NULL): an op that may end a segment's bands though its output is not in their pixel
     * order (a TRANSPOSE splitting a projection's tokens into heads): it computes from the band's pixels of input
     * 0, a range of whole indices of its first axis longer than 1 when their elements are a multiple of
     * band_scatter_granule. Set by rl_plan_form_segments: band_scattered when it joined so, and then no later op
     * of the segment reads its output. */
    void (*run_rows_scattered)(rl_plan *plan, const rl_op *op, size_t first, size_t count);
    /* end_rows (or NULL): after a segment's bands, on the caller, the checks a band cannot fail on (an int8 RSQRT's
     * inputs below its zero point); its error fails the invoke, naming the op, as the op's own run would. */
    rl_status (*end_rows)(rl_plan *plan, rl_op *op);
    size_t band_scatter_granule;
    int32_t band_scattered;
    /* Set by rl_plan_form_segments: band_before, an op inside a segment that reads nothing its bands write and runs
     * whole before them, so that a later op of the segment may read its output whole (attention's V, reshaped for
     * P.V). */
    int32_t band_before;
    /* Set by rl_plan_form_segments: for the first op of a segment, the index of its last op, whether its
     * bands are whole rows, and how many bands it runs in; else -1. */
    int32_t segment_last, segment_whole_rows;
    size_t segment_bands;
};

/* One op: which dtypes its data input takes, how it computes shapes and what it runs. */
typedef struct rl_op_kind {
    int32_t code;
    const char *name;
    uint32_t dtypes;                                 /* bit (1u << dtype) per supported dtype of data_input */
    /* The input holding the data the op computes on, whose dtype `dtypes` lists: 0 unless operands come
     * first (TRANSPOSE_CONV's output_shape, FILL's dims, ONE_HOT's indices and depth). */
    int32_t data_input;
    int32_t shape_only;                              /* output known from input shapes alone (SHAPE) */
    rl_status (*prepare)(rl_plan *plan, rl_op *op);  /* output shapes, validation, op->prep */
    rl_status (*eval)(rl_plan *plan, rl_op *op);
    int32_t stateful;                                /* touches the program's variables: never folded */
    void (*reset_state)(rl_op *op); /* zeroes what the op keeps across invokes (TFLite's variable tensors), or NULL */
} rl_op_kind;

/* What stops an invoke early: rl_plan_cancel from another thread, or the time limit. A program's plans share
 * its guard, so a WHILE body or IF branch stops too, and only the outermost invoke starts the clock. */
typedef struct {
    int32_t cancel;      /* atomic: set by rl_plan_cancel (any thread), cleared when an outermost invoke starts */
    int64_t timeout_ns;  /* the most one invoke may take (rl_plan_set_invoke_timeout); 0: no limit */
    int64_t deadline_ns; /* the running invoke's end, CLOCK_MONOTONIC; 0: none */
    int32_t depth;       /* invokes running on the guard's plans, a callee's nested in its caller's */
} rl_invoke_guard;

/* The invoke's guard: RL_CANCELLED (after rl_fail) when it was cancelled or ran out of time; checked between
 * ops and at each WHILE iteration. */
rl_status rl_invoke_check_stop(rl_plan *plan);
/* A guard as a new plan or program starts with: RILLET_INVOKE_TIMEOUT_MS from the environment. */
void rl_invoke_guard_init(rl_invoke_guard *guard);

struct rl_plan {
    int32_t num_threads;
    int32_t preserve_all;
    int32_t prepared;
    rl_tensor *tensors;
    int32_t n_tensors, cap_tensors;
    rl_op *ops;
    int32_t n_ops, cap_ops;
    int32_t *graph_inputs, *graph_outputs;
    int32_t n_graph_inputs, n_graph_outputs;
    int32_t *carried; /* pairs (graph output, graph input the caller feeds it back to): rl_plan_set_carried */
    int32_t n_carried;
    void *arena;
    rl_zeroed_block arena_block;
    size_t arena_bytes;
    rl_isa isa;
    rl_kernel_table kernel_table; /* filled at plan creation for isa */
    const rl_kernel_table *kernels;
    rl_threadpool *pool;          /* NULL with one thread */
    rl_block_cache *block_cache;  /* where freed blocks go and new ones come from first; NULL: none (not owned) */
    struct rl_program *program;   /* the subgraphs and variables this plan belongs to, or NULL */
    rl_invoke_guard own_guard;
    rl_invoke_guard *guard;       /* own_guard, or the program's once the plan belongs to one */
    size_t memory_limit;          /* the most one allocation of the plan may take (rl_plan_set_memory_limit) */
    size_t dynamic_bytes;         /* held by dynamic tensors; together they stay within memory_limit too */
    int32_t failed_op;
    int32_t current_op;
    char message[RL_MESSAGE_CAPACITY];
};

/* Fills the message (prefixed by nothing: Python names the op) and returns status. */
rl_status rl_fail(rl_plan *plan, rl_status status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

const rl_op_kind *rl_find_op_kind(int32_t code);

/* The graph is a dataflow graph (src/graph_check.c): one writer per tensor, no op writing a graph input or
 * a constant, every tensor read after it is written. RL_INVALID naming the op otherwise. */
rl_status rl_plan_check_graph(rl_plan *plan);

/* RL_NO_MEMORY naming `what` when `bytes` exceeds the plan's memory limit: checked before allocating, so a
 * hostile model asking for a 100 GB arena is refused instead of paging the machine to death. */
rl_status rl_check_memory_limit(rl_plan *plan, size_t bytes, const char *what);

/* Helpers for prepare. */
rl_tensor *rl_input(rl_plan *plan, const rl_op *op, int32_t i);  /* NULL when omitted */
rl_tensor *rl_output(rl_plan *plan, const rl_op *op, int32_t i);
const void *rl_known_data(const rl_tensor *t);                  /* constant or folded data, else NULL */
size_t rl_dtype_size(int32_t dtype);
int64_t rl_shape_count(const rl_shape *s);
/* The bytes a tensor of its shape and dtype holds. */
size_t rl_tensor_bytes(const rl_tensor *t);
int rl_shape_equal(const rl_shape *a, const rl_shape *b);
const char *rl_dtype_name(int32_t dtype);
rl_status rl_expect_inputs(rl_plan *plan, const rl_op *op, int32_t min_count, int32_t max_count);
rl_status rl_expect_dtype(rl_plan *plan, const rl_tensor *t, const char *what, int32_t dtype);
rl_status rl_activation_range(rl_plan *plan, int32_t activation, float *lo, float *hi);
/* Reads element i of an int32 or int64 constant tensor. */
int64_t rl_read_index(const rl_tensor *t, int64_t i);
rl_status rl_known_indices(rl_plan *plan, const rl_tensor *t, const char *what);
/* A constant tensor holding one axis of a rank-`rank` input, negative counting from the end: *axis in
 * [0, rank), or RL_INVALID / RL_UNSUPPORTED naming the problem. */
rl_status rl_known_axis(rl_plan *plan, const rl_tensor *axis_t, int32_t rank, int32_t *axis);
void rl_strides_of(const rl_shape *s, int64_t *strides);
/* Zeroed memory of at least `bytes` that lives with the op until the plan is destroyed (reused on a
 * later prepare); NULL after rl_fail when out of memory. */
void *rl_op_scratch(rl_plan *plan, rl_op *op, size_t bytes);
/* The op's typed state: zeroed memory of `bytes` (64-byte aligned) that lives until the next prepare or the
 * plan's end; NULL after rl_fail when out of memory. */
void *rl_op_state(rl_plan *plan, rl_op *op, size_t bytes);
/* rl_op_state for a state made of `count` parts (the op's struct first, then its buffers): parts[i] gets
 * the 64-byte aligned start of part i. Returns parts[0], NULL after rl_fail. */
void *rl_op_state_parts(rl_plan *plan, rl_op *op, int32_t count, const size_t *bytes, void **parts);
/* Asks the planner for `bytes` of arena memory that the op may use during its own eval only; it is at
 * op->arena_scratch once the arena is placed (setup and eval). */
void rl_request_arena_scratch(rl_op *op, size_t bytes);
/* packed_inputs for an op that packed its filter (input 1) and bias (input 2). */
#define RL_PACKED_FILTER_AND_BIAS ((1u << 1) | (1u << 2))

/* Gives a tensor a new shape during invoke. A dynamic tensor (RL_STORAGE_DYNAMIC) grows its heap block when
 * needed (its bytes are then not kept); any other tensor must already have the shape (RL_BAD_STATE naming
 * both shapes otherwise). RL_NO_MEMORY past the plan's memory limit. */
rl_status rl_tensor_resize(rl_plan *plan, rl_tensor *t, const rl_shape *shape);
/* "[2, 3]" into text (a scalar is "[]"), for messages; RL_SHAPE_TEXT bytes hold any shape. */
#define RL_SHAPE_TEXT (RL_MAX_DIMS * 13 + 3)
const char *rl_shape_text(const rl_shape *s, char text[RL_SHAPE_TEXT]);

/* The machinery of dynamic tensors and ops (dynamic_tensors.c; see rl_op.dynamic). */
rl_status rl_dynamic_reserve(rl_plan *plan, rl_tensor *t);     /* room for its shape (RL_NO_MEMORY past the limit) */
/* The bytes of every tensor of the plan's model: each subgraph's arena and dynamic tensors. */
size_t rl_model_tensor_bytes(const rl_plan *plan);
int rl_reads_dynamic_tensor(const rl_plan *plan, const rl_op *op);
int rl_dynamic_inputs_changed(const rl_plan *plan, const rl_op *op);
/* A dynamic op just before it runs (plan_invoke.c): prepared again when an input changed shape or memory since
 * its last prepare (plan.c). */
rl_status rl_plan_refresh_dynamic_op(rl_plan *plan, rl_op *op);
/* After the op's prepare: its outputs' blocks, its heap scratch, its setup, and the inputs it saw. */
rl_status rl_dynamic_op_ready(rl_plan *plan, rl_op *op);
/* A dynamic op whose prepare failed at plan prepare, for shapes it may never see: it is prepared again at
 * invoke (and fails then if it still cannot run); its outputs are empty until then. */
void rl_dynamic_op_defer(rl_plan *plan, rl_op *op);

/* Quantization of a tensor (quant_params.c). An int8/int16 activation must carry exactly one scale. */
rl_status rl_expect_per_tensor_quantization(rl_plan *plan, const rl_tensor *t, const char *what);
/* An int8 binary op's operands and output: input 1 and the output int8 too, all three with one scale. */
rl_status rl_expect_int8_binary_operands(rl_plan *plan, const rl_op *op);
/* For ops that move or choose int8 values without rescaling them: an int8 `t` must be quantized as
 * `reference` (RL_OK for other types). `what` and `reference_name` name the two in the message. */
rl_status rl_expect_quantized_alike(rl_plan *plan, const rl_tensor *t, const char *what, const rl_tensor *reference,
                                    const char *reference_name);
float rl_tensor_scale(const rl_tensor *t, int32_t channel);     /* channel 0 for per-tensor */
int32_t rl_tensor_zero_point(const rl_tensor *t, int32_t channel);
/* TFLite's CalculateActivationRangeQuantized: the fused activation's clamp in the output's integers. */
rl_status rl_quantized_activation_range(rl_plan *plan, int32_t activation, const rl_tensor *output, int32_t *lo,
                                        int32_t *hi);

#endif
