"""A signature runner prepares its own subgraph only, at its first call after its inputs are resized, as
LiteRT's does (AllocateTensors(subgraph_index)): a model whose every signature's default input shape is too
small for its ops (openWakeWord's melspectrogram: [1, 1] before a 512-wide window) runs each signature at a
shape that fits, though the other signatures' plans could not be prepared at their defaults."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert import interpreter as litert
from single_op import OPTIONS_TYPES

from rillet.converter.format import (
    BUILTIN_CODES,
    Buffer,
    ModelFile,
    Operator,
    OperatorCode,
    Options,
    SignatureDef,
    SubGraph,
    Tensor,
    TensorMap,
    save,
)
from rillet.runtime import Interpreter

WINDOWS = {"wide": 4, "narrow": 3}  # each signature's CONV_2D window width


def _model() -> bytes:
    """Two signatures, one subgraph each: x [1, 1, W, 1] (W dynamic, 1 in the file) -> CONV_2D with a 1xK
    VALID window -> y. At the file's W = 1 neither subgraph can be prepared."""
    buffers = [Buffer(data=None)]
    subgraphs, signatures = [], []
    rs = np.random.default_rng(3)
    for k, (key, width) in enumerate(WINDOWS.items()):
        weights = rs.standard_normal((1, 1, width, 1)).astype(np.float32)
        bias = rs.standard_normal(1).astype(np.float32)
        buffers.append(Buffer(data=np.frombuffer(weights.tobytes(), np.uint8)))
        buffers.append(Buffer(data=np.frombuffer(bias.tobytes(), np.uint8)))
        tensors = [
            Tensor(shape=[1, 1, 1, 1], shape_signature=[1, 1, -1, 1], type=0, buffer=0, name=f"{key}_x"),
            Tensor(shape=[1, 1, width, 1], type=0, buffer=len(buffers) - 2, name=f"{key}_w"),
            Tensor(shape=[1], type=0, buffer=len(buffers) - 1, name=f"{key}_b"),
            Tensor(shape=[1, 1, 1, 1], shape_signature=[1, 1, -1, 1], type=0, buffer=0, name=f"{key}_y"),
        ]
        conv = Operator(opcode_index=0, inputs=[0, 1, 2], outputs=[3],
                        builtin_options=Options(OPTIONS_TYPES["CONV_2D"], padding=1, stride_w=1, stride_h=1,
                                                dilation_w_factor=1, dilation_h_factor=1))
        subgraphs.append(SubGraph(tensors=tensors, inputs=[0], outputs=[3], operators=[conv], name=key))
        signatures.append(SignatureDef(inputs=[TensorMap(name="x", tensor_index=0)],
                                       outputs=[TensorMap(name="y", tensor_index=3)],
                                       signature_key=key, subgraph_index=k))
    return save(ModelFile(
        operator_codes=[OperatorCode(deprecated_builtin_code=BUILTIN_CODES["CONV_2D"],
                                     builtin_code=BUILTIN_CODES["CONV_2D"], version=1)],
        subgraphs=subgraphs, buffers=buffers, signature_defs=signatures))


def _x(width: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((1, 1, width, 1)).astype(np.float32)


def test_each_runner_prepares_its_own_subgraph_at_a_shape_that_fits() -> None:
    content = _model()
    ours, theirs = Interpreter(model_content=content), litert.Interpreter(model_content=content)
    calls = [("wide", 9), ("narrow", 5), ("wide", 9), ("wide", 7), ("narrow", 5)]
    for step, (key, width) in enumerate(calls):
        x = _x(width, step)
        got = ours.get_signature_runner(key)(x=x)["y"]
        want = theirs.get_signature_runner(key)(x=x)["y"]
        assert got.shape == (1, 1, width - WINDOWS[key] + 1, 1)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_the_file_shape_fails_where_litert_fails() -> None:
    """At W = 1 the runner's call fails in both (naming the op in rillet), and allocate_tensors too (LiteRT's
    prepares the first subgraph, which cannot be prepared); a later call at a shape that fits works."""
    content = _model()
    ours, theirs = Interpreter(model_content=content), litert.Interpreter(model_content=content)
    for it in (ours, theirs):
        with pytest.raises(RuntimeError):
            it.allocate_tensors()
        with pytest.raises((RuntimeError, ValueError)):
            it.get_signature_runner("narrow")(x=_x(1, 0))
    with pytest.raises(RuntimeError, match="CONV_2D op 0 .*window"):
        ours.get_signature_runner("wide")(x=_x(1, 0))
    x = _x(6, 1)
    np.testing.assert_allclose(ours.get_signature_runner("narrow")(x=x)["y"],
                               theirs.get_signature_runner("narrow")(x=x)["y"], rtol=1e-5, atol=1e-6)


def test_a_prepared_signature_stays_prepared_while_another_is_resized() -> None:
    """Resizing one signature's input leaves the other's plan (and its cached views) valid."""
    ours = Interpreter(model_content=_model())
    wide, narrow = ours.get_signature_runner("wide"), ours.get_signature_runner("narrow")
    first = wide(x=_x(8, 2))["y"]
    narrow(x=_x(4, 3))
    narrow(x=_x(10, 4))
    np.testing.assert_array_equal(wide(x=_x(8, 2))["y"], first)
    ours.invoke()  # subgraph 0 ("wide") is prepared, at the runner's shape, as LiteRT's primary subgraph is
    np.testing.assert_array_equal(ours.get_tensor(3), first)


def test_a_runner_called_again_and_again_checks_what_changed() -> None:
    """After its first call a runner copies straight into the input views that call found: every later call
    with the same names, shapes and types must still give LiteRT's answer, and anything else (a list, another
    dtype, a new shape, a wrong name, a resize between calls) the checked path's answer or its error."""
    content = _model()
    ours, theirs = Interpreter(model_content=content), litert.Interpreter(model_content=content)
    runner, peer = ours.get_signature_runner("wide"), theirs.get_signature_runner("wide")

    def same(x) -> None:
        got = runner(x=x)["y"]
        assert np.array_equal(got, peer(x=np.asarray(x, np.float32))["y"])
        got[...] = np.nan  # a copy: the next call cannot see it

    for step in range(3):
        same(_x(9, step))
    same(memoryview(_x(9, 5)))  # not an ndarray: the checked path converts it
    same(_x(7, 6))  # a new shape: resized and prepared again
    same(_x(7, 7))
    with pytest.raises(ValueError, match="Invalid Input name"):
        runner(z=_x(7, 8))
    with pytest.raises(ValueError, match="Invalid number of inputs"):
        runner(x=_x(7, 8), z=_x(7, 8))
    with pytest.raises(ValueError, match="FLOAT64"):
        runner(x=_x(7, 8).astype(np.float64))
    ours.resize_tensor_input(ours.get_signature_runner("wide").get_input_details()["x"]["index"], [1, 1, 9, 1])
    same(_x(7, 9))  # prepared again: no view kept for the runner blocks it
    ours.get_signature_runner("narrow")(x=_x(5, 10))  # another runner's plan; this one's views stay valid
    same(_x(7, 11))
