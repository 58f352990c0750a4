"""convert(): graphs become .tflite files that LiteRT runs with graph.run's results (rtol 1e-5)."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter

import rillet as rl
from rillet.converter import ModelError, load
from rillet.converter.from_graph import convert
from rillet.graph import REGISTRY, Graph, OpDef, Variable, ops

RNG = np.random.default_rng(0)


def normal(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def litert_infer(data: bytes, **feeds) -> dict:
    return Interpreter(model_content=data).get_signature_runner("infer")(**feeds)


def assert_litert_matches_graph(graph, inputs: dict, outputs: dict, feeds: dict) -> bytes:
    data = convert(inputs=inputs, outputs=outputs)
    got = litert_infer(data, **feeds)
    want = graph.run(outputs, {inputs[k]: v for k, v in feeds.items()})
    for name in outputs:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6, err_msg=name)
    return data


def small_cnn(graph):
    with graph.as_default():
        x = ops.placeholder((None, 8, 8, 1), name="image")
        h = ops.conv2d(x, normal(4, 3, 3, 1), normal(4), padding="SAME")
        h = h * RNG.uniform(0.5, 2, size=4).astype(np.float32) + normal(4)  # batch norm, inference mode
        h = ops.max_pool2d(ops.relu(h), 2)
        h = ops.relu6(ops.depthwise_conv2d(h, normal(1, 3, 3, 4), padding="SAME"))
        h = ops.fully_connected(ops.reshape(h, (None, 64)), normal(10, 64), normal(10))
        return x, ops.softmax(h)


def test_cnn_converts_with_folding_and_fusion():
    g = Graph()
    x, y = small_cnn(g)
    feeds = {"image": RNG.uniform(0, 16, size=(1, 8, 8, 1)).astype(np.float32)}
    data = assert_litert_matches_graph(g, {"image": x}, {"probs": y}, feeds)
    model = load(data)
    sg = model.subgraphs[0]
    assert [model.op_name(op) for op in sg.operators] == [
        "CONV_2D", "MAX_POOL_2D", "DEPTHWISE_CONV_2D", "RESHAPE", "FULLY_CONNECTED", "SOFTMAX"]
    assert sg.operators[0].builtin_options.fused_activation_function == 1  # RELU
    assert sg.operators[2].builtin_options.fused_activation_function == 3  # RELU6
    (sig,) = model.signature_defs
    assert sig.signature_key == "infer"
    assert [t.name for t in sig.inputs] == ["image"] and [t.name for t in sig.outputs] == ["probs"]
    assert sg.tensors[sig.inputs[0].tensor_index].shape_signature == [-1, 8, 8, 1]
    assert all(model.op_name(op) not in ("SHAPE", "STRIDED_SLICE", "PACK") for op in sg.operators)


def test_dynamic_batch_runs_at_other_batch_sizes():
    g = Graph()
    x, y = small_cnn(g)
    data = convert(inputs={"image": x}, outputs={"probs": y})
    xb = RNG.uniform(0, 16, size=(7, 8, 8, 1)).astype(np.float32)
    np.testing.assert_allclose(litert_infer(data, image=xb)["probs"], g.run(y, {x: xb}), rtol=1e-5, atol=1e-6)


def test_constant_subgraphs_are_folded_and_dead_nodes_dropped():
    g = Graph()
    with g.as_default():
        x = ops.placeholder((2, 3), name="x")
        w = ops.constant(normal(3, 3)) * 2.0 + 1.0  # all constant: computed once by the converter
        unused = ops.exp(x)  # noqa: F841 -- a branch no output needs
        y = ops.batch_matmul(x, w)
    data = assert_litert_matches_graph(g, {"x": x}, {"y": y}, {"x": normal(2, 3)})
    model = load(data)
    assert [model.op_name(op) for op in model.subgraphs[0].operators] == ["BATCH_MATMUL"]


def test_variables_are_frozen_at_their_current_value():
    g = Graph()
    with g.as_default():
        x = ops.placeholder((1, 4), name="x")
        w = Variable(normal(3, 4), name="w")
        y = ops.fully_connected(x, w)
    feeds = {"x": normal(1, 4)}
    assert_litert_matches_graph(g, {"x": x}, {"y": y}, feeds)
    w.load(np.zeros((3, 4), np.float32))
    np.testing.assert_array_equal(litert_infer(convert(inputs={"x": x}, outputs={"y": y}), **feeds)["y"], 0)


def test_unconvertible_nodes_are_listed_all_at_once(monkeypatch):
    # An op with no TFLite lowering, registered for this test only (the registry is global).
    monkeypatch.setitem(REGISTRY, "TEST_NO_TFLITE",
                        OpDef("TEST_NO_TFLITE", infer=lambda a, s: [s[0]], numpy=lambda a, x: x))
    g = Graph()
    with g.as_default():
        x = ops.placeholder((1, 4), name="x")
        a = g.add_node("TEST_NO_TFLITE", [x], name="first").outputs[0]
        b = g.add_node("TEST_NO_TFLITE", [ops.relu(a)], name="second").outputs[0]
    with pytest.raises(ModelError, match=r'(?s)cannot convert 2 node\(s\).*"first": has no TFLite lowering'
                                         r'.*"second": has no TFLite lowering'):
        convert(inputs={"x": x}, outputs={"y": b})


def test_placeholder_missing_from_inputs_is_named():
    g = Graph()
    with g.as_default():
        x = ops.placeholder((1, 4), name="x")
        z = ops.placeholder((1, 4), name="z")
        y = x + z
    with pytest.raises(ModelError, match='placeholder "z" is not among the model inputs'):
        convert(inputs={"x": x}, outputs={"y": y})


# One line per op: (builder applied to the input placeholder, input shape, input range).
POSITIVE = (0.1, 4.0)
UNIT = (-1.0, 1.0)
WIDE = (-8.0, 8.0)
SINGLE_OP_CASES = {
    "relu": (ops.relu, (2, 5), WIDE),
    "relu6": (ops.relu6, (2, 5), WIDE),
    "leaky_relu": (lambda x: ops.leaky_relu(x, alpha=0.3), (2, 5), WIDE),
    "logistic": (ops.sigmoid, (2, 5), WIDE),
    "tanh": (ops.tanh, (2, 5), WIDE),
    "hard_swish": (ops.hard_swish, (2, 5), WIDE),
    "softmax": (lambda x: ops.softmax(x, beta=0.5), (3, 7), WIDE),
    "log_softmax": (ops.log_softmax, (3, 7), WIDE),
    "exp": (ops.exp, (2, 5), UNIT),
    "log": (ops.log, (2, 5), POSITIVE),
    "rsqrt": (ops.rsqrt, (2, 5), POSITIVE),
    "neg": (ops.neg, (2, 5), WIDE),
    "add": (lambda x: x + normal(5), (2, 5), WIDE),
    "sub": (lambda x: x - normal(2, 1), (2, 5), WIDE),
    "mul": (lambda x: x * normal(5), (2, 5), WIDE),
    "div": (lambda x: x / RNG.uniform(1, 2, size=5).astype(np.float32), (2, 5), WIDE),
    "squared_difference": (lambda x: ops.squared_difference(x, normal(5)), (2, 5), WIDE),
    "greater": (lambda x: ops.cast(ops.greater(x, normal(5)), "float32"), (2, 5), WIDE),
    "mean": (lambda x: ops.reduce_mean(x, axes=[1, 2], keepdims=True), (2, 3, 4, 5), WIDE),
    "sum": (lambda x: ops.reduce_sum(x, axes=[1]), (2, 3, 4), WIDE),
    "concatenation": (lambda x: ops.concat([x, x * 2.0], axis=1), (2, 3), WIDE),
    "pad": (lambda x: ops.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]), (1, 3, 3, 2), WIDE),
    "reshape": (lambda x: ops.reshape(x, (3, 8)), (2, 3, 4), WIDE),
    "squeeze": (lambda x: ops.squeeze(x, [1]), (2, 1, 4), WIDE),
    "expand_dims": (lambda x: ops.expand_dims(x, 1), (2, 4), WIDE),
    "transpose": (lambda x: ops.transpose(x, [0, 2, 1]), (2, 3, 4), WIDE),
    "strided_slice": (lambda x: ops.strided_slice(x, [0, 1], [2, 4], [1, 2]), (2, 5), WIDE),
    "slice": (lambda x: ops.slice_(x, [0, 1], [2, 3]), (2, 5), WIDE),
    "gather": (lambda x: ops.gather(x, np.array([2, 0, 2], np.int32), axis=1), (2, 5), WIDE),
    "pack": (lambda x: ops.pack([x, x * 3.0], axis=1), (2, 5), WIDE),
    "batch_matmul": (lambda x: ops.batch_matmul(x, normal(2, 5, 3)), (2, 4, 5), WIDE),
    "avg_pool": (lambda x: ops.avg_pool2d(x, 3, strides=2, padding="SAME"), (1, 7, 7, 2), WIDE),
    "max_pool": (lambda x: ops.max_pool2d(x, 2, padding="VALID"), (1, 6, 6, 2), WIDE),
    "conv_strided_dilated": (lambda x: ops.conv2d(x, normal(3, 3, 3, 2), normal(3), strides=2, dilations=1,
                                                  padding="SAME"), (1, 9, 9, 2), WIDE),
    "conv_dilated": (lambda x: ops.conv2d(x, normal(3, 3, 3, 2), padding="VALID", dilations=2),
                     (1, 9, 9, 2), WIDE),
    "depthwise_multiplier": (lambda x: ops.depthwise_conv2d(x, normal(1, 3, 3, 4), padding="SAME", depth_multiplier=2),
                             (1, 6, 6, 2), WIDE),
    "resize_bilinear": (lambda x: ops.resize_bilinear(x, (7, 5), half_pixel_centers=True), (1, 4, 3, 2), WIDE),
    "resize_bilinear_corners": (lambda x: ops.resize_bilinear(x, (7, 5), align_corners=True), (1, 4, 3, 2), WIDE),
    "resize_nearest": (lambda x: ops.resize_nearest(x, (8, 6)), (1, 4, 3, 2), WIDE),
}


@pytest.mark.parametrize("case", sorted(SINGLE_OP_CASES))
def test_single_op_matches_litert(case):
    build, shape, (low, high) = SINGLE_OP_CASES[case]
    g = Graph()
    with g.as_default():
        x = ops.placeholder(shape, name="x")
        y = build(x)
    feeds = {"x": RNG.uniform(low, high, size=shape).astype(np.float32)}
    assert_litert_matches_graph(g, {"x": x}, {"y": y}, feeds)


def test_layer_model_converts_with_batch_norm_folded():
    from rillet.graph import Model
    from rillet.graph import layers as L

    g = Graph()
    with g.as_default():
        x = L.Input((8, 8, 1), name="image")
        h = L.Activation("relu")(L.BatchNormalization()(L.Conv2D(4, 3, padding="same")(x)))
        h = L.Dropout(0.3)(L.Flatten()(L.MaxPool2D()(h)))
        model = Model({"image": x}, {"logits": L.Dense(10)(h)})
    for var in model.variables:  # move the batch-norm statistics off their initial 0 / 1
        var.load(var.numpy() + RNG.uniform(0.1, 0.5, size=var.shape).astype(var.dtype))
    xb = RNG.uniform(0, 16, size=(2, 8, 8, 1)).astype(np.float32)
    data = rl.convert(model)  # the facade, as a user calls it
    got = litert_infer(data, image=xb)["logits"]
    np.testing.assert_allclose(got, model.predict({"image": xb})["logits"], rtol=1e-5, atol=1e-5)
    ops_written = [load(data).op_name(op) for op in load(data).subgraphs[0].operators]
    assert ops_written == ["CONV_2D", "MAX_POOL_2D", "RESHAPE", "FULLY_CONNECTED"]
