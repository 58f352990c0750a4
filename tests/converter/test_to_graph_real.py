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


def test_a_prelu_model_imports_with_its_slopes_as_variables():
    path = REAL / "hand_recrop.tflite"
    imported = rillet.converter.to_graph(path)
    assert any(n.op == "PRELU" for n in imported.graph.nodes)
    slopes = {n.inputs[1].node.inputs[0].node.attrs["shared_name"] for n in imported.graph.nodes if n.op == "PRELU"}
    assert slopes <= {v.name for v in imported.variables}  # the slopes train like the weights
    name = next(iter(imported.inputs))
    x = np.random.default_rng(2).uniform(-1, 1, imported.inputs[name].shape).astype(np.float32)
    got = imported.run({name: x})
    want = litert(path.read_bytes(), [x])
    for g, w in zip(got.values(), want):
        assert_close(g, w)


# Fetched float models that LiteRT runs and to_graph cannot import: custom ops neither runtime has.
# (openWakeWord's hey_jarvis imports with its IF as a graph op, both branches graph Functions.)
NOT_IMPORTED = {"face_landmark_with_attention.tflite"}


@pytest.mark.real_models
def test_every_fetched_float_model_imports_and_matches_litert():
    """bench/real_models.py's cache (pytest -m real_models): each float model's import, run on the numpy
    reference, against LiteRT on the same random inputs. 1e-3 relative: the numpy reference sums in float32
    in another order than XNNPACK, which grows to 1.6e-4 through pose_landmark_full's 39 layers; an op
    imported wrongly is off by far more."""
    import os

    from ai_edge_litert.interpreter import Interpreter

    cache = Path(os.environ.get("RILLET_REAL_MODELS", Path.home() / ".cache" / "rillet-real-models"))
    paths = {p.name: p for p in sorted(cache.rglob("*.tflite"))}
    if not paths:
        pytest.skip(f"no fetched models in {cache} (run bench/real_models.py)")
    imported_count = 0
    for name, path in paths.items():
        model = load(path)
        if any(t.quantization is not None and t.quantization.scale is not None and len(t.quantization.scale)
               and t.dtype.kind in "iu" for t in model.subgraphs[0].tensors) or name in NOT_IMPORTED:
            continue
        imported = rillet.converter.to_graph(path)
        it = Interpreter(model_path=str(path))
        rs = np.random.default_rng(0)
        dynamic = any(-1 in (d["shape_signature"] if len(d["shape_signature"]) else [])
                      for d in it.get_input_details())
        if model.signature_defs and not dynamic:  # keyed by the signature's names, as to_graph keys them
            runner = it.get_signature_runner(model.signature_defs[0].signature_key)
            feeds = {k: rs.uniform(-1, 1, d["shape"]).astype(d["dtype"])
                     for k, d in runner.get_input_details().items()}
            want = runner(**feeds)
            outputs = imported.run(feeds)
        else:
            details = it.get_input_details()
            feeds = []
            for d in details:
                shape = [v if v != -1 else (1 if k == 0 else 1280) for k, v in enumerate(d["shape_signature"])]
                if list(shape) != list(d["shape"]):
                    it.resize_tensor_input(d["index"], shape)
                feeds.append(rs.uniform(-1, 1, shape).astype(d["dtype"]))
            it.allocate_tensors()
            for d, x in zip(details, feeds):
                it.set_tensor(d["index"], x)
            it.invoke()
            outputs = imported.run(dict(zip(imported.inputs, feeds)))
            if model.signature_defs:  # to_graph keys the outputs by the signature's names
                want = {tm.name: it.get_tensor(tm.tensor_index) for tm in model.signature_defs[0].outputs}
            else:
                want = dict(zip(outputs, (it.get_tensor(i) for i in model.subgraphs[0].outputs)))
        for key, w in want.items():
            scale = max(float(np.abs(w).max()), 1e-30)
            # plus 1e-7 absolute: a sigmoid's 6e-10 "no pose" output differs in its 5th digit
            assert float(np.abs(outputs[key] - w).max()) <= 1e-3 * scale + 1e-7, (name, key)
        imported_count += 1
    assert imported_count >= 20
