/* conv_hybrid_quantize.c — per-image input quantization in parallel parts (conv_hybrid_quantize.h). */
#include "conv_hybrid_quantize.h"

#include "conv_gemm.h"

/* Parts of at least this many values (a part costs a tile's hand-out; smaller images stay whole), at most
 * about RL_TILES_PER_THREAD per thread of a 2-thread pool, and a multiple of 64 so that no two parts share a
 * cache line of the quantized image. */
enum { MIN_PART = 4096, PARTS_WANTED = 2 * RL_TILES_PER_THREAD };
/* A value's range step and rounding step cost about as much as this many GEMM multiply-adds (the unit of
 * rl_pool_for's threshold): an image of fewer than 8,192 values is not worth waking the workers for. */
enum { STEPS_PER_VALUE = 8 };

size_t rl_image_quantizer_init(rl_image_quantizer *qz, const rl_qd8_quantize_config *config, int tflite,
                               size_t images, size_t image_length) {
    qz->rminmax = config->rminmax;
    qz->values = tflite ? config->tflite_values : config->qd8_values;
    qz->of_range = tflite ? rl_tflite_quantization_of_range : rl_qd8_quantization_of_range;
    qz->images = images;
    qz->image_length = image_length;
    size_t part = (image_length + PARTS_WANTED - 1) / PARTS_WANTED;
    part = (part + 63) / 64 * 64;
    qz->part_length = part < MIN_PART ? MIN_PART : part;
    qz->parts_per_image = image_length ? (image_length + qz->part_length - 1) / qz->part_length : 1;
    const size_t range_bytes = images * qz->parts_per_image * 2 * sizeof(float);
    qz->quantizations_offset = (range_bytes + 63) / 64 * 64;
    return qz->quantizations_offset + images * sizeof(rl_f32_qs8_quantization);
}

/* Part p's first value (from its image's start) and count. */
static size_t part_span(const rl_image_quantizer *qz, size_t p, size_t *count) {
    const size_t start = (p % qz->parts_per_image) * qz->part_length;
    const size_t left = qz->image_length - start;
    *count = left < qz->part_length ? left : qz->part_length;
    return (p / qz->parts_per_image) * qz->image_length + start;
}

static void range_parts(void *context, size_t first, size_t unused, size_t count, size_t one) {
    (void)unused, (void)one;
    const rl_image_quantizer *qz = (const rl_image_quantizer *)context;
    for (size_t p = first; p < first + count; ++p) {
        size_t n;
        const size_t at = part_span(qz, p, &n);
        float lo = 0.0f, hi = 0.0f;
        qz->rminmax((int64_t)n, qz->x + at, &lo, &hi);
        qz->ranges[2 * p] = lo, qz->ranges[2 * p + 1] = hi;
    }
}

static void quantize_parts(void *context, size_t first, size_t unused, size_t count, size_t one) {
    (void)unused, (void)one;
    const rl_image_quantizer *qz = (const rl_image_quantizer *)context;
    for (size_t p = first; p < first + count; ++p) {
        size_t n;
        const size_t at = part_span(qz, p, &n);
        qz->values((int64_t)n, qz->x + at, qz->q + at, &qz->quantizations[p / qz->parts_per_image]);
    }
}

const rl_f32_qs8_quantization *rl_image_quantizations(const rl_plan *plan, rl_image_quantizer *qz, const float *x,
                                                      void *scratch, rl_qd8_row_quantization *out) {
    qz->x = x;
    qz->ranges = (float *)scratch;
    qz->quantizations = (rl_f32_qs8_quantization *)(void *)((char *)scratch + qz->quantizations_offset);
    const size_t parts = qz->images * qz->parts_per_image, work = qz->images * qz->image_length * STEPS_PER_VALUE;
    rl_parallelize_rows(plan, range_parts, qz, parts, work);
    for (size_t b = 0; b < qz->images; ++b) {
        const float *r = qz->ranges + 2 * b * qz->parts_per_image;
        float lo = 0.0f, hi = 0.0f;
        for (size_t k = 0; k < qz->parts_per_image; ++k) {
            lo = r[2 * k] < lo ? r[2 * k] : lo;
            hi = r[2 * k + 1] > hi ? r[2 * k + 1] : hi;
        }
        qz->quantizations[b] = qz->of_range(lo, hi);
        if (out)
            out[b] = (rl_qd8_row_quantization){.zero_point = qz->quantizations[b].zero_point,
                                               .scale = qz->quantizations[b].scale};
    }
    return qz->quantizations;
}

void rl_quantize_images(const rl_plan *plan, rl_image_quantizer *qz, const float *x, int8_t *q, void *scratch,
                        rl_qd8_row_quantization *out) {
    rl_image_quantizations(plan, qz, x, scratch, out);
    qz->q = q;
    rl_parallelize_rows(plan, quantize_parts, qz, qz->images * qz->parts_per_image,
                        qz->images * qz->image_length * STEPS_PER_VALUE);
}
