"""UNIDIRECTIONAL_SEQUENCE_LSTM with layer normalization (float32), against LiteRT over several invokes: the
models of test_lstm with one coefficient vector per gate (none for the input gate under CIFG) added."""

from __future__ import annotations

import numpy as np
import pytest
from test_lstm import lstm_model, run_invokes

from rillet.converter.format import Buffer, Tensor, load, save
from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

LAYER_NORM_INPUTS = (20, 21, 22, 23)  # input, forget, cell, output gates


def with_layer_norm(content: bytes, skip_input_gate: bool, n_cell: int, seed: int = 9) -> bytes:
    model = load(content)
    graph, rng = model.subgraphs[0], np.random.default_rng(seed)
    op = graph.operators[0]
    for k, slot in enumerate(LAYER_NORM_INPUTS):
        if k == 0 and skip_input_gate:
            continue
        coefficients = rng.uniform(0.5, 1.5, n_cell).astype(np.float32)
        model.buffers.append(Buffer(data=coefficients.view(np.uint8)))
        graph.tensors.append(Tensor(shape=[n_cell], type=0, buffer=len(model.buffers) - 1, name=f"layer_norm_{k}"))
        op.inputs[slot] = len(graph.tensors) - 1
    return save(model)


@pytest.mark.parametrize("kwargs", [
    {}, {"time_major": True}, {"cifg": True}, {"peephole": True}, {"n_output": 3, "proj_clip": 0.3},
    {"cell_clip": 0.5, "peephole": True, "cifg": True}, {"activation": 1}, {"batch": 1, "steps": 1, "n_cell": 7},
])
def test_layer_norm_lstm_matches_litert_across_invokes(kwargs):
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    content = with_layer_norm(lstm_model(**kwargs), kwargs.get("cifg", False), kwargs.get("n_cell", 4))
    shape = Interpreter(model_content=content).get_input_details()[0]["shape"]
    rng = np.random.default_rng(1)
    feeds = [rng.uniform(-1, 1, shape).astype(np.float32) for _ in range(3)]
    ours, theirs = run_invokes(Interpreter, content, feeds), run_invokes(LiteRT, content, feeds)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-6)
    plain = run_invokes(Interpreter, lstm_model(**kwargs), feeds)
    assert not np.allclose(ours[0], plain[0])  # the normalization changed something


def test_missing_coefficients_are_refused():
    content = with_layer_norm(lstm_model(), False, 4)
    model = load(content)
    model.subgraphs[0].operators[0].inputs[22] = -1  # the cell gate's
    with pytest.raises(Exception, match="layer norm coefficients 22 are missing"):
        Interpreter(model_content=save(model)).allocate_tensors()


def test_coefficients_of_the_wrong_size_are_refused():
    content = with_layer_norm(lstm_model(n_cell=4), False, 5)
    with pytest.raises(Exception, match=r"must be \[4\]"):
        Interpreter(model_content=content).allocate_tensors()
