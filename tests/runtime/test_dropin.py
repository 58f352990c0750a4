"""rillet's Interpreter is a drop-in for LiteRT's: the same test bodies run against both."""

from __future__ import annotations

import numpy as np
import pytest

import rillet.runtime

from support import golden, model_path

litert = pytest.importorskip("ai_edge_litert.interpreter")

DETAIL_KEYS = {"name", "index", "shape", "shape_signature", "dtype", "quantization", "quantization_parameters",
               "sparsity_parameters"}


@pytest.fixture(params=["litert", "rillet"])
def Interpreter(request):
    return litert.Interpreter if request.param == "litert" else rillet.runtime.Interpreter


def test_the_tflite_runtime_workflow(Interpreter):
    path = model_path("cnn_small_f32")
    g = golden("cnn_small_f32")
    for it in (Interpreter(model_path=str(path), num_threads=1), Interpreter(model_content=path.read_bytes())):
        it.allocate_tensors()
        (inp,), (out,) = it.get_input_details(), it.get_output_details()
        for d in (inp, out):
            assert DETAIL_KEYS <= set(d)
            assert d["shape"].dtype == np.int32 and d["shape_signature"].dtype == np.int32
            assert d["quantization"] == (0.0, 0)
            assert d["quantization_parameters"]["scales"].size == 0
            assert d["sparsity_parameters"] == {}
        assert inp["dtype"] is np.float32 and list(inp["shape"]) == [1, 28, 28, 1]
        assert list(inp["shape_signature"]) == [-1, 28, 28, 1]
        it.set_tensor(inp["index"], g["x"])
        it.invoke()
        y = it.get_tensor(out["index"])
        np.testing.assert_allclose(y, g["y"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(it.tensor(out["index"])(), y, rtol=0, atol=0)
        assert len(it.get_tensor_details()) == 21

        with pytest.raises(ValueError):
            it.set_tensor(inp["index"], g["x"].astype(np.float64))
        with pytest.raises(ValueError):
            it.set_tensor(inp["index"], np.zeros((2, 28, 28, 1), np.float32))
        with pytest.raises(ValueError):
            it.get_tensor(999)


def test_signatures_and_resize(Interpreter):
    it = Interpreter(model_path=str(model_path("cnn_small_f32")))
    assert it.get_signature_list() == {"serving_default": {"inputs": ["keras_tensor_3"], "outputs": ["output_0"]}}
    runner = it.get_signature_runner()
    assert set(runner.get_input_details()) == {"keras_tensor_3"}
    assert set(runner.get_output_details()) == {"output_0"}
    x = np.random.default_rng(3).uniform(-1, 1, (7, 28, 28, 1)).astype(np.float32)
    y = runner(keras_tensor_3=x)["output_0"]
    assert y.shape == (7, 10)
    np.testing.assert_allclose(y.sum(axis=1), np.ones(7), rtol=1e-5)
    with pytest.raises(ValueError):
        it.get_signature_runner("nope")

    it = Interpreter(model_path=str(model_path("cnn_small_f32")))
    it.resize_tensor_input(0, [3, 28, 28, 1], strict=True)
    it.allocate_tensors()
    it.set_tensor(0, x[:3])
    it.invoke()
    np.testing.assert_allclose(it.get_tensor(it.get_output_details()[0]["index"]), y[:3], rtol=1e-5, atol=1e-6)
    with pytest.raises((ValueError, RuntimeError)):
        it.resize_tensor_input(0, [3, 27, 28, 1], strict=True)


def test_invoke_before_allocate_is_an_error(Interpreter):
    it = Interpreter(model_path=str(model_path("mlp_f32")))
    with pytest.raises(RuntimeError):
        it.invoke()


def test_details_are_the_same_in_both():
    path = str(model_path("mlp_f32"))
    ours, theirs = rillet.runtime.Interpreter(model_path=path), litert.Interpreter(model_path=path)
    for it in (ours, theirs):
        it.allocate_tensors()
    for a, b in [(ours.get_input_details(), theirs.get_input_details()),
                 (ours.get_output_details(), theirs.get_output_details()),
                 (ours.get_tensor_details(), theirs.get_tensor_details())]:
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert set(x) == set(y)
            for key in ("name", "index", "dtype", "quantization", "sparsity_parameters"):
                assert x[key] == y[key], key
            for key in ("shape", "shape_signature"):
                np.testing.assert_array_equal(x[key], y[key])
