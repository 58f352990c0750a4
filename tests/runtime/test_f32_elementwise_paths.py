"""float32 ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, PRELU and LEAKY_RELU on every kernel path this
CPU runs (RILLET_ISA): each path gives the scalar path's bits and LiteRT's values (within 1e-5), over the operand
forms the element-wise micro-kernels take (same shape, one value on either side, a per-channel vector on either
side, a [W, C] block, one value per row on either side against a full operand or a row vector: a layer norm's
[.., R, 1] mean) and one they leave to the reference ([2, 1, 7] against [2, 5, 1]), with zeros, -0.0, ties and
infinities in the operands. And bands: float element-wise ops after a convolution join its segment on 2 threads,
and 1, 2 and 3 threads give the same bits."""

from __future__ import annotations

import os

import numpy as np
import pytest
from single_op import Const, Input, litert_default, op_model, run
from test_kernel_paths import PATHS

from rillet.converter.from_graph import convert
from rillet.graph import Graph, ops

pytest.importorskip("ai_edge_litert")

F32 = np.float32
OPS = ["ADD", "SUB", "MUL", "DIV", "SQUARED_DIFFERENCE", "MAXIMUM", "MINIMUM", "PRELU"]
WITH_ACTIVATION = {"ADD", "SUB", "MUL", "DIV"}
# (a shape, b shape): rows of 16, 19, 21, 24, 12, 8 and 3 channels around the 4-, 8- and 16-element steps
BROADCASTS = [
    ((2, 5, 7, 16), (2, 5, 7, 16)),  # same shape
    ((37,), (37,)),
    ((1, 4, 4, 19), ()),             # one value on the right
    ((), (3, 5, 21)),                # one value on the left: SUB's minuend, DIV's dividend
    ((2, 3, 3, 24), (24,)),          # a per-channel vector
    ((12,), (2, 3, 5, 12)),          # the vector on the left
    ((1, 6, 5, 8), (1, 1, 8)),       # MediaPipe's PRELU alpha, 8 channels
    ((1, 4, 5, 3), (5, 3)),          # a [W, C] block repeated over rows
    ((2, 4, 1), (1, 33)),            # a column against a row: one value per row against a vector
    ((2, 5, 37), (2, 5, 1)),         # one value per row on the right (a layer norm's x - mean)
    ((1, 3, 1), (1, 3, 19)),         # one value per row on the left
    ((1, 2, 3, 1), (1, 2, 3, 8)),    # 4-D, not banded
    ((2, 1, 7), (2, 5, 1)),          # the reference's broadcast
]


def operand(rng, shape, divisor: bool = False) -> np.ndarray:
    x = rng.uniform(-3, 3, shape).astype(F32)
    if divisor:
        return np.where(np.abs(x) < 0.1, F32(0.5), x).astype(F32)
    flat = x.reshape(-1)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, 1.0], F32)
    flat[: min(flat.size, 5)] = specials[: min(flat.size, 5)]
    return x


def cases():
    for op in OPS:
        for i, (a_shape, b_shape) in enumerate(BROADCASTS):
            if op == "PRELU" and np.broadcast_shapes(a_shape, b_shape) != a_shape:
                continue  # PRELU's output has its input's shape
            act = (0, 1, 3)[i % 3] if op in WITH_ACTIVATION else None
            yield pytest.param(op, a_shape, b_shape, act, id=f"{op}-{i}")


def outputs_on_every_path(model: bytes, feeds: list[np.ndarray], monkeypatch) -> dict[str, np.ndarray]:
    from rillet.runtime import Interpreter

    got = {}
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        (got[isa],) = run(Interpreter, model, feeds)
    return got


@pytest.mark.parametrize("op, a_shape, b_shape, act", list(cases()))
def test_binary_on_every_path(op, a_shape, b_shape, act, monkeypatch):
    rng = np.random.default_rng(len(a_shape) * 10 + len(b_shape))
    a, b = operand(rng, a_shape), operand(rng, b_shape, divisor=op == "DIV")
    if op in ("MAXIMUM", "MINIMUM") and a.size > 6 and b.size > 6:
        b.reshape(-1)[6] = a.reshape(-1)[6]  # a tie
    out_shape = np.broadcast_shapes(a_shape, b_shape)
    inputs = [Input(a_shape), Const(b) if op == "PRELU" else Input(b_shape)]
    options = {"fused_activation_function": act} if act is not None else None
    model = op_model(op, inputs, [(out_shape, F32)], options)
    feeds = [a] if op == "PRELU" else [a, b]
    (expected,) = litert_default(model, feeds)
    got = outputs_on_every_path(model, feeds, monkeypatch)
    for isa, y in got.items():
        assert y.tobytes() == got["scalar"].tobytes(), (isa, np.count_nonzero(y != got["scalar"]))
    np.testing.assert_allclose(got["scalar"], expected, rtol=1e-5, atol=1e-6)


# transformer-sized operands: layer norm's per-row values, residual ADDs, biases, attention's scale and mask
THREADED = [
    ((1, 300, 256), (1, 300, 1)),
    ((1, 300, 1), (256,)),
    ((1, 300, 256), (1, 300, 256)),
    ((256,), (1, 300, 256)),
    ((1, 300, 256), ()),
    ((3, 151, 149), (3, 151, 1)),  # rows of 149: a thread's run of rows is not a multiple of 64 elements
    ((1, 3, 197, 197), (1, 1, 197, 197)),  # an attention mask over heads
]


@pytest.mark.parametrize("op", ["ADD", "SUB", "MUL", "SQUARED_DIFFERENCE"])
@pytest.mark.parametrize("a_shape, b_shape", THREADED)
def test_binary_forms_split_across_threads(op, a_shape, b_shape):
    """Outputs of 65536 elements and more split across the plan's threads in runs of rows: 1, 2 and 3 threads
    give the same bits, and LiteRT's values."""
    from rillet.runtime import Interpreter

    rng = np.random.default_rng(7)
    a, b = operand(rng, a_shape), operand(rng, b_shape)
    out_shape = np.broadcast_shapes(a_shape, b_shape)
    options = {} if op in WITH_ACTIVATION else None
    model = op_model(op, [Input(a_shape), Input(b_shape)], [(out_shape, F32)], options)
    got = {threads: run(Interpreter, model, [a, b], num_threads=threads)[0] for threads in (1, 2, 3)}
    for threads in (2, 3):
        assert got[threads].tobytes() == got[1].tobytes(), threads
    np.testing.assert_allclose(got[1], litert_default(model, [a, b])[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(1, 9, 7, 16), (2, 3, 23), (67,)])
@pytest.mark.parametrize("alpha", [0.2, -0.5, 0.0])
def test_leaky_relu_on_every_path(shape, alpha, monkeypatch):
    x = operand(np.random.default_rng(len(shape)), shape)
    model = op_model("LEAKY_RELU", [Input(shape)], [(shape, F32)], {"alpha": alpha})
    (expected,) = litert_default(model, [x])
    got = outputs_on_every_path(model, [x], monkeypatch)
    for isa, y in got.items():
        assert y.tobytes() == got["scalar"].tobytes(), isa
    np.testing.assert_allclose(got["scalar"], expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(1,), (7,), (8,), (15,), (16,), (17,), (31,), (33,), (2, 3, 23), (1, 9, 7, 16)])
def test_hard_swish_on_every_path(shape, monkeypatch):
    """HARD_SWISH around the SIMD paths' 8- and 16-value steps, with infinities, zeros of both signs and the
    seams at -3 and 3 (and their neighbouring floats): every path gives the scalar path's bits, and LiteRT's values."""
    rng = np.random.default_rng(sum(shape))
    x = rng.uniform(-5, 5, shape).astype(F32)
    seams = np.array([-3, 3], F32)
    specials = np.concatenate([[np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30], seams, np.nextafter(seams, 0),
                               np.nextafter(seams, np.array([-9, 9], F32))]).astype(F32)
    flat = x.reshape(-1)
    # Spread over the vector lanes and the scalar tail alike
    at = rng.permutation(flat.size)[: min(flat.size, specials.size)]
    flat[at] = specials[: at.size]
    model = op_model("HARD_SWISH", [Input(shape)], [(shape, F32)])
    (expected,) = litert_default(model, [x])
    got = outputs_on_every_path(model, [x], monkeypatch)
    for isa, y in got.items():
        assert y.tobytes() == got["scalar"].tobytes(), (isa, np.count_nonzero(y != got["scalar"]))
    np.testing.assert_allclose(got["scalar"], expected, rtol=1e-5, atol=1e-6)


# ---- bands: a convolution and the element-wise ops after it, one segment ----

def normal(rng, *shape):
    return (rng.normal(size=shape) * 0.5).astype(F32)


def conv_then_elementwise(shape, channels=12):
    """A 3x3 convolution followed by element-wise ops of each banded form: LEAKY_RELU, a per-channel MUL, a
    per-channel SUB with the vector on the left, a DIV by one value, a same-shape SQUARED_DIFFERENCE."""
    rng = np.random.default_rng(3)
    g = Graph()
    with g.as_default():
        x = ops.placeholder(shape, name="x")
        h = ops.conv2d(x, normal(rng, channels, 3, 3, shape[-1]), normal(rng, channels), padding="SAME")
        h = ops.leaky_relu(h, alpha=0.1)
        h = ops.mul(h, rng.uniform(0.5, 2, channels).astype(F32))
        h = ops.sub(rng.uniform(-1, 1, channels).astype(F32), h)
        h = ops.div(h, np.array(1.5, F32))
        y = ops.squared_difference(h, ops.conv2d(h, normal(rng, channels, 1, 1, channels), normal(rng, channels)))
    return convert(inputs={"x": x}, outputs={"y": y})


def conv_then_unary(shape, channels=12):
    """A 3x3 convolution followed by the float unary ops that run pixel by pixel: LOGISTIC (XNNPACK's
    approximation, eight lanes at a time on AVX2), TANH, HARD_SWISH, RELU6."""
    rng = np.random.default_rng(4)
    g = Graph()
    with g.as_default():
        x = ops.placeholder(shape, name="x")
        h = ops.conv2d(x, normal(rng, channels, 3, 3, shape[-1]) * 4, normal(rng, channels), padding="SAME")
        h = ops.hard_swish(ops.tanh(ops.sigmoid(h) * 6 - 3) * 4)
        y = ops.relu6(h * 3)
    return convert(inputs={"x": x}, outputs={"y": y})


def run_threads(model: bytes, x: np.ndarray, threads: int):
    from rillet.runtime import Interpreter

    it = Interpreter(model_content=model, num_threads=threads)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    it.invoke()
    names = it._plan.op_names
    segments = [(i, it._plan.op_segment_last(i)) for i in range(len(names)) if it._plan.op_segment_last(i) >= 0]
    outputs = np.concatenate([it.get_tensor(d["index"]).ravel() for d in it.get_output_details()])
    return outputs, segments, names


BANDED_CHAINS = [  # a model builder, its input's shape and range, a seed, the ops that must join the segment
    (conv_then_elementwise, (1, 10, 9, 3), 1.0, 5, {"LEAKY_RELU", "MUL", "SUB", "DIV", "SQUARED_DIFFERENCE"}),
    (conv_then_unary, (1, 11, 13, 5), 2.0, 6, {"LOGISTIC", "TANH", "HARD_SWISH", "RELU6"}),
]


@pytest.mark.parametrize("build, shape, limit, seed, joined", BANDED_CHAINS, ids=["binary", "unary"])
def test_elementwise_ops_join_the_convolutions_band_segment(build, shape, limit, seed, joined):
    model = build(shape)
    x = np.random.default_rng(seed).uniform(-limit, limit, shape).astype(F32)
    want, none, names = run_threads(model, x, 1)
    assert none == []
    _, segments, _ = run_threads(model, x, 2)
    banded = {names[j] for first, last in segments for j in range(first, last + 1)}
    assert joined <= banded, (segments, names)
    for threads in (2, 3):
        got, _, _ = run_threads(model, x, threads)
        np.testing.assert_array_equal(got, want, err_msg=f"{threads} threads")
    np.testing.assert_allclose(want, litert_default(model, [x])[0].ravel(), rtol=1e-5, atol=1e-5)


def cached_model(relative: str):
    """A real model from bench/real_models.py's cache (test_real_models.py fetches it), or a skip."""
    from pathlib import Path

    from test_real_models import bench

    path = Path(os.environ.get("RILLET_REAL_MODELS", bench().DEFAULT_CACHE)) / relative
    if not path.is_file():
        pytest.skip(f"{path.name} is not in the real models' cache (bench/real_models.py fetches it)")
    return path


def test_face_landmarks_prelus_join_band_segments_and_keep_their_bits():
    """MediaPipe's face_landmark: 23 float PRELUs with [1, 1, C] alphas after convolutions and ADDs (68% of an
    invoke before they had kernels of their own); on 2 threads every one but the first (after the opening 3x3
    convolution, which offers no bands) runs inside a band segment, and 1, 2 and 3 threads give the same bits
    on every output."""
    path = cached_model("mediapipe/mediapipe/modules/face_landmark/face_landmark.tflite")
    x = np.random.default_rng(0).uniform(-1, 1, (1, 192, 192, 3)).astype(F32)
    model = path.read_bytes()
    want, none, names = run_threads(model, x, 1)
    assert none == []
    prelus = [i for i, name in enumerate(names) if name == "PRELU"]
    for threads in (2, 3):
        got, segments, _ = run_threads(model, x, threads)
        np.testing.assert_array_equal(got, want, err_msg=f"{threads} threads")
        if threads == 2:
            joined = [i for i in prelus if any(first < i <= last for first, last in segments)]
            assert joined == prelus[1:], (joined, prelus, segments)
