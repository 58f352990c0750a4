"""A frozen int8 feature extractor under a float, trainable head (TrainSpec(frozen_int8=calibration)): the
convolutions run int8 between a QUANTIZE and a DEQUANTIZE in `infer` and `train`, the head trains in float,
and rillet's runtime and LiteRT (signature runners) agree: 20 steps' losses and weights within 1e-5, every
int8 tensor of the extractor bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT

import rillet as rl
from rillet.converter import load
from rillet.graph import Graph, optimizers
from rillet.graph import layers as L
from rillet.quant.frozen import quantize_frozen
from rillet.quant.rewrite import QuantizationError
from rillet.runtime import Interpreter

STEPS = 20
BATCH = 8
INT8 = 9  # TensorType


def cnn(graph: Graph, dropout: bool = False) -> L.Model:
    """A frozen extractor (conv, batch norm, pooling, depthwise conv) and a two-layer trainable head."""
    with graph.as_default():
        L.set_seed(5)
        x = L.Input([10, 10, 2], name="image")
        h = L.Conv2D(6, 3, strides=2, padding="same", use_bias=False, name="conv")(x)
        h = L.BatchNormalization(name="bn")(h)
        h = L.MaxPool2D(2, strides=1, name="max_pool")(L.ReLU(name="relu")(h))
        h = L.DepthwiseConv2D(3, padding="same", activation="relu6", name="depthwise")(h)
        h = L.AveragePool2D(2, name="avg_pool")(h)
        h = L.Flatten(name="flatten")(h)
        if dropout:
            h = L.Dropout(0.2, seed=3, name="dropout")(h)
        h = L.Dense(12, activation="relu", name="hidden")(h)
        return L.Model(x, L.Dense(5, name="head")(h))


def images(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, 10, 10, 2)).astype(np.float32)


def training_file(optimizer, dropout: bool = False) -> bytes:
    spec = rl.TrainSpec("softmax_cross_entropy", optimizer, trainable=["hidden", "head"], label_dtype="int32",
                        frozen_int8=images(0, 64))
    return rl.convert(cnn(Graph(), dropout), train=spec)


def train(interpreter, seed: int = 1) -> tuple[list[float], dict[str, np.ndarray]]:
    rs = np.random.default_rng(seed)
    step = interpreter.get_signature_runner("train")
    losses = [float(step(image=images(seed + k, BATCH), y=rs.integers(0, 5, BATCH).astype(np.int32))["loss"])
              for k in range(STEPS)]
    return losses, interpreter.get_signature_runner("save")()


@pytest.mark.parametrize("optimizer", [optimizers.Adam(0.01), optimizers.Momentum(0.05, momentum=0.9)],
                         ids=["adam", "momentum"])
def test_twenty_steps_match_litert(optimizer):
    data = training_file(optimizer)
    ours, theirs = train(Interpreter(model_content=data)), train(LiteRT(model_content=data))
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    assert sorted(ours[1]) == sorted(theirs[1])
    for name, value in ours[1].items():
        np.testing.assert_allclose(value, theirs[1][name], rtol=1e-5, atol=1e-6, err_msg=name)
    assert ours[0][-1] < ours[0][0]  # it trains


def test_the_extractor_is_int8_and_the_head_float():
    g = Graph()
    float_file = rl.convert(cnn(g), train=rl.TrainSpec("softmax_cross_entropy", optimizers.Adam(0.01),
                                                       trainable=["hidden", "head"], label_dtype="int32"))
    data = quantize_frozen(float_file, images(0, 64))
    m = load(data)
    for name in ("infer", "train"):
        sg = next(sg for sg in m.subgraphs if sg.name == name)
        ops = [(m.op_name(op), sg.tensors[op.outputs[0]].type if op.outputs else None) for op in sg.operators]
        assert ops.count(("QUANTIZE", INT8)) == 1
        int8_ops = {op for op, out in ops if out == INT8}
        assert {"CONV_2D", "DEPTHWISE_CONV_2D", "MAX_POOL_2D", "AVERAGE_POOL_2D"} <= int8_ops
        assert ("CONV_2D", 0) not in ops and ("DEPTHWISE_CONV_2D", 0) not in ops  # no float convolution left
        assert ("DEQUANTIZE", 0) in ops and ("FULLY_CONNECTED", 0) in ops  # the head reads float features
    assert [sd.signature_key for sd in m.signature_defs] == ["infer", "train", "save", "restore"]
    # the float filters left the file, the int8 ones are stored once for both signatures
    kernels = [t for sg in m.subgraphs for t in sg.tensors if t.name == "conv/kernel"]
    assert len(kernels) == 2 and {t.type for t in kernels} == {INT8} and len({t.buffer for t in kernels}) == 1
    # and TrainSpec(frozen_int8=...) writes the same file
    assert rl.convert(cnn(Graph()), train=rl.TrainSpec(
        "softmax_cross_entropy", optimizers.Adam(0.01), trainable=["hidden", "head"], label_dtype="int32",
        frozen_int8=images(0, 64))) == data


@pytest.mark.filterwarnings("ignore:Warning. Enabling `experimental_preserve_all_tensors`")
def test_int8_tensors_of_the_extractor_are_litert_bits():
    data = training_file(optimizers.SGD(0.1))
    m = load(data)
    infer = m.subgraphs[0]
    int8_tensors = [i for i, t in enumerate(infer.tensors) if t.type == INT8 and t.buffer == 0]
    assert len(int8_tensors) >= 6
    x = images(9, 4)
    seen = []
    for cls in (Interpreter, LiteRT):
        it = cls(model_content=data, experimental_preserve_all_tensors=True)
        it.resize_tensor_input(it.get_input_details()[0]["index"], x.shape)
        it.allocate_tensors()
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()  # subgraph 0 is `infer`
        seen.append({i: it.get_tensor(i) for i in int8_tensors})
    for i in int8_tensors:
        assert seen[0][i].dtype == np.int8 and seen[0][i].tobytes() == seen[1][i].tobytes(), infer.tensors[i].name


def test_a_frozen_part_that_trains_differently_is_refused():
    with pytest.raises(QuantizationError, match="computes the frozen part differently"):
        training_file(optimizers.SGD(0.1), dropout=True)


def test_files_without_a_frozen_part_are_refused_by_name():
    g = Graph()
    with g.as_default():
        L.set_seed(2)
        x = L.Input([6], name="x")
        model = L.Model(x, L.Dense(3, name="head")(L.Dense(4, name="hidden")(x)))
    every_layer_trained = rl.convert(model, train=rl.TrainSpec("mean_squared_error", optimizers.SGD(0.1)))
    with pytest.raises(QuantizationError, match="no frozen part"):
        quantize_frozen(every_layer_trained, np.zeros((4, 6), np.float32))
    with pytest.raises(QuantizationError, match="no resource variables"):
        quantize_frozen(rl.convert(model), np.zeros((4, 6), np.float32))


def test_keep_float_leaves_an_op_of_the_extractor_float():
    g = Graph()
    with g.as_default():
        L.set_seed(1)
        x = L.Input([8], name="x")
        h = L.Dense(6, activation="log_softmax", name="frozen")(x)
        model = L.Model(x, L.Dense(3, name="head")(h))
    data = rl.convert(model, train=rl.TrainSpec("mean_squared_error", optimizers.SGD(0.1), trainable=["head"]))
    calibration = np.random.default_rng(0).normal(size=(32, 8)).astype(np.float32)
    m = load(quantize_frozen(data, calibration, keep_float=["LOG_SOFTMAX"]))
    sg = m.subgraphs[0]
    ops = [(m.op_name(op), sg.tensors[op.outputs[0]].type) for op in sg.operators if op.outputs]
    assert ops[:4] == [("QUANTIZE", INT8), ("FULLY_CONNECTED", INT8), ("DEQUANTIZE", 0), ("LOG_SOFTMAX", 0)]
