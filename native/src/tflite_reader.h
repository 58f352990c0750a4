/* tflite_reader.h — the pieces of rl_plan_build_from_tflite (tflite_reader.c): the builtin-options reader
 * (tflite_options.c) and the whole-model checks (tflite_calls.c), over checked reads (flatbuffer.h). */
#ifndef RILLET_TFLITE_READER_H
#define RILLET_TFLITE_READER_H

#include "flatbuffer.h"
#include "plan_internal.h"

/* Schema slots and union sizes both readers use (converter/format/schema.py). */
enum { RL_TFLITE_MODEL_SUBGRAPHS = 2, RL_TFLITE_SUBGRAPH_OPERATORS = 3, RL_TFLITE_OP_OPTIONS_TYPE = 3,
       RL_TFLITE_OP_OPTIONS2_TYPE = 11, RL_TFLITE_OPTIONS_TYPES = 127, RL_TFLITE_OPTIONS2_TYPES = 21 };

typedef struct {
    int32_t count;              /* ops of any subgraph whose code rillet has no kernel for */
    int32_t subgraph, op, code; /* the first of them */
} rl_tflite_unknown_ops;

/* What a plan of one subgraph cannot see (tflite_calls.c): every subgraph's ops, whether rillet knows each
 * code (counted in `unknown`), and the subgraphs their options call (CALL_ONCE, IF, WHILE, ...) exist and
 * call no cycle. RL_INVALID (after rl_fail, "malformed: ...") otherwise. */
rl_status rl_tflite_check_calls(rl_plan *plan, rl_fb *fb, const rl_fb_table *model, const int32_t *codes,
                                int32_t n_codes, rl_tflite_unknown_ops *unknown);

/* Op `op`'s parameters from its builtin options table (type code `options_type`, 0: none), filled as
 * runtime/plan.py's fillers filled them: a field the table leaves out takes the schema's default, a
 * missing table the op's own default; options of another type than the op's give the fields they share
 * by name. RL_INVALID (after rl_fail) for a malformed table or options rillet refuses. */
rl_status rl_tflite_op_params(rl_plan *plan, rl_fb *fb, int32_t op, int32_t code, int32_t options_type,
                              uint64_t options_pos, rl_op_params *params);

#endif
