"""The reference models: rillet's runtime against LiteRT's goldens and against LiteRT run live."""

from __future__ import annotations

import numpy as np
import pytest

from rillet.runtime import Interpreter, UnsupportedOpsError

from support import MODEL_NAMES, golden, model_path

litert = pytest.importorskip("ai_edge_litert.interpreter")

FLOAT_MODELS = [n for n in MODEL_NAMES if n.endswith("_f32")]
RTOL, ATOL = 1e-5, 1e-6


def run_once(it, x: np.ndarray) -> np.ndarray:
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


@pytest.mark.parametrize("name", FLOAT_MODELS)
def test_float_model_matches_golden_and_litert_live(name):
    path = model_path(name)
    g = golden(name)
    ours = Interpreter(model_path=str(path))
    ours.allocate_tensors()
    np.testing.assert_allclose(run_once(ours, g["x"]), g["y"], rtol=RTOL, atol=ATOL)

    theirs = litert.Interpreter(model_path=str(path))
    theirs.allocate_tensors()
    rng = np.random.default_rng(20)
    shape, dtype = g["x"].shape, g["x"].dtype
    for _ in range(20):
        x = rng.uniform(-1.0, 1.0, size=shape).astype(dtype)
        np.testing.assert_allclose(run_once(ours, x), run_once(theirs, x), rtol=RTOL, atol=ATOL)


def test_dynamic_batch_runs_at_1_and_after_resize_at_7():
    path = str(model_path("cnn_small_f32"))
    ours, theirs = Interpreter(model_path=path), litert.Interpreter(model_path=path)
    index = ours.get_input_details()[0]["index"]
    assert list(ours.get_input_details()[0]["shape_signature"]) == [-1, 28, 28, 1]
    rng = np.random.default_rng(7)
    for batch in (1, 7):
        for it in (ours, theirs):
            it.resize_tensor_input(index, [batch, 28, 28, 1])
            it.allocate_tensors()
        x = rng.uniform(-1, 1, size=(batch, 28, 28, 1)).astype(np.float32)
        y = run_once(ours, x)
        assert y.shape == (batch, 10)
        np.testing.assert_allclose(y, run_once(theirs, x), rtol=RTOL, atol=ATOL)


def test_a_model_rillet_cannot_run_yet_is_refused_at_load_naming_the_op():
    from single_op import Input, op_model

    with pytest.raises(UnsupportedOpsError, match="SVDF"):
        Interpreter(model_content=op_model("SVDF", [Input((2,))], [((2,), np.float32)]))


def test_flatten_chain_is_folded_and_constants_are_used_in_place():
    path = model_path("cnn_small_f32")
    content = path.read_bytes()
    it = Interpreter(model_content=content)
    it.allocate_tensors()
    report = {row["op"]: row for row in it.profile()}
    for op in ("SHAPE", "STRIDED_SLICE", "PACK"):
        assert report[op]["folded"], op
    assert not report["CONV_2D"]["folded"]
    assert report["FULLY_CONNECTED"]["output_shape"] == [1, 10]

    from rillet.native import ffi

    start = int(ffi.cast("uintptr_t", ffi.from_buffer(it._content)))
    weights = next(d["index"] for d in it.get_tensor_details() if d["name"].endswith("dense_2_1/MatMul1"))
    address = it.tensor(weights)().__array_interface__["data"][0]
    assert start <= address < start + len(content)
    assert not it.tensor(weights)().flags.writeable

    memory = it.memory_report()
    activations = sum(int(np.prod(d["shape"])) * 4 for d in it.get_tensor_details()
                      if it.model.subgraphs[0].tensors[d["index"]].buffer == 0
                      or it.model.buffers[it.model.subgraphs[0].tensors[d["index"]].buffer].data is None)
    assert 0 < memory["arena_bytes"] < activations  # lifetimes let activations share memory
    assert memory["weight_bytes"] > 20000


@pytest.mark.filterwarnings("ignore:Warning. Enabling `experimental_preserve_all_tensors`")
def test_preserve_all_tensors_keeps_intermediates():
    path = str(model_path("cnn_small_f32"))
    x = golden("cnn_small_f32")["x"]
    ours = Interpreter(model_path=path, experimental_preserve_all_tensors=True)
    theirs = litert.Interpreter(model_path=path, experimental_preserve_all_tensors=True)
    for it in (ours, theirs):
        it.allocate_tensors()
        run_once(it, x)
    for index in (10, 11, 12, 13, 14):  # every activation before the head
        np.testing.assert_allclose(ours.get_tensor(index), theirs.get_tensor(index), rtol=RTOL, atol=ATOL)
    plain = Interpreter(model_path=path)
    plain.allocate_tensors()
    assert ours.memory_report()["arena_bytes"] > plain.memory_report()["arena_bytes"]
