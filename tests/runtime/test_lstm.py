"""UNIDIRECTIONAL_SEQUENCE_LSTM, float32, against LiteRT over several invokes (its state tensors carry h and
c from one invoke to the next): batch- and time-major, CIFG, peepholes, projection with clipping, the
activations TFLite takes."""

from __future__ import annotations

import numpy as np
import pytest

from rillet.converter.format import (
    BUILTIN_CODES,
    Buffer,
    ModelFile,
    Operator,
    OperatorCode,
    Options,
    SubGraph,
    Tensor,
    save,
)
from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")


def lstm_model(batch=2, steps=5, n_input=3, n_cell=4, n_output=None, time_major=False, cifg=False, peephole=False,
               activation=4, cell_clip=0.0, proj_clip=0.0) -> bytes:
    rng = np.random.default_rng(0)
    n_output = n_output or n_cell
    buffers = [Buffer(data=None)]
    tensors: list[Tensor] = []

    def add(shape, value=None, variable=False, name=None) -> int:
        buffer = 0
        if value is not None:
            buffer = len(buffers)
            buffers.append(Buffer(data=np.ascontiguousarray(value, np.float32).view(np.uint8).reshape(-1)))
        tensors.append(Tensor(shape=list(shape), type=0, buffer=buffer, is_variable=variable, name=name or f"t{len(tensors)}"))
        return len(tensors) - 1

    def w(*shape):
        return rng.uniform(-0.5, 0.5, shape)

    x = add([steps, batch, n_input] if time_major else [batch, steps, n_input], name="x")
    gates = ["i", "f", "c", "o"]
    w_x = [-1 if (cifg and g == "i") else add([n_cell, n_input], w(n_cell, n_input)) for g in gates]
    w_h = [-1 if (cifg and g == "i") else add([n_cell, n_output], w(n_cell, n_output)) for g in gates]
    peep = [add([n_cell], w(n_cell)) if peephole and not (cifg and g == "i") else -1 for g in ("i", "f", "o")]
    bias = [-1 if (cifg and g == "i") else add([n_cell], w(n_cell)) for g in gates]
    proj = add([n_output, n_cell], w(n_output, n_cell)) if n_output != n_cell else -1
    proj_b = add([n_output], w(n_output)) if n_output != n_cell else -1
    h = add([batch, n_output], variable=True, name="h")
    c = add([batch, n_cell], variable=True, name="c")
    y = add([steps, batch, n_output] if time_major else [batch, steps, n_output], name="y")
    inputs = [x, *w_x, *w_h, *peep, *bias, proj, proj_b, h, c, -1, -1, -1, -1]
    options = Options("UnidirectionalSequenceLSTMOptions", fused_activation_function=activation, cell_clip=cell_clip,
                      proj_clip=proj_clip, time_major=time_major, asymmetric_quantize_inputs=False,
                      diagonal_recurrent_tensors=False)
    code = BUILTIN_CODES["UNIDIRECTIONAL_SEQUENCE_LSTM"]
    return save(ModelFile(
        operator_codes=[OperatorCode(deprecated_builtin_code=code, builtin_code=code, version=1)], buffers=buffers,
        subgraphs=[SubGraph(tensors=tensors, inputs=[x], outputs=[y], name="main",
                            operators=[Operator(opcode_index=0, inputs=inputs, outputs=[y], builtin_options=options)])]))


def run_invokes(cls, content: bytes, feeds: list[np.ndarray], reset_after: int = -1, **kwargs) -> list[np.ndarray]:
    """Each feed in one invoke of one interpreter (its state carried over), reset_all_variables before feed
    `reset_after`; the LSTM tests' runner (float, int8 and hybrid)."""
    it = cls(model_content=content, **kwargs)
    it.allocate_tensors()
    outs = []
    for k, x in enumerate(feeds):
        if k == reset_after:
            it.reset_all_variables()
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        outs.append(it.get_tensor(it.get_output_details()[0]["index"]).copy())
    return outs


@pytest.mark.parametrize("kwargs", [
    {}, {"time_major": True}, {"cifg": True}, {"peephole": True}, {"n_output": 3, "proj_clip": 0.3},
    {"cell_clip": 0.5, "peephole": True, "cifg": True}, {"activation": 1}, {"activation": 3}, {"activation": 0}, {"batch": 1, "steps": 1},
])
def test_lstm_matches_litert_across_invokes(kwargs):
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    content = lstm_model(**kwargs)
    shape = Interpreter(model_content=content).get_input_details()[0]["shape"]
    rng = np.random.default_rng(1)
    feeds = [rng.uniform(-1, 1, shape).astype(np.float32) for _ in range(3)]
    ours, theirs = run_invokes(Interpreter, content, feeds), run_invokes(LiteRT, content, feeds)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-6)
    assert not np.allclose(ours[1], run_invokes(Interpreter, content, feeds[1:2])[0])  # the state carried over
