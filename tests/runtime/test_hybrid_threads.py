"""Hybrid (dynamic-range) models on several threads: the per-image input quantization is split into parts
across the threads (native/ops/conv_hybrid_quantize.c: parallel ranges, then parallel rounding), a per-pixel
GEMM quantizes its rows inside its tiles and runs in bands with the ops after it (bands.h). The results are the
same bits on 1, 2 and 3 threads, and within 1e-5 of LiteRT's default Interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Const, Input, Quant, litert_default, op_model
from test_hybrid_gemm import conv_model, depthwise_model, fc_model

from rillet.quant import quantize
from rillet.runtime import Interpreter

from support import golden, model_path

pytest.importorskip("ai_edge_litert")

F32 = np.float32
THREADS = (1, 2, 3)


def outputs(content: bytes, x: np.ndarray, threads: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    it = Interpreter(model_content=content, num_threads=threads)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    segments = [(i, it._plan.op_segment_last(i)) for i in range(len(it._plan.op_names))
                if it._plan.op_segment_last(i) >= 0]
    return it.get_tensor(it.get_output_details()[0]["index"]).copy(), segments


def assert_same_bits_on_every_thread_count_and_litert(content: bytes, x: np.ndarray) -> list:
    (one, _), *more = [outputs(content, x, threads) for threads in THREADS]
    for threads, (got, _) in zip(THREADS[1:], more):
        assert got.tobytes() == one.tobytes(), (threads, np.count_nonzero(got != one))
    expected = litert_default(content, [x])[0]
    np.testing.assert_allclose(one, expected, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(expected).max())))
    return [segments for _, segments in more]


def dilated_depthwise_model(rng, n, h, w, c, k, dilation):
    scales = rng.uniform(0.001, 0.05, c).astype(F32)
    filt = rng.integers(-127, 128, (1, k, k, c)).astype(np.int8)
    opts = {"padding": 0, "stride_w": 1, "stride_h": 1, "dilation_w_factor": dilation, "dilation_h_factor": dilation,
            "depth_multiplier": 1, "fused_activation_function": 0}
    return op_model("DEPTHWISE_CONV_2D", [Input((n, h, w, c), F32), Const(filt, Quant(scales, 0, 3)),
                                          rng.uniform(-1, 1, c).astype(F32)], [((n, 1, 1, c), F32)], opts, version=2)


def images(rng, shape, kind: str) -> np.ndarray:
    """A batch whose images' ranges come from parts other than the first (every image is split into parts)."""
    x = rng.uniform(-1, 1, shape).astype(F32)
    if kind == "extremes late":  # image 0's max in its last part, image 1's min in a middle one
        x[0].reshape(-1)[-3] = 7.5
        x[-1].reshape(-1)[x[-1].size // 2 + 5] = -9.25
    elif kind == "positive":  # zero point at the end of the range
        x = np.abs(x)
    elif kind == "zero":  # an empty range: TFLite's quantization gives every value 0
        x[:] = 0
    return x


SHAPES = {
    # TFLite's quantization (depthwise), images of 25,600 values: 7 parts each; rows rounded into a ring
    "depthwise 3x3": lambda rng: depthwise_model(rng, 2, 40, 40, 16, 3, 1, 0, 3),
    "depthwise 3x3 dilation 3": lambda rng: dilated_depthwise_model(rng, 2, 30, 25, 12, 3, 3),
    "depthwise 5x5 stride 2": lambda rng: depthwise_model(rng, 1, 41, 37, 24, 5, 2, 1, 1),
    # rows too wide for the ring (3 x 11,520 bytes): the image rounded into arena scratch first
    "depthwise 3x3, wide rows": lambda rng: depthwise_model(rng, 2, 12, 360, 32, 3, 2, 0),
    # XNNPACK's (IGEMM per image), 18,432 values
    "conv 3x3 stride 2": lambda rng: conv_model(rng, 2, 48, 48, 8, 12, 3, 2, 0, act=1),
    # a first layer on RGB (row taps), 27,648 values
    "conv 3x3 RGB": lambda rng: conv_model(rng, 1, 96, 96, 3, 16, 3, 2, 0),
    # per pixel, quantized in the GEMM's tiles
    "conv 1x1": lambda rng: conv_model(rng, 2, 20, 20, 24, 40, 1, 1, 0),
    # rows too long to quantize in a tile on AVX2 (6 x 3,000 bytes): quantized first, in parallel
    "fully connected, rows of 3,000": lambda rng: fc_model(rng, 13, 3000, 20),
    # rows quantized in the tiles that read them: split by whole rows (every thread two blocks of rows or
    # more), and with fewer rows by columns too
    "fully connected, 197 rows": lambda rng: fc_model(rng, 197, 192, 72),
    "fully connected, 12 rows": lambda rng: fc_model(rng, 12, 64, 100),
}


@pytest.mark.parametrize("kind", ["extremes late", "positive", "zero"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_images_quantized_in_parts_give_the_same_bits_on_every_thread_count(shape, kind):
    rng = np.random.default_rng(11)
    content = SHAPES[shape](rng)
    input_shape = tuple(Interpreter(model_content=content).get_input_details()[0]["shape"])
    assert_same_bits_on_every_thread_count_and_litert(content, images(rng, input_shape, kind))


def test_dynamic_mobilenet_gives_the_same_bits_on_every_thread_count_and_runs_in_bands():
    content = quantize(str(model_path("mobilenet_v2_035_96_f32")), mode="dynamic", progress=False)
    x = golden("mobilenet_v2_035_96_f32")["x"]
    segments = assert_same_bits_on_every_thread_count_and_litert(content, x)
    # the pointwise hybrid convolutions (and the ADDs between them) run as bands on 2 and 3 threads
    assert all(len(s) >= 10 for s in segments), segments
