/* tflite_reader.h — checked reads of a .tflite flatbuffer (schema v3), shared by the plan builder
 * (tflite_reader.c, rl_plan_build_from_tflite) and the builtin-options reader (tflite_options.c).
 *
 * Every read is checked as a flatbuffers verifier checks it: a table, its vtable, a field, a vector and its
 * length all lie in [data, data + size). A failed check returns 0 and leaves a short `problem`; the caller
 * says where (rl_fail with "malformed: <where>: <problem>"). Offsets are 64-bit whatever size_t is.
 */
#ifndef RILLET_TFLITE_READER_H
#define RILLET_TFLITE_READER_H

#include "plan_internal.h"

typedef struct {
    const uint8_t *data;
    uint64_t size;
    /* Vector elements a hostile file may still make us read: files can point many tables at one long
     * vector; honest ones read far fewer elements than they have bytes (codec.Reader's budget). */
    uint64_t budget;
    const char *problem; /* what the last failed check found */
} rl_fb;

typedef struct {
    uint64_t pos, vtable;
    uint32_t vtable_size, object_size;
} rl_fb_table;

typedef struct {
    uint64_t start; /* the first element */
    uint32_t count;
} rl_fb_vector;

/* Scalar field types, as the schema names them. */
typedef enum { FB_BOOL, FB_I8, FB_U8, FB_I32, FB_U32, FB_F32, FB_I64, FB_U64, FB_INTS, FB_STRING } rl_fb_type;

int rl_fb_table_at(rl_fb *fb, uint64_t pos, rl_fb_table *table);
/* A scalar field, `fallback` when absent; 0 when the field reaches outside its table. */
int rl_fb_scalar(rl_fb *fb, const rl_fb_table *table, int slot, rl_fb_type type, double fallback, double *out);
int rl_fb_u64(rl_fb *fb, const rl_fb_table *table, int slot, uint64_t *out);
/* A vector field of `width`-byte elements (count 0 when absent); `present` (may be NULL) says whether
 * the field is there. */
int rl_fb_vector_of(rl_fb *fb, const rl_fb_table *table, int slot, uint32_t width, rl_fb_vector *v,
                    int *present);
/* Element i of an [int] vector (checked by rl_fb_vector_of). */
int32_t rl_fb_int_at(const rl_fb *fb, const rl_fb_vector *v, uint32_t i);

/* Op `op`'s parameters from its builtin options table (type code `options_type`, 0: none), filled as
 * runtime/plan.py's fillers filled them: a field the table leaves out takes the schema's default, a
 * missing table the op's own default; options of another type than the op's give the fields they share
 * by name. RL_INVALID (after rl_fail) for a malformed table or options rillet refuses. */
rl_status rl_tflite_op_params(rl_plan *plan, rl_fb *fb, int32_t op, int32_t code, int32_t options_type,
                              uint64_t options_pos, rl_op_params *params);

#endif
