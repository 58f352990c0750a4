"""PAD and PADV2 on the reduced layout (native/ops/pad.c, native/kernels/xx_pad.c) against LiteRT and numpy: pads
of channels, of the spatial axes, of the batch, of every axis, ranks 1 to 5, no padding at all, an empty input,
rows long and short, float32, int8 (the zero point, or PADV2's constant, as the pad), int32; on one thread and on
two (split by the outer axis), and a channel pad that joins a band segment after a depthwise convolution."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Const, Input, Quant, assert_matches_litert, assert_same_bits_as_litert, op_model, run

from rillet.converter.from_graph import convert
from rillet.graph import Graph, ops
from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

F32, I8, I32 = np.float32, np.int8, np.int32
Q = Quant(0.05, -7)

CASES = {  # name: input shape, paddings
    "channels": ((1, 8, 8, 8), [[0, 0], [0, 0], [0, 0], [0, 8]]),
    "channels_both_sides": ((1, 5, 5, 3), [[0, 0], [0, 0], [0, 0], [2, 3]]),
    "spatial": ((1, 6, 7, 4), [[0, 0], [1, 2], [2, 1], [0, 0]]),
    "batch": ((2, 3, 3, 2), [[1, 2], [0, 0], [0, 0], [0, 0]]),
    "every_axis": ((2, 3, 4, 5), [[1, 0], [0, 2], [3, 1], [1, 1]]),
    "rank1": ((7,), [[3, 2]]),
    "rank2": ((3, 5), [[0, 2], [1, 0]]),
    "rank3": ((2, 3, 4), [[0, 0], [2, 2], [0, 0]]),
    "rank5": ((2, 1, 3, 2, 2), [[0, 1], [0, 0], [1, 0], [0, 0], [2, 2]]),
    "none": ((1, 4, 4, 3), [[0, 0], [0, 0], [0, 0], [0, 0]]),
    "long_rows": ((1, 4, 100, 3), [[0, 0], [0, 0], [5, 7], [0, 0]]),
    "large_channels": ((1, 96, 96, 8), [[0, 0], [0, 0], [0, 0], [0, 8]]),  # split across two threads
    "large_spatial": ((1, 120, 120, 4), [[0, 0], [2, 2], [1, 3], [0, 0]]),
}


def values(seed: int, shape, dtype) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == F32:
        return rng.uniform(-2, 2, shape).astype(F32)
    return rng.integers(-128, 128, shape).astype(dtype)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("threads", [1, 2])
def test_float_pad_and_padv2_match_litert(name, threads):
    shape, pads = CASES[name]
    x = values(0, shape, F32)
    for op, extra in (("PAD", []), ("PADV2", [np.array(1.5, F32)])):
        m = op_model(op, [Input(shape), np.array(pads, I32), *extra], [((1,), F32)], {} if op == "PAD" else None)
        assert_matches_litert(m, [x], rtol=0, atol=0)
        (got,) = run(Interpreter, m, [x], num_threads=threads)
        want = np.pad(x, pads, constant_values=1.5 if extra else 0.0)
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("name", sorted(CASES))
def test_int8_pad_is_the_zero_point_and_padv2_the_constant(name):
    shape, pads = CASES[name]
    x = values(1, shape, I8)
    m = op_model("PAD", [Input(shape, I8, Q), np.array(pads, I32)], [((1,), I8, Q)], {}, version=2)
    assert_same_bits_as_litert(m, [x])
    (got,) = run(Interpreter, m, [x], num_threads=2)
    assert got.tobytes() == np.pad(x, pads, constant_values=-7).tobytes()
    m = op_model("PADV2", [Input(shape, I8, Q), np.array(pads, I32), Const(np.array(37, I8), Q)], [((1,), I8, Q)],
                 None, version=2)
    assert_same_bits_as_litert(m, [x])


@pytest.mark.parametrize("name", ["channels", "every_axis", "rank1", "large_spatial"])
def test_int32_pad_matches_litert(name):
    shape, pads = CASES[name]
    x = np.random.default_rng(2).integers(-2**31, 2**31, shape, dtype=np.int64).astype(I32)
    m = op_model("PAD", [Input(shape, I32), np.array(pads, I32)], [((1,), I32)], {})
    assert_matches_litert(m, [x])


def test_an_empty_input_pads_to_all_pad_values():
    m = op_model("PADV2", [Input((1, 0, 3, 2)), np.array([[0, 0], [2, 1], [0, 0], [1, 0]], I32),
                           np.array(-3.0, F32)], [((1,), F32)], None)
    (got,) = run(Interpreter, m, [np.zeros((1, 0, 3, 2), F32)])
    assert got.shape == (1, 3, 3, 3) and np.all(got == -3.0)


def test_a_runtime_padv2_value_is_read_at_each_invoke():
    m = op_model("PADV2", [Input((2, 3)), np.array([[1, 0], [0, 2]], I32), Input(())], [((1,), F32)], None)
    x = values(3, (2, 3), F32)
    for value in (0.0, -1.25):
        (got,) = run(Interpreter, m, [x, np.array(value, F32)])
        assert got.tobytes() == np.pad(x, [[1, 0], [0, 2]], constant_values=value).tobytes()


def test_a_channel_pad_joins_the_depthwise_segment():
    """MediaPipe's BlazeBlock: depthwise, 1x1 convolution, and the input padded to the wider channels for the
    residual ADD. The PAD reads only its own pixels, so on two threads it runs in the depthwise's bands."""
    rng = np.random.default_rng(5)
    g = Graph()
    with g.as_default():
        x = ops.placeholder((1, 16, 16, 8), name="x")
        d = ops.depthwise_conv2d(x, rng.normal(size=(1, 3, 3, 8)).astype(F32), rng.normal(size=8).astype(F32),
                                 strides=1, padding="SAME")
        c = ops.conv2d(d, rng.normal(size=(16, 1, 1, 8)).astype(F32), rng.normal(size=16).astype(F32))
        p = ops.pad(d, [(0, 0), (0, 0), (0, 0), (0, 8)])
        y = ops.add(c, p)
    model = convert(inputs={"x": x}, outputs={"y": y})
    feed = rng.uniform(-1, 1, (1, 16, 16, 8)).astype(F32)
    it = Interpreter(model_content=model, num_threads=2)
    it.allocate_tensors()
    names = it._plan.op_names
    segments = [(i, it._plan.op_segment_last(i)) for i in range(len(names)) if it._plan.op_segment_last(i) >= 0]
    assert any("PAD" in names[first:last + 1] and names[first] == "DEPTHWISE_CONV_2D" for first, last in segments), \
        (names, segments)
    (two,) = run(Interpreter, model, [feed], num_threads=2)
    (one,) = run(Interpreter, model, [feed], num_threads=1)
    assert two.tobytes() == one.tobytes()
    assert_matches_litert(model, [feed])
