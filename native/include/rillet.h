/* rillet.h — the C API of librillet: load a .tflite model (or describe its tensors and ops), prepare the plan
 * once, invoke it as often as needed. An app in C needs only this header and librillet.so or librillet.a (in
 * every wheel under rillet/native/lib and rillet/native/include, and in a `rillet deploy --c` bundle); link
 * with -lrillet -lm -lpthread. examples/c/classify.c is a complete program.
 *
 * The usual sequence (every call that returns an rl_status must be checked):
 *
 *     rl_plan *plan;
 *     rl_status s = rl_plan_create(&plan, 2);                       two threads per invoke
 *     if (s == RL_OK) s = rl_plan_build_from_tflite(plan, model, model_bytes, 0);
 *     if (s == RL_OK) s = rl_plan_prepare(plan);                    shapes, packed weights, one arena
 *     int32_t in = rl_plan_input(plan, 0), out = rl_plan_output(plan, 0);
 *     memcpy(rl_plan_tensor_data(plan, in), pixels, rl_plan_tensor_bytes(plan, in));
 *     if (s == RL_OK) s = rl_plan_invoke(plan);                     no allocation
 *     if (s != RL_OK) fprintf(stderr, "%s: %s\n", rl_status_name(s), plan ? rl_plan_message(plan) : "");
 *     ... read rl_plan_tensor_data(plan, out) ...
 *     rl_plan_destroy(plan);
 *
 * ERRORS. Every entry point that can fail returns an rl_status and writes a message into the plan, naming the
 * op, tensor or argument at fault ("conv2d 3: input has 3 channels, filter expects 4"); rl_plan_message returns
 * it and rl_status_name names the status. The message is meaningful only right after a call on that plan
 * returned something other than RL_OK (a later failing call overwrites it; a succeeding call may leave it as it
 * was). The library never aborts, exits or prints, and a failed call leaves the plan safe to destroy (and, for
 * invoke, to invoke again). Functions returning an int32_t index or count give -1 for an index out of range;
 * those returning a size give 0.
 *
 * OWNERSHIP AND LIFETIMES.
 *   - The caller owns every rl_plan, rl_program and rl_block_cache it creates and destroys each exactly once
 *     (rl_plan_destroy and friends accept NULL). Destroy the plans of a program before the program, and a block
 *     cache after the last plan that uses it.
 *   - The model's bytes given to rl_plan_build_from_tflite (and the `data` of rl_plan_add_tensor) are borrowed,
 *     never copied: constants are used in place, so the bytes must stay unchanged and alive until the plan is
 *     destroyed. A read-only mmap of the file is fine.
 *   - The library owns every pointer it returns: rl_plan_message's string (valid until the next call on the
 *     plan), rl_plan_isa's and rl_status_name's (static), rl_plan_tensor_data's memory, rl_plan_op_params'
 *     struct. Never free them.
 *   - rl_plan_tensor_data points into the plan's arena: it is valid from a successful rl_plan_prepare until the
 *     next rl_plan_set_tensor_shape, rl_plan_prepare or rl_plan_destroy; write inputs and read outputs through
 *     it (inputs and outputs never share memory with another live tensor). A DYNAMIC tensor (rl_storage) lives
 *     in its own block that an invoke may move: ask for its pointer and shape again after every invoke. A
 *     constant's pointer points into the model's bytes: never write through it.
 *
 * THREADING. A plan is not safe to use from two threads at once: calls on one plan (and on the plans of one
 * program) must not overlap; guard it with a mutex if several threads share it. The one exception is
 * rl_plan_cancel, which any thread may call while another invokes. Different plans (different programs) may be
 * used on different threads at the same time: the library holds no global mutable state, and an rl_block_cache
 * is locked inside, so one may serve plans on several threads. rl_plan_create starts num_threads - 1 worker
 * threads that the plan owns; invoke splits each op's work over them and the calling thread, and returns only
 * when all are done (results do not depend on the thread count). Workers are joined by rl_plan_destroy.
 *
 * ENVIRONMENT, read when a plan or program is created: RILLET_ISA (force a kernel path: ref, scalar, avx2,
 * avx512, avx512vnni, neon, neondot), RILLET_MEMORY_LIMIT_MB, RILLET_INVOKE_TIMEOUT_MS, RILLET_LOOP_LIMIT and
 * RILLET_LOOP_LIMIT_MB (see the setters below, which override them).
 *
 * The region between the cffi markers is read verbatim by native/build_ffi.py, so it stays plain C
 * declarations (no #include, no expressions in array sizes).
 */
#ifndef RILLET_H
#define RILLET_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cffi-begin */
#define RL_MAX_DIMS 8
#define RL_MESSAGE_CAPACITY 512

typedef enum {
    RL_OK = 0,
    RL_INVALID = 1,     /* the model or a call's arguments are malformed */
    RL_UNSUPPORTED = 2, /* well-formed, but rillet has no kernel for it */
    RL_NO_MEMORY = 3,
    RL_BAD_STATE = 4,   /* e.g. invoke before prepare */
    RL_CANCELLED = 5    /* the invoke was stopped: rl_plan_cancel, or its time limit */
} rl_status;

/* Element types, numbered as TFLite's TensorType. */
typedef enum {
    RL_FLOAT32 = 0,
    RL_FLOAT16 = 1,     /* weights only: DEQUANTIZE turns them into float32 */
    RL_INT32 = 2,
    RL_UINT8 = 3,
    RL_INT64 = 4,
    RL_COMPLEX64 = 8,   /* RFFT2D's output: float32 (real, imaginary) pairs */
    RL_BOOL = 6,
    RL_INT16 = 7,
    RL_INT8 = 9,
    RL_RESOURCE = 13    /* a resource variable's handle (VAR_HANDLE's output), held as its int32 id */
} rl_dtype;

/* Fused activations and paddings, numbered as TFLite's schema. */
typedef enum { RL_ACT_NONE = 0, RL_ACT_RELU = 1, RL_ACT_RELU_N1_TO_1 = 2, RL_ACT_RELU6 = 3 } rl_activation;
typedef enum { RL_PADDING_SAME = 0, RL_PADDING_VALID = 1 } rl_padding;

/* Where a tensor's bytes live once the plan is prepared. DYNAMIC: its own heap block, whose shape (and
 * address) an invoke may change: a control-flow op's output whose shape depends on the data, and what is
 * computed from one. */
typedef enum {
    RL_STORAGE_ARENA = 0, RL_STORAGE_CONSTANT = 1, RL_STORAGE_FOLDED = 2, RL_STORAGE_NONE = 3, RL_STORAGE_DYNAMIC = 4
} rl_storage;

/* Per-op parameters, one struct per op kind, filled from the model's builtin options. */
typedef struct { int32_t padding, stride_w, stride_h, dilation_w, dilation_h, depth_multiplier, activation; } rl_conv_params;
typedef struct { int32_t padding, stride_w, stride_h, filter_w, filter_h, activation; } rl_pool_params;
/* quantized_bias_type: the rl_dtype a 16x8 FULLY_CONNECTED's bias has or would have (0: not said); LiteRT
 * runs a bias-less one said to be int64 on its reference kernel. */
typedef struct { int32_t activation, keep_num_dims, quantized_bias_type; } rl_fully_connected_params;
typedef struct { int32_t adj_x, adj_y; } rl_batch_matmul_params;
typedef struct { int32_t activation, pot_scale_int16; } rl_arithmetic_params; /* the second: ADD/SUB */
typedef struct { int32_t keep_dims; } rl_reducer_params;
typedef struct { float beta; } rl_softmax_params;
typedef struct { float alpha; } rl_leaky_relu_params;
typedef struct { int32_t axis, activation; } rl_concatenation_params;
typedef struct { int32_t count; int32_t shape[8]; } rl_reshape_params;   /* count -1: no new_shape option */
typedef struct { int32_t count; int32_t dims[8]; } rl_squeeze_params;
typedef struct { int32_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask, offset; } rl_strided_slice_params;
typedef struct { int32_t axis, batch_dims; } rl_gather_params;
typedef struct { int32_t axis, values_count; } rl_pack_params;
typedef struct { int32_t out_type; } rl_shape_params;
/* declared_4d: 0 until the first prepare, which reads the output's declared shape: 1 when it is 4-D with
 * positive sides (LiteRT's XNNPACK delegate takes a bilinear resize only then, resize.c), -1 otherwise. */
typedef struct { int32_t align_corners, half_pixel_centers, declared_4d; } rl_resize_params;
typedef struct { int32_t resource_id; } rl_var_handle_params;        /* from rl_program_variable_id */
typedef struct { int32_t init_subgraph_index; } rl_call_once_params;
typedef struct { int32_t block_size; } rl_depth_space_params;
typedef struct { int32_t radius; float bias, alpha, beta; } rl_lrn_params;
typedef struct { int32_t mode; } rl_mirror_pad_params;                 /* 0 REFLECT, 1 SYMMETRIC */
typedef struct { int32_t exclusive, reverse; } rl_cumsum_params;
typedef struct { int32_t approximate; } rl_gelu_params;
typedef struct { int32_t axis; } rl_one_hot_params;
typedef struct { int32_t then_subgraph_index, else_subgraph_index; } rl_if_params;
typedef struct { int32_t cond_subgraph_index, body_subgraph_index; } rl_while_params;
/* intermediates: the op's intermediate tensors (TFLite's integer LSTM reads the gates' and the hidden state's
 * quantization from them): how many the file lists, and the first five's scale and zero point (scale 0 where
 * one has no quantization). */
typedef struct {
    int32_t activation; float cell_clip, proj_clip; int32_t time_major;
    int32_t n_intermediates; float intermediate_scale[5]; int32_t intermediate_zero_point[5];
    int32_t asymmetric_quantize_inputs; /* hybrid (int8 weights): x and h quantized asymmetrically */
} rl_lstm_params;
typedef struct { int64_t seed, seed2; } rl_random_params;

typedef union {
    rl_conv_params conv;
    rl_pool_params pool;
    rl_fully_connected_params fully_connected;
    rl_batch_matmul_params batch_matmul;
    rl_arithmetic_params arithmetic;
    rl_reducer_params reducer;
    rl_softmax_params softmax;
    rl_leaky_relu_params leaky_relu;
    rl_concatenation_params concatenation;
    rl_reshape_params reshape;
    rl_squeeze_params squeeze;
    rl_strided_slice_params strided_slice;
    rl_gather_params gather;
    rl_pack_params pack;
    rl_shape_params shape;
    rl_resize_params resize;
    rl_var_handle_params var_handle;
    rl_call_once_params call_once;
    rl_depth_space_params depth_space;
    rl_lrn_params lrn;
    rl_mirror_pad_params mirror_pad;
    rl_cumsum_params cumsum;
    rl_gelu_params gelu;
    rl_one_hot_params one_hot;
    rl_if_params if_op;
    rl_while_params while_op;
    rl_lstm_params lstm;
    rl_random_params random;
} rl_op_params;

/* A plan: one subgraph of a model, built (tensors and ops), prepared (shapes, state, arena) and invoked. Opaque;
 * the caller owns it (rl_plan_destroy). */
typedef struct rl_plan rl_plan;

/* Build. Tensors and ops are numbered in the order they are added (the model's order). */
/* Picks the kernel path (RILLET_ISA, else the CPU's best) and starts num_threads - 1 workers (num_threads < 1
 * counts as 1). On an error the plan is still returned, holding the message: destroy it; *plan_out is NULL only
 * when even the plan could not be allocated (RL_NO_MEMORY). */
rl_status rl_plan_create(rl_plan **plan_out, int32_t num_threads);
/* The best kernel path this CPU and OS run (an rl_isa, native/kernels/isa.h: 0 scalar, 1 avx2, 2 avx512,
 * 3 avx512vnni, 4 neon, 5 neondot; rl_plan_isa names a plan's), from cpuid or HWCAP. Each call asks the CPU again, and
 * in a virtual machine every cpuid is a trap to the hypervisor (about 20-40 us for the three a plan needed, as
 * long as the rest of a small model's plan): a caller creating many plans detects once and passes the result
 * to rl_plan_create_on. */
int32_t rl_best_isa(void);
/* rl_plan_create on the path `isa`, which must be one rl_best_isa returned in this process (or -1: as
 * rl_plan_create, RILLET_ISA or the CPU's best). */
rl_status rl_plan_create_on(rl_plan **plan_out, int32_t num_threads, int32_t isa);
/* Joins the plan's threads and frees everything it allocated (not the model's bytes, which the caller owns).
 * NULL is a no-op. Must not run while another thread invokes the plan. */
void rl_plan_destroy(rl_plan *plan);
/* Freed memory kept for plans to reuse: readying a model again (a reload, one interpreter after another) then
 * takes its packed weights', states' and arena's blocks from the cache, zeroed again, instead of faulting fresh
 * pages in and unmapping them after. It holds at most max_bytes of freed blocks. The caller owns it (the library
 * holds no global state): one per process, given to every plan with rl_plan_set_block_cache, destroyed after
 * the last plan that uses it. NULL when out of memory. */
typedef struct rl_block_cache rl_block_cache;
rl_block_cache *rl_block_cache_create(size_t max_bytes);
void rl_block_cache_destroy(rl_block_cache *cache);
void rl_plan_set_block_cache(rl_plan *plan, rl_block_cache *cache); /* NULL: none; before rl_plan_prepare */
/* The message of the last failed call on the plan: a NUL-terminated string of at most RL_MESSAGE_CAPACITY - 1
 * bytes that the plan owns, overwritten by the next failing call. Empty before any failure. */
const char *rl_plan_message(const rl_plan *plan);
int32_t rl_plan_failed_op(const rl_plan *plan); /* the op the last error is about, -1 if none */
/* A short name for a status ("invalid", "unsupported", "out of memory", ...), static; for any other value
 * "unknown status". Needs no plan: for rl_plan_create's RL_NO_MEMORY with *plan_out NULL. */
const char *rl_status_name(int32_t status);

/* Building a plan by hand (rl_plan_build_from_tflite does all of this from a file). A tensor of `dtype`
 * (rl_dtype) and shape; `data` (constant tensors: data_bytes of them) is used in place and must outlive the
 * plan; NULL for activations. is_variable: a tensor whose value an op keeps across invokes (an LSTM's state). */
rl_status rl_plan_add_tensor(rl_plan *plan, int32_t dtype, int32_t rank, const int32_t *shape,
                             const void *data, size_t data_bytes, int32_t is_variable);
/* A tensor's quantization: `count` scales and zero points (copied), one per slice along quantized_dimension
 * (count 1: per tensor). */
rl_status rl_plan_set_quantization(rl_plan *plan, int32_t tensor, int32_t count, const float *scales,
                                   const int64_t *zero_points, int32_t quantized_dimension);
/* An op of TFLite builtin code `builtin_code` over tensors already added; `params` (copied; NULL: none) holds
 * its options. Input/output indices of -1 mark an omitted optional tensor. */
rl_status rl_plan_add_op(rl_plan *plan, int32_t builtin_code, int32_t n_inputs, const int32_t *inputs,
                         int32_t n_outputs, const int32_t *outputs, const rl_op_params *params);
/* The graph's inputs and outputs (indices copied), in the order rl_plan_input and rl_plan_output give them. */
rl_status rl_plan_set_io(rl_plan *plan, int32_t n_inputs, const int32_t *inputs, int32_t n_outputs,
                         const int32_t *outputs);
/* Every op's kernel exists for its dtypes; the message lists every op that has none. */
rl_status rl_plan_check_support(rl_plan *plan);
int32_t rl_plan_op_supported(const rl_plan *plan, int32_t op); /* 1 when op has a kernel for its dtypes */

/* Prepare: shapes, validation, constant folding, arena offsets, one arena allocation. */
/* A new shape for a tensor (TFLite's ResizeInputTensor): the plan is then unprepared until rl_plan_prepare, and
 * every pointer from rl_plan_tensor_data is stale. The shape is copied. */
rl_status rl_plan_set_tensor_shape(rl_plan *plan, int32_t tensor, int32_t rank, const int32_t *shape);
/* 1: every intermediate tensor keeps its own memory, readable after invoke (debugging, the quantization report);
 * 0 (the default): tensors whose lifetimes do not overlap share arena memory. Before rl_plan_prepare. */
void rl_plan_set_preserve_all_tensors(rl_plan *plan, int32_t preserve);
/* Declares that the caller feeds output outputs[i] back as input inputs[i] after every invoke (a decoder's KV
 * cache: SignatureRunner.carry): a DYNAMIC_UPDATE_SLICE whose operand is such an input, read by no other op,
 * then writes its update into that input's memory and the output is that memory, so a step writes the slice
 * instead of copying the whole cache, and the caller's copy has nothing left to do (rl_plan_tensor_data gives
 * both the same address). The input then holds the output after each invoke, as the caller's copy would leave
 * it, and also after a failed one, partly written. Graph outputs and inputs (each input once); count 0 stops
 * carrying. The indices are copied; before rl_plan_prepare. */
rl_status rl_plan_set_carried(rl_plan *plan, int32_t count, const int32_t *outputs, const int32_t *inputs);
/* The most one allocation of the plan (its arena, an op's state, a folded constant) may take; larger is
 * RL_NO_MEMORY naming it, before anything is allocated. Default: physical memory, or RILLET_MEMORY_LIMIT_MB.
 * 0 lifts the limit. */
void rl_plan_set_memory_limit(rl_plan *plan, size_t bytes);
/* Computes every tensor's shape, checks every op (the message names the first that fails), prepares each op's
 * state (packed weights, requantization), folds constant subgraphs and allocates the arena. Call it once after
 * building and again after any rl_plan_set_tensor_shape; it allocates, invoke does not. */
rl_status rl_plan_prepare(rl_plan *plan);
/* 1 when the plan is prepared for its tensors' current shapes; 0 after a shape changed (or a prepare failed)
 * until rl_plan_prepare succeeds again: meanwhile invoke is RL_BAD_STATE and rl_plan_tensor_data is NULL for
 * every tensor but a constant. */
int32_t rl_plan_is_prepared(const rl_plan *plan);

/* Run the whole plan on the values in its input tensors: no allocation (dynamic tensors excepted), the calling
 * thread and the plan's workers only. RL_BAD_STATE when the plan is not prepared. An error mid-invoke leaves the
 * outputs undefined and the plan ready for the next invoke. rl_plan_invoke_profiled: op_seconds (NULL, or one
 * double per op, rl_plan_op_count of them) receives per-op times. */
rl_status rl_plan_invoke(rl_plan *plan);
rl_status rl_plan_invoke_profiled(rl_plan *plan, double *op_seconds);
/* Where each op's work ran, for finding ops whose threads idle: op_seconds as above (a segment of ops run in
 * bands is timed as its first op, its others 0: rl_plan_op_segment_last), and op_thread_seconds (threads
 * doubles per op, rl_plan_threads of them) each thread's CPU time on the op: the calling thread's CPU time
 * less its waits for the workers, each worker's time running the op's tiles. A worker's share near 0 marks an
 * op that runs on one thread. The ops run as rl_plan_invoke runs them. At most RL_MAX_PROFILED_THREADS. */
#define RL_MAX_PROFILED_THREADS 64
rl_status rl_plan_invoke_thread_profiled(rl_plan *plan, double *op_seconds, double *op_thread_seconds);
/* Stops the invoke running on the plan, or on any plan of its program (a WHILE body), at the next op boundary
 * or loop iteration: it returns RL_CANCELLED and the plan stays ready for the next invoke. Safe from any
 * thread; as TFLite's Interpreter::Cancel, a call while no invoke runs does not reach the next one. */
void rl_plan_cancel(rl_plan *plan);
/* The most time one invoke may take, in milliseconds (for all the plans of the plan's program); past it the
 * invoke stops as a cancelled one does. 0: no limit (the default, or RILLET_INVOKE_TIMEOUT_MS). */
void rl_plan_set_invoke_timeout(rl_plan *plan, int64_t milliseconds);

/* Inspect. Tensor and op indices are the model's (0 .. count - 1); out of range gives -1 (or 0, NULL). */
int32_t rl_plan_tensor_count(const rl_plan *plan);
int32_t rl_plan_op_count(const rl_plan *plan);
/* The graph's inputs and outputs: how many, and the tensor index of the i-th (-1 past the last). */
int32_t rl_plan_input_count(const rl_plan *plan);
int32_t rl_plan_input(const rl_plan *plan, int32_t i);
int32_t rl_plan_output_count(const rl_plan *plan);
int32_t rl_plan_output(const rl_plan *plan, int32_t i);
/* A tensor's rl_dtype (-1 out of range), rank and sides: after rl_plan_prepare, the prepared shape. */
int32_t rl_plan_tensor_dtype(const rl_plan *plan, int32_t tensor);
int32_t rl_plan_tensor_rank(const rl_plan *plan, int32_t tensor);
int32_t rl_plan_tensor_dim(const rl_plan *plan, int32_t tensor, int32_t axis);
/* A tensor's quantization: how many scales it has (0: not quantized; 1: per tensor; more: per channel), and the
 * first scale and zero point into *scale and *zero_point (either may be NULL; untouched when 0). A real value is
 * (q - zero_point) * scale. */
int32_t rl_plan_tensor_quantization(const rl_plan *plan, int32_t tensor, float *scale, int64_t *zero_point);
/* The bytes its current shape holds: elements times the dtype's size (bool: 1 byte). */
size_t rl_plan_tensor_bytes(const rl_plan *plan, int32_t tensor);
/* Where its bytes are (see OWNERSHIP above): NULL before rl_plan_prepare, after a shape change and for a tensor
 * that has no storage (an unused one). Row-major, dense, aligned for its dtype. */
void *rl_plan_tensor_data(rl_plan *plan, int32_t tensor);
int32_t rl_plan_tensor_storage(const rl_plan *plan, int32_t tensor); /* an rl_storage */
int32_t rl_plan_op_is_folded(const rl_plan *plan, int32_t op); /* 1: computed once at prepare (constant inputs) */
/* Memory, after rl_plan_prepare: the arena (every activation), the constants in the model's bytes, the
 * values computed at prepare. */
size_t rl_plan_arena_bytes(const rl_plan *plan);
size_t rl_plan_constant_bytes(const rl_plan *plan);
size_t rl_plan_folded_bytes(const rl_plan *plan);
size_t rl_plan_packed_weight_bytes(const rl_plan *plan); /* weights repacked for the micro-kernels */
/* The constants that lie in `model` (the bytes the plan was built from), as triples in `spans`: offset into
 * model, length, and 1 where an invoke reads the constant's own bytes or 0 where every op that takes it
 * packed its own copy at prepare (so the runtime may drop those file pages from memory). Writes at most
 * `capacity` triples and returns how many there are. */
size_t rl_plan_constant_spans(const rl_plan *plan, const void *model, size_t model_bytes, uint64_t *spans,
                              size_t capacity);
size_t rl_plan_op_state_bytes(const rl_plan *plan);      /* every op's prepared state, packed weights included */
size_t rl_plan_dynamic_bytes(const rl_plan *plan);       /* the blocks of tensors whose shape an invoke changes */
const char *rl_plan_isa(const rl_plan *plan);            /* the kernel path: "scalar", "avx2", ... */
/* Where op `op` starts a segment of ops run in bands on the plan's threads (native/src/bands.h): the index
 * of the segment's last op; else -1. */
int32_t rl_plan_op_segment_last(const rl_plan *plan, int32_t op);
int32_t rl_plan_threads(const rl_plan *plan);            /* threads an invoke runs on */
/* TFLite's ResetVariableTensors: zeroes the state stateful ops keep across invokes (an LSTM's h and c, which
 * the model marks as variable tensors). Resource variables are the program's (rl_program_reset_variables). */
void rl_plan_reset_variable_tensors(rl_plan *plan);

/* A program: a model's subgraphs (one plan each) over one store of resource variables that live across
 * invokes and subgraphs (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE), with CALL_ONCE running an
 * initialising subgraph the first time. The program does not own its plans: destroy them first. */
typedef struct rl_program rl_program;
rl_status rl_program_create(rl_program **program_out);
void rl_program_destroy(rl_program *program);
/* Makes `plan` the program's subgraph `index` (CALL_ONCE invokes it from there) and lets its variable ops
 * reach the store. A plan belongs to one program. */
rl_status rl_program_add_plan(rl_program *program, int32_t index, rl_plan *plan);
/* The id of the variable named (container, shared_name), the same for every subgraph; -1 when out of memory. */
int32_t rl_program_variable_id(rl_program *program, const char *container, const char *shared_name);
int32_t rl_program_variable_count(const rl_program *program);
/* Every variable back to unassigned, and every CALL_ONCE to run again on the next invoke. */
void rl_program_reset_variables(rl_program *program);
/* The bytes the store holds (memory_report). */
size_t rl_program_variable_bytes(const rl_program *program);
/* A variable's current value (checkpoints): its dtype, rank (dims gets up to RL_MAX_DIMS entries), bytes and
 * data; RL_BAD_STATE when nothing was assigned to it yet, RL_INVALID for an id out of range. */
rl_status rl_program_read_variable(const rl_program *program, int32_t id, int32_t *dtype, int32_t *rank,
                                   int32_t *dims, size_t *bytes, const void **data);
/* Assigns a value as ASSIGN_VARIABLE would (restoring a checkpoint). A variable whose type is known keeps
 * it: another is RL_INVALID. Allocates: call between invokes, never during one. */
rl_status rl_program_write_variable(rl_program *program, int32_t id, int32_t dtype, int32_t rank,
                                    const int32_t *dims, const void *data, size_t bytes);
/* Marks every CALL_ONCE as done, so restored values are not overwritten by the model's initialiser. */
void rl_program_mark_initialized(rl_program *program);
/* The most iterations one WHILE may run before its invoke fails (RL_INVALID, naming the op); 0 (the default,
 * as TFLite) is no limit. A new program takes RILLET_LOOP_LIMIT from the environment. */
void rl_program_set_loop_limit(rl_program *program, int64_t iterations);
/* The most bytes one WHILE's loop values may carry, summed over its iterations, before its invoke fails as
 * above; 0 (the default) is no limit. A new program takes RILLET_LOOP_LIMIT_MB from the environment. */
void rl_program_set_loop_byte_limit(rl_program *program, size_t bytes);

/* Feeds an empty plan subgraph `subgraph` of a .tflite flatbuffer (schema v3): its tensors (constants used
 * in place: `model` must outlive the plan), quantization, ops with their builtin options, inputs and
 * outputs. Every offset, vtable, vector and index is checked against [model, model + size): a malformed
 * file is RL_INVALID with a message starting "malformed: ", never a crash. An op rillet has no kernel for
 * is RL_UNSUPPORTED ("no kernel: ..."); a tensor the plan refuses names it ("tensor N: ..."). */
rl_status rl_plan_build_from_tflite(rl_plan *plan, const void *model, size_t size, int32_t subgraph);
/* Op `op`'s parameters as the plan holds them (NULL when there is no such op). */
const rl_op_params *rl_plan_op_params(const rl_plan *plan, int32_t op);

/* The op registry; these need no plan and are safe from any thread. */
/* The builtin op codes this library has a kernel for (any dtype). */
int32_t rl_op_is_known(int32_t builtin_code);
/* Entry i of the op registry (what docs/ops.md is generated from): its builtin code, name and the dtypes its
 * first input may have (bit 1 << rl_dtype each). Returns 0 past the last entry. */
int32_t rl_op_registry_entry(int32_t i, int32_t *builtin_code, const char **name, uint32_t *dtypes);
/* 1 when rillet runs the custom op of that name (MediaPipe's Convolution2DTransposeBias). */
int32_t rl_custom_op_is_known(const char *name);
/* cffi-end */

#ifdef __cplusplus
}
#endif

#endif /* RILLET_H */
