"""to_graph on the files people ship: the name the README writes, a reduction over one axis given as a 0-d
tensor (TensorFlow writes it so), float16-weight models (a DEQUANTIZE widens each float16 constant) and a
RESHAPE whose shape is in its options only; each import is run and compared with LiteRT."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from single_op import Input, op_model, run

import rillet
import rillet.converter
from rillet.converter import load

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def litert(content: bytes, feeds: list[np.ndarray]) -> list[np.ndarray]:
    from ai_edge_litert.interpreter import Interpreter

    return run(Interpreter, content, feeds)


def assert_close(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape
    scale = max(float(np.abs(want).max()), 1e-30)
    assert float(np.abs(got - want).max()) / scale <= 1e-5


def test_rillet_converter_to_graph_is_the_function_the_readme_calls():
    imported = rillet.converter.to_graph(REAL / "sine_float.tflite")
    assert rillet.to_graph is rillet.converter.to_graph
    x = np.array([[1.25]], np.float32)
    (want,) = litert((REAL / "sine_float.tflite").read_bytes(), [x])
    assert_close(next(iter(imported.run({next(iter(imported.inputs)): x}).values())), want)


@pytest.mark.parametrize("op", ["MEAN", "SUM"])
@pytest.mark.parametrize("keep_dims", [False, True])
def test_a_reduction_over_a_0d_axis_tensor_imports(op, keep_dims):
    out_shape = (2, 1, 5) if keep_dims else (2, 5)
    content = op_model(op, [Input((2, 3, 5)), np.array(1, np.int32)], [(out_shape, np.float32)],
                       {"keep_dims": keep_dims})
    x = np.random.default_rng(0).standard_normal((2, 3, 5)).astype(np.float32)
    imported = rillet.converter.to_graph(content)
    (got,) = imported.run({"x0": x}).values()
    (want,) = litert(content, [x])
    assert_close(got, want)


def test_a_float16_weight_model_imports_with_its_weights_as_float32_variables():
    path = REAL / "face_detection_short_range.tflite"
    model = load(path)
    assert any(model.op_name(op) == "DEQUANTIZE" for op in model.subgraphs[0].operators)  # float16 weights
    imported = rillet.converter.to_graph(path)
    assert imported.variables and all(v.initial_value.dtype == np.float32 for v in imported.variables)
    x = np.random.default_rng(1).uniform(-1, 1, (1, 128, 128, 3)).astype(np.float32)
    got = imported.run({"input": x})
    want = litert(path.read_bytes(), [x])
    for g, w in zip(got.values(), want):  # regressors, classificators; its RESHAPEs carry their shape in options
        assert_close(g, w)
