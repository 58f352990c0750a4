/* flatbuffer.h — checked reads of a flatbuffer (flatbuffer.c), what the .tflite reader is built on.
 *
 * Every read is checked as a flatbuffers verifier checks it: a table, its vtable, a field, a vector and its
 * length all lie in [data, data + size). A failed check returns 0 and leaves a short `problem`; the caller
 * says where (rl_fail with "malformed: <where>: <problem>"). Positions are 64-bit whatever size_t is.
 */
#ifndef RILLET_FLATBUFFER_H
#define RILLET_FLATBUFFER_H

#include <stdint.h>

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

int rl_fb_problem(rl_fb *fb, const char *what); /* records `what`, returns 0 */

/* The small reads every loop makes, inline: little-endian whatever the host. */
static inline int rl_fb_fits(const rl_fb *fb, uint64_t pos, uint64_t length) {
    return pos <= fb->size && length <= fb->size - pos;
}

static inline uint32_t rl_fb_u32_at(const rl_fb *fb, uint64_t pos) { /* unchecked: after rl_fb_fits */
    const uint8_t *p = fb->data + pos;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t rl_fb_u64_at(const rl_fb *fb, uint64_t pos) {
    return (uint64_t)rl_fb_u32_at(fb, pos) | (uint64_t)rl_fb_u32_at(fb, pos + 4) << 32;
}

int rl_fb_table_at(rl_fb *fb, uint64_t pos, rl_fb_table *table);
/* Element i of a vector of tables (checked by rl_fb_vector_of). */
int rl_fb_table_in(rl_fb *fb, const rl_fb_vector *v, uint32_t i, rl_fb_table *table);
/* A scalar field, `fallback` when absent; 0 when the field reaches outside its table. */
int rl_fb_scalar(rl_fb *fb, const rl_fb_table *table, int slot, rl_fb_type type, double fallback, double *out);
int rl_fb_u64(rl_fb *fb, const rl_fb_table *table, int slot, uint64_t *out);
/* Where the table, string or vector that field `slot` refers to starts (0 when absent); unchecked there. */
int rl_fb_ref(rl_fb *fb, const rl_fb_table *table, int slot, uint64_t *target);
/* A vector field of `width`-byte elements (count 0 when absent); `present` (may be NULL) says whether
 * the field is there. */
int rl_fb_vector_of(rl_fb *fb, const rl_fb_table *table, int slot, uint32_t width, rl_fb_vector *v,
                    int *present);
/* Element i of an [int] vector (checked by rl_fb_vector_of). */
static inline int32_t rl_fb_int_at(const rl_fb *fb, const rl_fb_vector *v, uint32_t i) {
    return (int32_t)rl_fb_u32_at(fb, v->start + 4 * (uint64_t)i);
}
/* A union field at `slot` (its type byte) and slot + 1 (its table): the member's type code, 0 when either is
 * absent, and where its table lies; 0 when the code names no member of the `members`-long union. */
int rl_fb_union(rl_fb *fb, const rl_fb_table *table, int slot, int32_t members, int32_t *type, uint64_t *pos);

#endif
