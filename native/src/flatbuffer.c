/* flatbuffer.c — checked reads of a flatbuffer: tables, vtables, fields, vectors, unions. Every position
 * is 64-bit and every read is checked to lie in [data, data + size), as a flatbuffers verifier checks. */
#include <string.h>

#include "flatbuffer.h"

static uint32_t u16_at(const rl_fb *fb, uint64_t pos) {
    return (uint32_t)fb->data[pos] | (uint32_t)fb->data[pos + 1] << 8;
}

int rl_fb_problem(rl_fb *fb, const char *what) {
    fb->problem = what;
    return 0;
}

int rl_fb_table_at(rl_fb *fb, uint64_t pos, rl_fb_table *t) {
    if (!rl_fb_fits(fb, pos, 4)) return rl_fb_problem(fb, "a table lies outside the file");
    const int64_t vtable = (int64_t)pos - (int32_t)rl_fb_u32_at(fb, pos);
    if (vtable < 0 || !rl_fb_fits(fb, (uint64_t)vtable, 4)) return rl_fb_problem(fb, "a vtable lies outside the file");
    t->pos = pos;
    t->vtable = (uint64_t)vtable;
    t->vtable_size = u16_at(fb, t->vtable);
    t->object_size = u16_at(fb, t->vtable + 2);
    if (t->vtable_size < 4 || (t->vtable_size & 1) || !rl_fb_fits(fb, t->vtable, t->vtable_size))
        return rl_fb_problem(fb, "a vtable is malformed");
    if (t->object_size < 4 || !rl_fb_fits(fb, pos, t->object_size))
        return rl_fb_problem(fb, "a table reaches past the end of the file");
    return 1;
}

/* Where field `slot` lies (0: absent), checked to hold `width` bytes inside its table; -1 when it does not. */
static int64_t field_at(rl_fb *fb, const rl_fb_table *t, int slot, uint32_t width) {
    const uint32_t entry = 4 + 2 * (uint32_t)slot;
    if (entry + 2 > t->vtable_size) return 0;
    const uint32_t offset = u16_at(fb, t->vtable + entry);
    if (!offset) return 0;
    if (offset < 4 || offset + width > t->object_size) {
        rl_fb_problem(fb, "a field lies outside its table");
        return -1;
    }
    return (int64_t)(t->pos + offset);
}

static uint32_t type_width(rl_fb_type type) {
    switch (type) {
    case FB_BOOL: case FB_I8: case FB_U8: return 1;
    case FB_I32: case FB_U32: case FB_F32: case FB_INTS: case FB_STRING: return 4;
    case FB_I64: case FB_U64: return 8;
    }
    return 4;
}

int rl_fb_scalar(rl_fb *fb, const rl_fb_table *t, int slot, rl_fb_type type, double fallback, double *out) {
    const int64_t at = field_at(fb, t, slot, type_width(type));
    if (at < 0) return 0;
    if (at == 0) {
        *out = fallback;
        return 1;
    }
    const uint64_t p = (uint64_t)at;
    switch (type) {
    case FB_BOOL: *out = fb->data[p] != 0; break;
    case FB_I8: *out = (int8_t)fb->data[p]; break;
    case FB_U8: *out = fb->data[p]; break;
    case FB_I32: case FB_INTS: case FB_STRING: *out = (int32_t)rl_fb_u32_at(fb, p); break;
    case FB_U32: *out = rl_fb_u32_at(fb, p); break;
    case FB_F32: {
        const uint32_t bits = rl_fb_u32_at(fb, p);
        float f;
        memcpy(&f, &bits, sizeof f);
        *out = f;
        break;
    }
    case FB_I64: *out = (double)(int64_t)rl_fb_u64_at(fb, p); break;
    case FB_U64: *out = (double)rl_fb_u64_at(fb, p); break;
    }
    return 1;
}

int rl_fb_u64(rl_fb *fb, const rl_fb_table *t, int slot, uint64_t *out) {
    const int64_t at = field_at(fb, t, slot, 8);
    if (at < 0) return 0;
    *out = at ? rl_fb_u64_at(fb, (uint64_t)at) : 0;
    return 1;
}

int rl_fb_ref(rl_fb *fb, const rl_fb_table *t, int slot, uint64_t *target) {
    const int64_t at = field_at(fb, t, slot, 4);
    if (at < 0) return 0;
    *target = at ? (uint64_t)at + rl_fb_u32_at(fb, (uint64_t)at) : 0;
    return 1;
}

static int spend(rl_fb *fb, uint64_t count) {
    if (count > fb->budget) return rl_fb_problem(fb, "its vectors overlap more than an honest file's");
    fb->budget -= count;
    return 1;
}

int rl_fb_vector_of(rl_fb *fb, const rl_fb_table *t, int slot, uint32_t width, rl_fb_vector *v, int *present) {
    uint64_t target;
    v->start = 0;
    v->count = 0;
    if (present) *present = 0;
    if (!rl_fb_ref(fb, t, slot, &target)) return 0;
    if (!target) return 1;
    if (!rl_fb_fits(fb, target, 4)) return rl_fb_problem(fb, "a vector lies outside the file");
    const uint32_t count = rl_fb_u32_at(fb, target);
    if (count > INT32_MAX - 1) return rl_fb_problem(fb, "a vector is longer than 2^31 elements");
    if (!rl_fb_fits(fb, target + 4, (uint64_t)count * width))
        return rl_fb_problem(fb, "a vector reaches past the end of the file");
    if (!spend(fb, width == 1 ? count / 64 : count)) return 0;
    v->start = target + 4;
    v->count = count;
    if (present) *present = 1;
    return 1;
}


int rl_fb_table_in(rl_fb *fb, const rl_fb_vector *v, uint32_t i, rl_fb_table *t) {
    const uint64_t slot = v->start + 4 * (uint64_t)i;
    return rl_fb_table_at(fb, slot + rl_fb_u32_at(fb, slot), t);
}

int rl_fb_union(rl_fb *fb, const rl_fb_table *t, int slot, int32_t members, int32_t *type, uint64_t *pos) {
    double code;
    if (!rl_fb_scalar(fb, t, slot, FB_U8, 0, &code) || !rl_fb_ref(fb, t, slot + 1, pos)) return 0;
    *type = *pos ? (int32_t)code : 0;
    if (*type >= members) return rl_fb_problem(fb, "an options type is not in the schema");
    return 1;
}
