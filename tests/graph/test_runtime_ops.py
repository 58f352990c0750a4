"""The graph API covers the runtime's ops: each op the C runtime registers is a graph op (the ones that are not
are pinned below, with why), and each op added for that lowers to a .tflite file that LiteRT and rillet's
runtime both run with graph.run's results, and that `to_graph` imports back."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRTInterpreter
from graphcheck import RUNTIME_FLOAT_OPS

import rillet.graph as rg
from rillet.converter import load
from rillet.converter.from_graph import convert
from rillet.converter.to_graph import CUSTOM_IMPORTS, to_graph
from rillet.graph import ops
from rillet.native import ffi, lib
from rillet.runtime import Interpreter

# Runtime ops with no graph op, and why. The list may only shrink.
NOT_IN_GRAPH = {
    # MediaPipe's transposed convolution with a bias: to_graph imports it as a TRANSPOSE_CONV and an ADD, which
    # the converter writes (builtins where builtins can express it)
    "Convolution2DTransposeBias",
}


def runtime_ops() -> set[str]:
    code, name, dtypes = ffi.new("int32_t *"), ffi.new("char **"), ffi.new("uint32_t *")
    names, i = set(), 0
    while lib.rl_op_registry_entry(i, code, name, dtypes):
        names.add(ffi.string(name[0]).decode())
        i += 1
    return names


def test_runtime_ops_the_graph_lacks_are_the_pinned_ones():
    lacking = runtime_ops() - set(rg.REGISTRY)
    assert lacking - NOT_IN_GRAPH == set(), f"runtime ops without a graph op: {sorted(lacking - NOT_IN_GRAPH)}"
    assert NOT_IN_GRAPH - lacking == set(), f"now in the graph, unpin them: {sorted(NOT_IN_GRAPH - lacking)}"
    assert set(CUSTOM_IMPORTS) <= NOT_IN_GRAPH


# the ops the graph had before it covered the runtime (a case's gradient test needs one past these)
_OLDER_OPS = set(RUNTIME_FLOAT_OPS) | {"IDENTITY", "PLACEHOLDER", "CONST", "NO_OP"}

RNG = np.random.default_rng(5)
WIDE, UNIT, POSITIVE = (-4.0, 4.0), (-1.0, 1.0), (0.5, 2.0)
SPARSE_WEIGHT = np.where(np.random.default_rng(6).random((6, 16)) < 0.3, 1.5, 0.0).astype(np.float32)
SPARSE_WEIGHT[1] = 0.0  # an empty row
SPARSE_WEIGHT[SPARSE_WEIGHT != 0] = np.random.default_rng(7).normal(size=int((SPARSE_WEIGHT != 0).sum()))


LSTM_WEIGHTS = ([RNG.normal(size=(4, 3)).astype(np.float32) for _ in range(4)],
                [RNG.normal(size=(4, 4)).astype(np.float32) * 0.5 for _ in range(4)],
                [RNG.normal(size=4).astype(np.float32) for _ in range(4)])


def _f(t):
    return ops.cast(t, "float32")


def _kept(x):
    """x's first row, computed (so that an op reading it is not folded away by the converter)."""
    return ops.strided_slice(x, [0, 0], [1, 0], end_mask=2, shrink_axis_mask=1)


# (builder over the float32 input x, x's shape, x's range): one line per op the graph gained for the runtime
CASES = {
    "abs": (ops.abs_, (2, 5), WIDE),
    "ceil": (ops.ceil, (2, 5), WIDE),
    "floor": (ops.floor, (2, 5), WIDE),
    "round": (lambda x: ops.round_(x * 2.0), (2, 5), WIDE),
    "elu": (ops.elu, (2, 5), WIDE),
    "relu_n1_to_1": (ops.relu_n1_to_1, (2, 5), WIDE),
    "pow": (lambda x: ops.pow_(x, RNG.uniform(-2, 2, size=5).astype(np.float32)), (2, 5), POSITIVE),
    "floor_div": (lambda x: ops.floor_div(x, np.float32(0.7)), (2, 5), WIDE),
    "floor_mod": (lambda x: ops.floor_mod(x, np.float32(-0.7)), (2, 5), WIDE),
    "less_equal_not_equal": (lambda x: _f(ops.less_equal(x, 0.5)) + _f(ops.not_equal(ops.floor(x), 1.0)),
                             (2, 5), WIDE),
    "logical": (lambda x: _f(ops.logical_or(ops.logical_and(x > 0.0, x < 2.0), ops.logical_not(x > -1.0))),
                (3, 4), WIDE),
    "select_v1": (lambda x: ops.select_v1(x > 0.0, x, ops.neg(x) * 3.0), (2, 3), WIDE),
    # TF1's SELECT with one condition value per row (rank 1 over x's first axis)
    "select_v1_rows": (lambda x: ops.select_v1(ops.reduce_sum(x, 1) > 0.0, x, ops.neg(x) * 3.0), (4, 3), WIDE),
    "reduce_prod": (lambda x: ops.reduce_prod(x, [1], keepdims=True), (2, 3, 4), POSITIVE),
    "reduce_all_any": (lambda x: _f(ops.reduce_all(x > -2.0, 1)) + _f(ops.reduce_any(x > 3.0, 1)), (3, 6), WIDE),
    "cumsum": (lambda x: ops.cumsum(x, 1, exclusive=True, reverse=True), (2, 5, 3), WIDE),
    "arg_max": (lambda x: ops.arg_max(x, 1), (3, 5), WIDE),
    "arg_min_int64": (lambda x: ops.arg_min(x, 0, output_type="int64"), (3, 5), WIDE),
    "one_hot": (lambda x: ops.one_hot_builtin(ops.arg_max(x, 1), 6, on_value=2.0, off_value=-1.0), (3, 5), WIDE),
    "split": (lambda x: (lambda p: p[0] * p[2])(ops.split(x, 3, axis=1)), (2, 6), WIDE),
    "split_v": (lambda x: (lambda p: ops.concat([p[2], p[0]], 0))(ops.split_v(x, [1, -1, 2], axis=0)), (5, 2), WIDE),
    "unpack": (lambda x: (lambda p: p[0] - p[2])(ops.unpack(x, axis=1)), (2, 3, 4), WIDE),
    "tile": (lambda x: ops.tile(x, [2, 1, 3]), (2, 3, 2), WIDE),
    "broadcast_to": (lambda x: ops.broadcast_to(x, [2, 3, 4]), (3, 1), WIDE),
    "fill": (lambda x: ops.fill([2, 3], ops.reduce_sum(x)), (2, 2), WIDE),
    "zeros_like": (lambda x: ops.zeros_like_builtin(x) + 1.0, (2, 3), WIDE),
    # rillet's RANGE needs its inputs known at prepare: a shape's, which the converter does not fold
    "range": (lambda x: ops.cast(ops.range_(1, ops.gather(ops.shape(x), np.array(1, np.int32)), 2), "float32") * 0.5, (3, 4), WIDE),
    "reverse": (lambda x: ops.reverse(x, [1, 2]), (2, 3, 4), WIDE),  # LiteRT reverses contiguous axes only
    "space_to_batch_nd": (lambda x: ops.space_to_batch_nd(x, [2, 2], [(1, 0), (0, 2)]), (1, 3, 4, 2), WIDE),
    "batch_to_space_nd": (lambda x: ops.batch_to_space_nd(x, [2, 2], [(1, 0), (0, 1)]), (4, 2, 3, 2), WIDE),
    "pad_v2": (lambda x: ops.pad_v2(x, [(1, 0), (2, 1)], np.float32(-3.5)), (2, 3), WIDE),
    "gather_nd": (lambda x: ops.gather_nd(x, np.array([[0, 1], [2, 3], [0, 1]], np.int32)), (3, 4, 2), WIDE),
    "dynamic_update_slice": (lambda x: ops.dynamic_update_slice(x, ops.slice_(x, [0, 0], [2, 3]) * 2.0,
                                                                np.array([1, 2], np.int32)), (3, 4), WIDE),
    "l2_normalize": (ops.l2_normalize, (2, 3, 5), WIDE),
    "local_response_normalization": (lambda x: ops.local_response_normalization(x, 2, 1.5, 0.3, 0.6),
                                     (1, 2, 3, 7), WIDE),
    "rfft2d": (lambda x: ops.rfft2d(x, [4, 8]), (2, 3, 8), WIDE),
    "lstm": (lambda x: ops.lstm(x, *LSTM_WEIGHTS, cell_clip=0.8), (2, 5, 3), WIDE),
    "lstm_time_major": (lambda x: ops.lstm(x, *LSTM_WEIGHTS, time_major=True), (5, 2, 3), UNIT),
    # control flow: each function a subgraph of its own (either branch, by the sign of x's sum; a loop whose
    # count is a value: the floor of x's largest element, plus 2)
    "if": (lambda x: ops.if_(ops.greater(ops.reduce_sum(x), np.float32(0)), lambda a: ops.tanh(a * 2.0),
                             lambda a: a * a - 1.0, x), (2, 3), WIDE),
    "while": (lambda x: ops.while_loop(
        lambda i, n, v: ops.less(i, n), lambda i, n, v: [i + np.int32(1), n, ops.sin(v) * 1.5],
        [ops.constant(np.int32(0)), ops.cast(ops.floor(ops.reduce_max(x) + 2.0), "int32"), x])[2], (2, 3), WIDE),
    # quantization at a float model's edges: int8 levels out (bit for bit), int8 and int16 levels and back
    "quantize": (lambda x: ops.quantize(x, 0.03, -5), (3, 40), WIDE),
    "dequantize": (lambda x: ops.dequantize(ops.quantize(x * 3.0, 0.05, 7), 0.05, 7) * 2.0, (3, 40), WIDE),
    # MediaPipe's pooling custom ops: the unpooling puts each value where its index says, so a wrong index shows
    # (LiteRT's XNNPACK crashes on an argmax pooling whose indices nothing reads: they are read here)
    "argmax_indices": (lambda x: ops.max_unpool(*ops.max_pool_with_argmax(x, (2, 2)), (2, 2)), (2, 4, 6, 3), WIDE),
    # SAME's overhang: the gradient folds it back onto the edge it repeats
    "argmax_same_unpool": (lambda x: (lambda v, i: ops.max_unpool(ops.mul(v, v), i, (2, 3)))(
        *ops.max_pool_with_argmax(x, (2, 3), "SAME")), (1, 5, 7, 2), WIDE),
    # a weight stored sparse (an empty row, 70% zeros): LiteRT and rillet densify it, to_graph expands it
    "densify": (lambda x: ops.fully_connected(x, ops.densify(SPARSE_WEIGHT)), (2, 16), WIDE),
    "dequantize_int16": (lambda x: ops.dequantize(ops.quantize(x, 1 / 4096, 0, "int16"), 1 / 4096), (3, 40), WIDE),
}


def _run(interpreter_class, data: bytes, feeds: dict) -> dict:
    return interpreter_class(model_content=data).get_signature_runner("infer")(**feeds)


def _close(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, got.shape, want.dtype, want.shape)
    if np.issubdtype(want.dtype, np.inexact):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("case", sorted(CASES))
def test_op_lowers_and_runs_in_litert_and_rillet_and_imports_back(case):
    build, shape, (low, high) = CASES[case]
    g = rg.Graph()
    with g.as_default():
        x = ops.placeholder(shape, name="x")
        y = build(x)
    feeds = {"x": RNG.uniform(low, high, size=shape).astype(np.float32)}
    want = g.run(y, {x: feeds["x"]})
    data = convert(inputs={"x": x}, outputs={"y": y})
    _close(_run(LiteRTInterpreter, data, feeds)["y"], want, "LiteRT")
    _close(_run(Interpreter, data, feeds)["y"], want, "rillet")
    imported = to_graph(data, signature="infer")
    _close(imported.run(feeds)["y"], want, "to_graph")


@pytest.mark.parametrize("case", sorted(CASES))
def test_op_lowers_to_a_jitted_jax_step(case):
    pytest.importorskip("jax")
    from rillet.targets import xla

    build, shape, (low, high) = CASES[case]
    g = rg.Graph()
    with g.as_default():
        x = ops.placeholder(shape, name="x")
        y = build(x)
    xv = RNG.uniform(low, high, size=shape).astype(np.float32)
    step = xla.compile([y], [x])
    if case == "range":  # a length known only from values: the desktop backend says so
        with pytest.raises(RuntimeError, match="RANGE: its length follows its inputs' values"):
            step({}, [xv])
        return
    (got,), _ = step({}, [xv])
    want = g.run(y, {x: xv})
    if want.dtype == np.int64:  # JAX computes in 32 bits unless x64 is enabled
        want = want.astype(np.int32)
    _close(got, want, "jax")


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradient_lowers_and_runs_in_litert_and_rillet(case):
    """The backward graph of each differentiable op is made of builtins both runtimes run: what a trained
    tail's `train` signature holds."""
    build, shape, (low, high) = CASES[case]
    g = rg.Graph()
    with g.as_default():
        x = ops.placeholder(shape, name="x")
        y = build(x)
        if not np.issubdtype(np.dtype(y.dtype), np.floating):
            pytest.skip(f"{y.producer.op}: {y.dtype} result, no gradient")
        loss = ops.reduce_sum(ops.mul(y, RNG.uniform(0.5, 1.5, size=[d or 1 for d in y.shape]).astype(np.float32)))
        (dx,) = rg.gradients(loss, [x])
    if dx is None or not any(n.op in rg.GRADIENTS and n.op not in _OLDER_OPS for n in g.ancestors(y)):
        pytest.skip("no gradient flows through the new op")
    feeds = {"x": RNG.uniform(low, high, size=shape).astype(np.float32)}
    want = g.run(dx, {x: feeds["x"]})
    data = convert(inputs={"x": x}, outputs={"dx": dx})
    _close(_run(LiteRTInterpreter, data, feeds)["dx"], want, "LiteRT")
    _close(_run(Interpreter, data, feeds)["dx"], want, "rillet")


def _runtime_lstm_models():
    """tests/runtime/test_lstm.py's LSTM file writer (TFLite's 24 inputs laid out by hand, not by rillet's
    converter) and its invoke runner."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "runtime" / "test_lstm.py"
    spec = importlib.util.spec_from_file_location("runtime_test_lstm", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("time_major", [False, True])
def test_to_graph_imports_an_lstm_file_with_litert_invokes_carrying_the_state(time_major):
    models = _runtime_lstm_models()
    data = models.lstm_model(time_major=time_major, cell_clip=0.7)
    xs = [RNG.uniform(-1, 1, size=(5, 2, 3) if time_major else (2, 5, 3)).astype(np.float32) for _ in range(3)]
    wants = models.run_invokes(LiteRTInterpreter, data, xs)
    imported = to_graph(data)
    for x, want in zip(xs, wants):  # the state carries from one run to the next, as from invoke to invoke
        np.testing.assert_allclose(imported.run({"x": x})["y"], want, rtol=1e-5, atol=1e-6)
    assert len(imported.variables) == 12  # the gates' weights and biases: trainable
    from_zero = to_graph(data, carry_lstm_state=False)
    for x in xs:
        np.testing.assert_allclose(from_zero.run({"x": x})["y"], models.run_invokes(LiteRTInterpreter, data, [x])[0],
                                   rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("carry_state", [False, True])
def test_every_invoke_of_an_exported_lstm_gives_graph_runs_result(carry_state):
    """From zero at every run (the unrolled steps' builtins) or carried (the fused op and its variable state):
    three invokes in a row in LiteRT and rillet give three graph runs' outputs, not the first one alone."""
    g = rg.Graph()
    with g.as_default():
        x = ops.placeholder((2, 5, 3), name="x")
        y = ops.lstm(x, *LSTM_WEIGHTS, cell_clip=0.8, carry_state=carry_state)
    data = convert(inputs={"x": x}, outputs={"y": y})
    kinds = {op.builtin_code for op in load(data).operator_codes}
    assert (kinds == {44}) == carry_state  # 44: UNIDIRECTIONAL_SEQUENCE_LSTM, alone when carried
    xs = [RNG.uniform(-1, 1, size=(2, 5, 3)).astype(np.float32) for _ in range(3)]
    wants = [g.run(y, {x: v}) for v in xs]
    if carry_state:
        assert np.abs(wants[1] - g.run(y, {x: xs[1]})).max() > 1e-3  # the state moved on
    for cls in (LiteRTInterpreter, Interpreter):
        runner = cls(model_content=data).get_signature_runner("infer")
        for v, want in zip(xs, wants):
            np.testing.assert_allclose(runner(x=v)["y"], want, rtol=1e-5, atol=1e-6, err_msg=cls.__module__)


@pytest.mark.parametrize("variant, named", [({"peephole": True}, "peephole"), ({"cifg": True}, "input 1"),
                                            ({"n_output": 3}, "projection"), ({"activation": 1}, "tanh")])
def test_to_graph_names_the_lstm_parts_it_cannot_import(variant, named):
    from rillet.converter import ModelError

    with pytest.raises(ModelError, match=named):
        to_graph(_runtime_lstm_models().lstm_model(**variant))


def test_argmax_pooling_indices_are_litert_tap_numbers():
    """The indices output as the uint32 tap numbers (fx * filter_h + fy) LiteRT stores in its float32 tensor,
    in LiteRT, rillet and the graph, bit for bit, through a file the converter wrote as the custom op."""
    g = rg.Graph()
    with g.as_default():
        x = ops.placeholder((2, 5, 7, 3), name="x")
        values, indices = ops.max_pool_with_argmax(x, (2, 3), "SAME")
    data = convert(inputs={"x": x}, outputs={"values": values, "indices": indices})
    assert [c.custom_code for c in load(data).operator_codes] == ["MaxPoolingWithArgmax2D"]
    xv = np.round(RNG.uniform(-3, 3, size=(2, 5, 7, 3))).astype(np.float32)  # many ties
    want = g.run(indices, {x: xv}).view(np.uint32)
    assert want.max() == 5 and len(np.unique(want)) == 6
    for cls in (LiteRTInterpreter, Interpreter):
        np.testing.assert_array_equal(_run(cls, data, {"x": xv})["indices"].view(np.uint32), want)
    np.testing.assert_array_equal(to_graph(data).run({"x": xv})["indices"].view(np.uint32), want)
