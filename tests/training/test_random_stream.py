"""RANDOM_UNIFORM's stream restarts when LiteRT's does: only when an input of the subgraph changed shape.
allocate_tensors on an unchanged interpreter (which a signature runner does before every call) leaves it
running, so dropout masks across steps, an allocate_tensors between them, and a batch of another size are
LiteRT's, bit for bit."""

from __future__ import annotations

import numpy as np
from ai_edge_litert.interpreter import Interpreter as LiteRT

import rillet as rl
from rillet.graph import Graph, ops
from rillet.runtime import Interpreter


def noise_model(seed: int) -> bytes:
    """x -> uniform noise of x's shape (the batch may change), drawn by a seeded RANDOM_UNIFORM."""
    g = Graph()
    with g.as_default():
        x = ops.placeholder([None, 6], name="x")
        noise = ops.add(ops.mul(x, 0.0), ops.random_uniform_like(x, seed=seed))
    return rl.convert(inputs={"x": x}, outputs={"noise": noise})


def draws(interpreter_class, model: bytes) -> list[np.ndarray]:
    """Two invokes, allocate_tensors, two more; a resize to another batch, two more; a resize to the same
    batch (no change), one more; then the signature runner twice."""
    it = interpreter_class(model_content=model)
    x = it.get_input_details()[0]["index"]
    out = it.get_output_details()[0]["index"]
    seen = []

    def invoke(batch: int) -> None:
        it.set_tensor(x, np.ones((batch, 6), np.float32))
        it.invoke()
        seen.append(it.get_tensor(out).copy())

    it.resize_tensor_input(x, [2, 6])
    it.allocate_tensors()
    invoke(2), invoke(2)
    it.allocate_tensors()
    invoke(2), invoke(2)
    it.resize_tensor_input(x, [3, 6])
    it.allocate_tensors()
    invoke(3), invoke(3)
    it.resize_tensor_input(x, [3, 6])
    it.allocate_tensors()
    invoke(3)
    runner = it.get_signature_runner("infer")
    seen.extend(runner(x=np.ones((3, 6), np.float32))["noise"] for _ in range(2))
    return seen


def test_stream_restarts_only_on_a_resize_as_litert():
    model = noise_model(seed=13)
    ours, theirs = draws(Interpreter, model), draws(LiteRT, model)
    assert len(ours) == len(theirs) == 9
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert a.tobytes() == b.tobytes(), f"draw {k} differs from LiteRT's"
    # the stream went on across allocate_tensors (draw 2 is new) and started again at the resize (draw 4 is
    # the first rows' first numbers again only if the stream restarted: Philox's counter starts over)
    assert not np.array_equal(ours[2], ours[0])
    assert np.array_equal(ours[4][:2].ravel()[:4], ours[0].ravel()[:4])
