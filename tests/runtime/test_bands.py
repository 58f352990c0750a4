"""Banded execution (native/src/bands.h): on several threads, runs of ops that read only their own pixels (1x1
convolutions, same-shape ADDs after a depthwise convolution) carry each band of pixels through every op of the
run in one job. The results must be the bits one thread gives, whatever the threads, shapes and row counts
(uneven splits, rows that share depthwise columns, batches), and LiteRT's; and the runs must really form."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT

from rillet.converter.from_graph import convert
from rillet.graph import Graph, ops
from rillet.quant import quantize
from rillet.runtime import Interpreter

RNG = np.random.default_rng(7)


def normal(*shape, scale=0.5):
    return (RNG.normal(size=shape) * scale).astype(np.float32)


def inverted_residuals(shape, channels=8, expand=3, blocks=3, stride_at=1):
    """MobileNetV2's blocks: 1x1 expand (ReLU6), 3x3 depthwise (ReLU6), 1x1 project, and the residual ADD
    where the shape allows; block `stride_at` has stride 2."""
    g = Graph()
    with g.as_default():
        x = ops.placeholder(shape, name="x")
        h = ops.conv2d(x, normal(channels, 1, 1, shape[-1]), normal(channels))
        for k in range(blocks):
            wide = channels * expand
            e = ops.relu6(ops.conv2d(h, normal(wide, 1, 1, channels), normal(wide)))
            stride = 2 if k == stride_at else 1
            d = ops.relu6(ops.depthwise_conv2d(e, normal(1, 3, 3, wide), normal(wide), strides=stride, padding="SAME"))
            p = ops.conv2d(d, normal(channels, 1, 1, wide), normal(channels))
            h = ops.add(p, h) if stride == 1 else p
        y = ops.conv2d(h, normal(16, 1, 1, channels), normal(16))
    return convert(inputs={"x": x}, outputs={"y": y})


def run(model: bytes, x: np.ndarray, threads: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    it = Interpreter(model_content=model, num_threads=threads)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    it.invoke()  # twice: the second reads no stale band of the first
    segments = [(i, it._plan.op_segment_last(i)) for i in range(len(it._plan.op_names))
                if it._plan.op_segment_last(i) >= 0]
    return it.get_tensor(it.get_output_details()[0]["index"]).copy(), segments


def litert(model: bytes, x: np.ndarray) -> np.ndarray:
    it = LiteRT(model_content=model)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


# (input shape, stride-2 block): 1 row, 2 and 3 rows (uneven on 2 threads: op by op), 9 pixels a row
# (pixel bands), 17-pixel rows (depthwise columns shared: whole-row bands), a batch of 2.
SHAPES = [((1, 1, 5, 3), -1), ((1, 2, 2, 3), -1), ((1, 3, 3, 3), -1), ((1, 9, 9, 3), 1), ((1, 12, 17, 2), 2),
          ((2, 6, 5, 3), 1), ((1, 20, 20, 3), 1)]


@pytest.mark.parametrize("shape,stride_at", SHAPES)
def test_float_bands_give_one_threads_bits_and_litert_values(shape, stride_at):
    model = inverted_residuals(shape, stride_at=stride_at)
    x = RNG.uniform(-1, 1, size=shape).astype(np.float32)
    want, none = run(model, x, 1)
    assert none == []  # one thread never bands
    for threads in (2, 3, 4):
        got, _ = run(model, x, threads)
        np.testing.assert_array_equal(got, want, err_msg=f"{threads} threads")
    np.testing.assert_allclose(want, litert(model, x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape,stride_at", SHAPES[3:])
def test_int8_bands_give_one_threads_bits_and_litert_bits(shape, stride_at):
    model = inverted_residuals(shape, stride_at=stride_at)
    calibration = [RNG.uniform(-1, 1, size=shape).astype(np.float32) for _ in range(4)]
    q = quantize(model, calibration, mode="int8", progress=False)
    x = RNG.uniform(-1, 1, size=shape).astype(np.float32)
    want, _ = run(q, x, 1)
    for threads in (2, 3, 4):
        got, _ = run(q, x, threads)
        np.testing.assert_array_equal(got, want, err_msg=f"{threads} threads")
    np.testing.assert_array_equal(want, litert(q, x))


def test_segments_form_from_the_depthwise_through_the_pointwise_ops():
    model = inverted_residuals((1, 12, 12, 3), blocks=2, stride_at=-1)
    x = RNG.uniform(-1, 1, size=(1, 12, 12, 3)).astype(np.float32)
    _, segments = run(model, x, 2)
    it = Interpreter(model_content=model)
    names = it._plan.op_names
    assert segments, "no band segment formed"
    for first, last in segments:  # a head reads what it likes; the ops after it only their own pixels
        assert names[first] in ("DEPTHWISE_CONV_2D", "CONV_2D")
        assert all(n in ("CONV_2D", "ADD") for n in names[first + 1:last + 1])
    # A block's depthwise, projection, ADD and the next 1x1 run as one.
    assert any(names[first] == "DEPTHWISE_CONV_2D" and names[first + 1:last + 1] == ["CONV_2D", "ADD", "CONV_2D"]
               for first, last in segments)


def test_uneven_rows_run_op_by_op():
    model = inverted_residuals((1, 3, 1, 3), blocks=1, stride_at=-1)  # 3 pixels: 2 against 1 on 2 threads
    _, segments = run(model, RNG.uniform(-1, 1, size=(1, 3, 1, 3)).astype(np.float32), 2)
    assert segments == []


def se_blocks(shape, channels=8, expand=4, blocks=2, activation="swish"):
    """EfficientNet's and MobileNetV3's blocks: 1x1 expand, 3x3 depthwise, each followed by a swish (x * sigmoid(x))
    or a HARD_SWISH; squeeze-and-excite (a global MEAN, two 1x1s on its one pixel, a sigmoid, the MUL by the
    [C] scales); 1x1 project and the residual ADD."""
    act = (lambda t: ops.mul(t, ops.sigmoid(t))) if activation == "swish" else ops.hard_swish
    g = Graph()
    with g.as_default():
        x = ops.placeholder(shape, name="x")
        h = ops.conv2d(x, normal(channels, 1, 1, shape[-1]), normal(channels))
        for _ in range(blocks):
            wide = channels * expand
            e = act(ops.conv2d(h, normal(wide, 1, 1, channels), normal(wide)))
            d = act(ops.depthwise_conv2d(e, normal(1, 3, 3, wide), normal(wide), padding="SAME"))
            s = ops.reduce_mean(d, axes=[1, 2], keepdims=True)
            s = ops.relu(ops.conv2d(s, normal(wide // 4, 1, 1, wide), normal(wide // 4)))
            s = ops.sigmoid(ops.conv2d(s, normal(wide, 1, 1, wide // 4), normal(wide)))
            h = ops.add(ops.conv2d(ops.mul(d, s), normal(channels, 1, 1, wide), normal(channels)), h)
        y = ops.conv2d(h, normal(16, 1, 1, channels), normal(16))
    return convert(inputs={"x": x}, outputs={"y": y})


@pytest.mark.parametrize("activation", ["swish", "hard_swish"])
@pytest.mark.parametrize("shape,channels", [((1, 9, 9, 3), 8), ((1, 12, 17, 2), 8), ((2, 6, 5, 3), 8),
                                            ((1, 6, 7, 3), 72)])
def test_int8_activations_and_se_scales_join_bands_with_one_threads_bits(shape, channels, activation):
    """int8 table activations (the swish's one table, HARD_SWISH) run in the bands of the convolution before them,
    and the squeeze-and-excite MUL by its [C] scales heads the bands of the projection after it (C = 32, a tiled
    vector; C = 288, a kernel call per pixel): the bits of one thread at 2, 3 and 4 threads, LiteRT's bits, and
    the segments hold those ops."""
    model = se_blocks(shape, channels=channels, activation=activation)
    calibration = [RNG.uniform(-1, 1, size=shape).astype(np.float32) for _ in range(4)]
    q = quantize(model, calibration, mode="int8", progress=False)
    x = RNG.uniform(-1, 1, size=shape).astype(np.float32)
    want, _ = run(q, x, 1)
    for threads in (2, 3, 4):
        got, segments = run(q, x, threads)
        np.testing.assert_array_equal(got, want, err_msg=f"{threads} threads")
    np.testing.assert_array_equal(want, litert(q, x))
    names = Interpreter(model_content=q)._plan.op_names
    _, segments = run(q, x, 2)
    banded = [names[first:last + 1] for first, last in segments]
    table = "LOGISTIC" if activation == "swish" else "HARD_SWISH"
    assert any(ops_[0] == "DEPTHWISE_CONV_2D" and table in ops_ for ops_ in banded), banded
    if shape[0] == 1:  # a batch's scales are [N, 1, 1, C], not one [C] vector: that MUL runs on its own
        assert any(ops_[:2] == ["MUL", "CONV_2D"] for ops_ in banded), banded


@pytest.mark.parametrize("activation", ["swish", "hard_swish"])
def test_float_se_blocks_give_one_threads_bits_and_litert_values(activation):
    shape = (1, 9, 9, 3)
    model = se_blocks(shape, activation=activation)
    x = RNG.uniform(-1, 1, size=shape).astype(np.float32)
    want, _ = run(model, x, 1)
    for threads in (2, 3, 4):
        got, _ = run(model, x, threads)
        np.testing.assert_array_equal(got, want, err_msg=f"{threads} threads")
    np.testing.assert_allclose(want, litert(model, x), rtol=1e-5, atol=1e-5)


def test_int8_mul_by_a_row_of_pixels_is_not_a_channel_vector():
    """A MUL by a [1, 1, W, C] constant collapses to rows of W * C like a per-channel one; bands count pixels of
    C, so it must not offer them as rows of W * C (it runs on its own): one thread's bits at 2, 3, 4 threads."""
    shape = (1, 8, 5, 4)
    g = Graph()
    with g.as_default():
        x = ops.placeholder(shape, name="x")
        d = ops.depthwise_conv2d(x, normal(1, 3, 3, 4), normal(4), padding="SAME")
        m = ops.mul(d, ops.constant(RNG.uniform(0.5, 1.5, size=(1, 1, 5, 4)).astype(np.float32)))
        y = ops.conv2d(m, normal(8, 1, 1, 4), normal(8))
    model = convert(inputs={"x": x}, outputs={"y": y})
    q = quantize(model, [RNG.uniform(-1, 1, size=shape).astype(np.float32) for _ in range(4)], mode="int8",
                 progress=False)
    x = RNG.uniform(-1, 1, size=shape).astype(np.float32)
    want, _ = run(q, x, 1)
    for threads in (2, 3, 4):
        got, _ = run(q, x, threads)
        np.testing.assert_array_equal(got, want, err_msg=f"{threads} threads")
    np.testing.assert_array_equal(want, litert(q, x))
