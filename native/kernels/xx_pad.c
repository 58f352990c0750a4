/* xx_pad.c — constant padding on a reduced layout (pad.h): each pad between two copied runs is one fill. */
#include <string.h>

#include "pad.h"

void rl_pad_layout_of(int32_t rank, const int64_t *in_dims, const int32_t *before, const int32_t *after,
                      size_t element_bytes, rl_pad_layout *layout) {
    memset(layout, 0, sizeof *layout);
    layout->element_bytes = element_bytes;
    int64_t in_count = 1, out_count = 1;
    for (int32_t d = 0; d < rank; ++d) {
        in_count *= in_dims[d];
        out_count *= in_dims[d] + before[d] + after[d];
    }
    int32_t axes = 0;
    if (in_count == 0) { /* all padding: one fill */
        layout->out_dims[0] = out_count;
        axes = 1;
    }
    for (int32_t d = 0; d < rank && in_count != 0; ++d) {
        const int64_t n = in_dims[d];
        if (axes > 0 && before[d] == 0 && after[d] == 0) { /* unpadded: joins the axis outside it */
            layout->in_dims[axes - 1] *= n;
            layout->out_dims[axes - 1] *= n;
            layout->before[axes - 1] *= n;
            continue;
        }
        layout->in_dims[axes] = n;
        layout->out_dims[axes] = n + before[d] + after[d];
        layout->before[axes] = before[d];
        ++axes;
    }
    if (axes == 0) { /* rank 0: one element */
        layout->in_dims[0] = layout->out_dims[0] = 1;
        axes = 1;
    }
    layout->axes = axes;
    int64_t in_stride = 1, out_stride = 1;
    for (int32_t a = axes - 1; a >= 0; --a) {
        layout->in_strides[a] = in_stride;
        layout->out_strides[a] = out_stride;
        in_stride *= layout->in_dims[a];
        out_stride *= layout->out_dims[a];
    }
}

typedef struct {
    const rl_pad_layout *layout;
    const void *value;
    int uniform; /* every byte of the value alike (0.0f, any int8): a memset */
    int words;   /* innermost rows move as 8-byte words (pad_short_rows) */
    uint64_t pattern; /* the value repeated over 8 bytes, where words */
} pad_fill;

/* n elements of the pad value at dst. Otherwise than memset: one element, then doubling copies of what is
 * already written, so each byte is still written once. */
static void fill(const pad_fill *f, char *dst, int64_t n) {
    const size_t elem = f->layout->element_bytes;
    if (n <= 0 || elem == 0) return;
    const size_t bytes = (size_t)n * elem;
    if (f->uniform) {
        memset(dst, *(const unsigned char *)f->value, bytes);
        return;
    }
    memcpy(dst, f->value, elem);
    for (size_t done = elem; done < bytes; done *= 2)
        memcpy(dst + done, dst, done < bytes - done ? done : bytes - done);
}

/* Short rows of the innermost axis (a pad of 8 channels to 16: 32 bytes copied and 32 filled per pixel) spent
 * most of their time calling memcpy and memset. Where the pad value's bytes repeat every 8 bytes and each of
 * a row's three parts is whole 8-byte words, `rows` consecutive rows are moved as words instead. */
enum { SHORT_ROW_BYTES = 256 };

static int words_fit(const rl_pad_layout *l) {
    const int32_t a = l->axes - 1;
    const size_t elem = l->element_bytes;
    const int64_t before = l->before[a], n = l->in_dims[a], after = l->out_dims[a] - before - n;
    return (elem == 1 || elem == 2 || elem == 4 || elem == 8) && (size_t)l->out_dims[a] * elem <= SHORT_ROW_BYTES &&
           ((size_t)before * elem) % 8 == 0 && ((size_t)n * elem) % 8 == 0 && ((size_t)after * elem) % 8 == 0;
}

static void pad_short_rows(const rl_pad_layout *l, uint64_t pattern, const char *src, char *dst, int64_t rows) {
    const int32_t a = l->axes - 1;
    const size_t elem = l->element_bytes;
    const size_t lead = (size_t)l->before[a] * elem / 8, copy = (size_t)l->in_dims[a] * elem / 8;
    const size_t total = (size_t)l->out_dims[a] * elem / 8;
    for (int64_t r = 0; r < rows; ++r, src += copy * 8, dst += total * 8) {
        size_t w = 0;
        for (; w < lead; ++w) memcpy(dst + 8 * w, &pattern, 8);
        for (size_t k = 0; k < copy; ++k) {
            uint64_t v;
            memcpy(&v, src + 8 * k, 8);
            memcpy(dst + 8 * (w + k), &v, 8);
        }
        for (w += copy; w < total; ++w) memcpy(dst + 8 * w, &pattern, 8);
    }
}

/* Output block of axis `a` at dst from the input block at src (both for one index of every outer axis). */
static void pad_block(const pad_fill *f, int32_t a, const char *src, char *dst) {
    const rl_pad_layout *l = f->layout;
    const size_t elem = l->element_bytes;
    const int64_t before = l->before[a], n = l->in_dims[a], after = l->out_dims[a] - before - n;
    const int64_t out_stride = l->out_strides[a], in_stride = l->in_strides[a];
    fill(f, dst, before * out_stride);
    dst += (size_t)(before * out_stride) * elem;
    if (a == l->axes - 1) {
        memcpy(dst, src, (size_t)n * elem);
    } else if (a == l->axes - 2 && f->words) {
        pad_short_rows(l, f->pattern, src, dst, n);
    } else {
        for (int64_t i = 0; i < n; ++i)
            pad_block(f, a + 1, src + (size_t)(i * in_stride) * elem, dst + (size_t)(i * out_stride) * elem);
    }
    fill(f, dst + (size_t)(n * out_stride) * elem, after * out_stride);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

void xx_pad(const rl_pad_layout *layout, const void *pad_value, const void *x, void *y, int64_t first,
            int64_t count) {
    const size_t elem = layout->element_bytes;
    int uniform = 1;
    const unsigned char *value_bytes = (const unsigned char *)pad_value;
    for (size_t k = 1; k < elem; ++k) uniform &= value_bytes[k] == value_bytes[0];
    pad_fill f = {.layout = layout, .value = pad_value, .uniform = uniform};
    f.words = layout->axes > 1 && words_fit(layout);
    for (size_t k = 0; f.words && k < 8; k += elem) memcpy((char *)&f.pattern + k, pad_value, elem);
    const int64_t end = first + count, lo = layout->before[0], hi = lo + layout->in_dims[0];
    const int64_t out_stride = layout->out_strides[0], in_stride = layout->in_strides[0];
    const char *src = (const char *)x;
    char *dst = (char *)y;
    fill(&f, dst + (size_t)(first * out_stride) * elem, (min64(end, lo) - first) * out_stride);
    const int64_t inside_first = max64(first, lo), inside_end = min64(end, hi);
    if (layout->axes == 1 && inside_end > inside_first) {
        memcpy(dst + (size_t)inside_first * elem, src + (size_t)(inside_first - lo) * elem,
               (size_t)(inside_end - inside_first) * elem);
    } else if (layout->axes == 2 && f.words && inside_end > inside_first) {
        pad_short_rows(layout, f.pattern, src + (size_t)((inside_first - lo) * in_stride) * elem,
                       dst + (size_t)(inside_first * out_stride) * elem, inside_end - inside_first);
    } else {
        for (int64_t o = inside_first; o < inside_end; ++o)
            pad_block(&f, 1, src + (size_t)((o - lo) * in_stride) * elem, dst + (size_t)(o * out_stride) * elem);
    }
    const int64_t after_first = max64(first, hi);
    fill(&f, dst + (size_t)(after_first * out_stride) * elem, (end - after_first) * out_stride);
}
