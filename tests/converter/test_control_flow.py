"""Control flow in the graph API: IF, WHILE and CALL_ONCE call graph Functions, lower to the same builtins with
each function a subgraph of its own, and `to_graph` imports them back. A TensorFlow model with all three (and a
state its CALL_ONCE initialises) round-trips with LiteRT's outputs over invokes that carry the state."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rillet.graph as rg
from rillet.converter import load
from rillet.converter.from_graph import convert
from rillet.converter.to_graph import to_graph
from rillet.graph import ops
from rillet.runtime import Interpreter

litert = pytest.importorskip("ai_edge_litert.interpreter")

MODELS = Path(__file__).resolve().parents[1] / "data" / "models"
CONTROL_FLOW = Path(__file__).resolve().parents[1] / "data" / "control_flow"


def _runners(data: bytes, key: str = "infer") -> dict:
    return {name: cls(model_content=data).get_signature_runner(key)
            for name, cls in (("rillet", Interpreter), ("litert", litert.Interpreter))}


def test_a_tensorflow_model_with_if_while_and_call_once_round_trips():
    """control_flow_f32 (make_control_flow.py): IF and WHILE before two dense layers, a state the CALL_ONCE
    initialiser zeroes and each invoke adds to; three invokes give LiteRT's outputs of the original, in the
    graph, and from the exported file in rillet and LiteRT."""
    path = CONTROL_FLOW / "control_flow_f32.tflite"
    golden = np.load(CONTROL_FLOW / "control_flow_f32.npz")
    original = load(path)
    assert {"IF", "WHILE", "CALL_ONCE"} <= {original.op_name(op) for op in original.subgraphs[0].operators}
    imported = to_graph(path)
    assert [n.op for n in imported.effects] == ["CALL_ONCE", "ASSIGN_VARIABLE"]
    data = convert(inputs=imported.inputs, outputs=imported.outputs, run=imported.effects)
    exported = load(data)
    assert sorted(exported.op_name(op) for sg in exported.subgraphs for op in sg.operators
                  if exported.op_name(op) in ("IF", "WHILE", "CALL_ONCE")) == ["CALL_ONCE", "IF", "WHILE"]
    runners = _runners(data)
    for x, want in zip(golden["x"], golden["probabilities"]):
        np.testing.assert_allclose(imported.run({"x": x})["probabilities"], want, rtol=1e-5, atol=1e-7)
        for name, runner in runners.items():
            np.testing.assert_allclose(runner(x=x)["probabilities"], want, rtol=1e-5, atol=1e-7, err_msg=name)


def test_a_training_files_infer_imports_with_its_call_once_initialiser():
    """train_mlp's `infer` reads its weights from resource variables that CALL_ONCE's subgraph assigns: they
    stay resources, and the export gives the original's outputs."""
    path = MODELS / "train_mlp.tflite"
    x = np.random.default_rng(0).uniform(-1, 1, (8, 64)).astype(np.float32)
    want = litert.Interpreter(model_path=str(path)).get_signature_runner("infer")(x=x)["output"]
    imported = to_graph(path, signature="infer")
    np.testing.assert_allclose(imported.run({"x": x})["output"], want, rtol=1e-5, atol=1e-7)
    data = convert(inputs=imported.inputs, outputs=imported.outputs, run=imported.effects)
    for name, runner in _runners(data).items():
        np.testing.assert_allclose(runner(x=x)["output"], want, rtol=1e-5, atol=1e-7, err_msg=name)


def test_call_once_runs_its_initialiser_once_per_state():
    g = rg.Graph()
    with g.as_default():
        counter = rg.Variable(np.float32(0.0), name="counter", trainable=False)

        def init():
            handle = ops.var_handle("calls", (), "float32", graph=rg.get_default_graph())
            return [rg.get_default_graph().add_node("ASSIGN_VARIABLE", [handle, ops.constant(np.float32(5.0))])]

        once = ops.call_once(init)
        step = counter.assign(counter.value + 1.0)
    for _ in range(3):
        g.run([once, step])
    assert g.store["calls"] == 5.0 and counter.numpy() == 3.0
    g.store["calls"] = np.float32(-1.0)
    g.run(once)
    assert g.store["calls"] == -1.0  # not run again


def test_nested_control_flow_writes_each_function_once_and_runs():
    """A WHILE whose body holds an IF: the body's subgraph calls the branches' subgraphs."""
    g = rg.Graph()
    with g.as_default():
        x = ops.placeholder((3,), name="x")

        def body(i, v):
            odd = ops.equal(ops.floor_mod(i, np.int32(2)), np.int32(1))
            return [i + np.int32(1), ops.if_(odd, lambda a: a * 0.5, lambda a: a + 1.0, v)]

        _, y = ops.while_loop(lambda i, v: ops.less(i, np.int32(5)), body, [ops.constant(np.int32(0)), x])
    data = convert(inputs={"x": x}, outputs={"y": y})
    assert len(load(data).subgraphs) == 5  # infer, the condition, the body, the two branches
    xv = np.array([1.0, -2.0, 3.5], np.float32)
    want = (((((xv + 1) * 0.5) + 1) * 0.5) + 1)
    np.testing.assert_allclose(g.run(y, {x: xv}), want, rtol=1e-6)
    for name, runner in _runners(data).items():
        np.testing.assert_allclose(runner(x=xv)["y"], want, rtol=1e-6, err_msg=name)
    np.testing.assert_allclose(to_graph(data).run({"x": xv})["y"], want, rtol=1e-6)


def test_control_flow_errors_name_the_function():
    g = rg.Graph()
    with g.as_default():
        x = ops.placeholder((2,), name="x")
        c = ops.greater(ops.reduce_sum(x), np.float32(0))
        with pytest.raises(ValueError, match="IF's branches differ"):
            ops.if_(c, lambda a: a, lambda a: ops.reduce_sum(a), x)
        with pytest.raises(ValueError, match="belongs to another graph"):
            ops.if_(c, lambda a: a + x, lambda a: a, x)  # a function sees its arguments only
        with pytest.raises(ValueError, match="the condition must be one bool"):
            ops.if_(ops.greater(x, np.float32(0)), lambda a: a, lambda a: a, x)
        with pytest.raises(ValueError, match='WHILE condition "cond" must give one bool'):
            ops.while_loop(lambda v: v, lambda v: v, [x])
