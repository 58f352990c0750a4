"""to_graph: TensorFlow-written float models import into graphs that reproduce LiteRT's outputs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter

from rillet.converter import ModelError, load
from rillet.converter.format.schema import BUILTIN_CODES
from rillet.converter.from_graph import convert
from rillet.converter.to_graph import to_graph
from rillet.graph import gradients, ops

from support import golden, model_path

FLOAT_MODELS = ["mlp_f32", "cnn_small_f32", "mobilenet_v2_035_96_f32"]


@pytest.mark.parametrize("name", FLOAT_MODELS)
def test_imported_graph_reproduces_the_golden_output(name):
    imported = to_graph(model_path(name))
    ref = golden(name)
    (x,), (y,) = imported.inputs, imported.outputs
    np.testing.assert_allclose(imported.run({x: ref["x"]})[y], ref["y"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", FLOAT_MODELS)
def test_imported_graph_converts_back_and_litert_agrees(name):
    imported = to_graph(model_path(name))
    ref = golden(name)
    (x,), (y,) = imported.inputs, imported.outputs
    data = convert(inputs=imported.inputs, outputs=imported.outputs)
    out = Interpreter(model_content=data).get_signature_runner("infer")(**{x: ref["x"]})
    np.testing.assert_allclose(out[y], ref["y"], rtol=1e-5, atol=1e-6)


def test_dynamic_batch_survives_import():
    imported = to_graph(model_path("cnn_small_f32"))
    (x,), (y,) = imported.inputs, imported.outputs
    xb = np.random.default_rng(3).uniform(-1, 1, size=(7, 28, 28, 1)).astype(np.float32)
    interp = Interpreter(model_path=str(model_path("cnn_small_f32")))
    interp.resize_tensor_input(interp.get_input_details()[0]["index"], xb.shape)
    interp.allocate_tensors()
    interp.set_tensor(interp.get_input_details()[0]["index"], xb)
    interp.invoke()
    want = interp.get_tensor(interp.get_output_details()[0]["index"])
    np.testing.assert_allclose(imported.run({x: xb})[y], want, rtol=1e-5, atol=1e-6)


def test_imported_weights_are_variables_that_train():
    imported = to_graph(model_path("mlp_f32"))
    (x,), (y,) = imported.inputs, imported.outputs
    g = imported.graph
    rng = np.random.default_rng(0)
    xb = rng.uniform(-1, 1, size=(1, 64)).astype(np.float32)
    with g.as_default():
        target = ops.constant(np.eye(10, dtype=np.float32)[3:4])
        loss = ops.reduce_sum(ops.squared_difference(imported.outputs[y], target))
        grads = gradients(loss, imported.variables)
        step = ops.group(*[v.assign(v.value - 0.5 * dv) for v, dv in zip(imported.variables, grads)])
    before = g.run(loss, {imported.inputs[x]: xb})
    for _ in range(5):
        g.run(step, {imported.inputs[x]: xb})
    assert g.run(loss, {imported.inputs[x]: xb}) < before


def test_unknown_signature_is_named():
    with pytest.raises(ModelError, match="no signature 'nope'"):
        to_graph(model_path("train_mlp"), signature="nope")


def test_ops_without_a_graph_op_are_listed():
    model = load(model_path("train_mlp"))
    k = next(k for k, c in enumerate(model.operator_codes) if c.builtin_code == BUILTIN_CODES["GREATER"])
    model.operator_codes[k] = dataclasses.replace(model.operator_codes[k], deprecated_builtin_code=32,
                                                  builtin_code=32, custom_code="NotAnOp")
    with pytest.raises(ModelError, match="rillet.graph has no op for: NotAnOp"):
        to_graph(model, signature="infer")


def test_a_fully_connected_that_keeps_its_leading_dimensions_imports_with_them():
    """A transformer's head: FULLY_CONNECTED on [1, 3, 4] with keep_num_dims makes [1, 3, 5] (LiteRT's); the
    import flattened it to [3, 5]. The file is the graph API's RESHAPE -> FULLY_CONNECTED -> RESHAPE with the
    two reshapes folded into the op's keep_num_dims."""
    from rillet.converter.format import save
    from rillet.converter.format.prune import drop_unused_tensors

    rs = np.random.default_rng(5)
    x = ops.placeholder([1, 3, 4], name="x")
    flat = ops.fully_connected(ops.reshape(x, [3, 4]), rs.normal(size=(5, 4)).astype(np.float32),
                               rs.normal(size=5).astype(np.float32))
    m = load(convert(inputs={"x": x}, outputs={"y": ops.reshape(flat, [1, 3, 5])}))
    sg = m.subgraphs[0]
    assert [m.op_name(op) for op in sg.operators] == ["RESHAPE", "FULLY_CONNECTED", "RESHAPE"]
    first, fc, last = sg.operators
    fc.inputs = [first.inputs[0], *fc.inputs[1:]]
    fc.outputs = last.outputs
    fc.builtin_options.keep_num_dims = True
    sg.operators = [fc]
    model = save(drop_unused_tensors(m))
    xv = rs.uniform(-1, 1, (1, 3, 4)).astype(np.float32)
    want = Interpreter(model_content=model).get_signature_runner("infer")(x=xv)["y"]
    assert want.shape == (1, 3, 5)
    imported = to_graph(model)
    (got,) = imported.run({"x": xv}).values()
    assert got.shape == (1, 3, 5)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
