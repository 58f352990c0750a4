/* bands.h — banded execution: runs of ops that a thread can carry through one band of output rows without
 * waiting for the other threads between them.
 *
 * An invoke of a small model on two threads is mostly waits: mobilenet_v2_035_96 runs about 55 parallel ops of
 * a few microseconds each, and every op ends with a join (about 1 us on an AVX-512 Xeon VM, 0.5 us on a Zen 3
 * VM), after which the next op reads rows another core has just written. A segment is a run of ops with the
 * same output pixels where each op after the first is pointwise (a 1x1 convolution, a same-shape ADD): one
 * job runs the whole segment, each band of pixels (whole rows where an op needs them) carried through every
 * op by one thread, so the segment has one join and each thread reads the pixels it wrote. The first op of
 * a segment may read anything (a depthwise convolution reads the rows around its own): it starts after the
 * ops before it are complete.
 *
 * Attention's segment runs from the scores' product through SOFTMAX to P.V: the ops inside it that make P.V's V
 * (its RESHAPE to [heads, tokens, width], a DEQUANTIZE) read nothing its bands write, so they run whole before
 * them (band_before) and P.V reads V whole. Where the scores are larger than a cache (Whisper's 1500 tokens:
 * 54 MB), the product keeps bands to band_cache_pixels rows, so the segment runs in many bands, on one thread
 * too, and each band's scores are still in cache when SOFTMAX and P.V read them.
 *
 * Every output element is computed by the same kernel from the same inputs as op by op, so results do not
 * change. The arena keeps every tensor a segment touches alive to the segment's end, since another band
 * may still be reading what one band's later ops would otherwise overwrite. */
#ifndef RILLET_BANDS_H
#define RILLET_BANDS_H

#include "plan_internal.h"

/* For an element-wise op whose operands have its output's shape (the caller checks): offers `run_rows`
 * (pixels of a 4-D NHWC output), pointwise. */
void rl_offer_elementwise_rows(rl_op *op, const rl_tensor *output,
                               void (*run_rows)(rl_plan *plan, const rl_op *op, size_t first, size_t count));

/* The pixels of an output of any rank, as bands count them: a 4-D output's are NHWC's (N * H rows of W
 * pixels, as rl_offer_elementwise_rows and the convolutions offer them); any other rank's are its vectors
 * along the last axis, one row of one pixel each (a transformer's [batch, tokens, channels]: its tokens).
 * Both 0 when an axis is empty or the shape has none. */
void rl_band_pixels_of(const rl_shape *s, size_t *rows, size_t *row_pixels);

/* For an op whose output pixel p (rl_band_pixels_of of its output) reads only pixel p of those inputs a band
 * may be writing, i.e. inputs with the output's pixels, and reads any other input whole (a constant, a
 * single value, a vector of channels: tensors of other pixels, which no op of the segment writes): offers
 * `run_rows` over pixels, pointwise. Nothing when the output has fewer than two pixels. */
void rl_offer_pixel_rows(rl_op *op, const rl_tensor *output,
                         void (*run_rows)(rl_plan *plan, const rl_op *op, size_t first, size_t count));

/* For an element-wise op or a view (band_chunks, plan_internal.h): offers `run_rows`. Heading a segment its
 * pixels are rl_band_pixels_of its output's; later in one, the segment's (rl_band_pixel_elements). Nothing for
 * an empty output. */
void rl_offer_chunk_rows(rl_op *op, const rl_tensor *output,
                         void (*run_rows)(rl_plan *plan, const rl_op *op, size_t first, size_t count));

/* How a band of the output's rows (its vectors along the last axis: out_dims[7] of the broadcast, which must be
 * the output's last axis) reads an operand of broadcast `bc` with `strides`: RL_BAND_READ_WHOLE (no stride over
 * the rows: a vector of channels, a single value), RL_BAND_READ_ROWS (its rows are the output's, or it holds one
 * value per row), or 0 (neither: the op does not band). */
enum { RL_BAND_READ_WHOLE = 1, RL_BAND_READ_ROWS = 2 };
int rl_band_read_of(const rl_broadcast *bc, const int64_t *strides);

/* The elements of tensor `t` in one pixel of op's bands: t's count over band_rows * band_row_pixels. */
size_t rl_band_pixel_elements(const rl_op *op, const rl_tensor *t);

/* Sets each op's segment_last and segment_bands (after every op is prepared and folded, before lifetimes are
 * planned): none when the plan has dynamic ops; on one thread only segments of cache-sized bands; segments of
 * one op are left to the op's own run. */
void rl_plan_form_segments(rl_plan *plan);

/* Extends the arena lifetime of every tensor a segment's ops read or write to the segment's last step. */
void rl_plan_extend_segment_lifetimes(rl_plan *plan);

/* Runs the segment that op `first` starts (to its segment_last), on the plan's threads: the ops that run before
 * its bands (band_before) may fail, the bands cannot. */
rl_status rl_plan_run_segment(rl_plan *plan, int32_t first);

/* The end_rows checks of the segment's ops first .. last, after it ran; the first failure's status. */
rl_status rl_plan_check_segment(rl_plan *plan, int32_t first, int32_t last);

#endif
