"""The int8 reference models: rillet's runtime gives LiteRT's bits, on the goldens and on inputs run live.

A softmax over many classes hides small errors (most of mobilenet's 1000 int8 probabilities are -128), so
the live comparison also exposes every activation as a model output: each intermediate int8 tensor must
then be the same bits as under LiteRT's default Interpreter (XNNPACK included).
"""

from __future__ import annotations

import numpy as np
import pytest

from rillet.converter.format import load, save
from rillet.runtime import Interpreter

from support import golden, model_path

litert = pytest.importorskip("ai_edge_litert.interpreter")

INT8_MODELS = ["cnn_small_int8", "cnn_small_int8_floatio", "mobilenet_v2_035_96_int8"]
LIVE_INPUTS = 50


def every_activation_as_output(content: bytes) -> bytes:
    """The same model with each op output (not just the final ones) listed as a subgraph output."""
    model = load(content)
    graph = model.subgraphs[0]
    produced = [t for op in graph.operators for t in op.outputs if t >= 0]
    graph.outputs = list(dict.fromkeys(list(graph.outputs) + produced))
    return save(model)


def outputs_of(it, x: np.ndarray) -> list[np.ndarray]:
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()]


def random_input(rng: np.random.Generator, detail: dict) -> np.ndarray:
    shape, dtype = tuple(detail["shape"]), np.dtype(detail["dtype"])
    if dtype == np.int8:
        return rng.integers(-128, 128, size=shape, dtype=np.int8)
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


@pytest.mark.parametrize("name", INT8_MODELS)
def test_int8_model_gives_the_golden_bits(name):
    g = golden(name)
    it = Interpreter(model_path=str(model_path(name)))
    it.allocate_tensors()
    (y,) = outputs_of(it, g["x"])
    assert y.dtype == g["y"].dtype and y.tobytes() == g["y"].tobytes()


@pytest.mark.parametrize("name", INT8_MODELS)
def test_int8_model_every_activation_matches_litert_live(name):
    content = every_activation_as_output(model_path(name).read_bytes())
    ours, theirs = Interpreter(model_content=content), litert.Interpreter(model_content=content)
    ours.allocate_tensors()
    theirs.allocate_tensors()
    names = [d["name"] for d in theirs.get_output_details()]
    assert names == [d["name"] for d in ours.get_output_details()]
    rng = np.random.default_rng(8)
    for trial in range(LIVE_INPUTS):
        x = random_input(rng, ours.get_input_details()[0])
        for tensor, got, expected in zip(names, outputs_of(ours, x), outputs_of(theirs, x)):
            assert got.dtype == expected.dtype and got.shape == expected.shape, tensor
            if got.tobytes() != expected.tobytes():
                diff = np.abs(got.astype(np.float64) - expected.astype(np.float64))
                pytest.fail(f"input {trial}: tensor {tensor!r}: {np.count_nonzero(diff)} of {diff.size} "
                            f"elements differ (max {diff.max()})")
