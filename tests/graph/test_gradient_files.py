"""Every gradient rule's backward graph as a trained tail's `train` signature holds it: each case of
test_graph_ops.py (every op with a rule but WHILE's and MediaPipe's pooling, whose own tests run their files)
built in float32, its gradients written to a .tflite file (builtins only) and run in LiteRT and rillet's
runtime, both giving graph.run's gradients (1e-4: float32 against float32, different orders of sums)."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT
from test_graph_ops import CASES

import rillet.graph as rg
from rillet.converter.from_graph import convert
from rillet.graph import ops
from rillet.runtime import Interpreter


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_backward_graph_runs_in_litert_and_rillet(case):
    name, inputs, builder, _ = case
    rs = np.random.default_rng(len(name))
    inputs = [a.astype(np.float32) for a in inputs]
    g = rg.Graph()
    with g.as_default():
        xs = [rg.placeholder(a.shape, "float32", name=f"x{i}") for i, a in enumerate(inputs)]
        y = builder(*xs)
        seed = rs.uniform(0.5, 1.5, size=y.shape).astype(np.float32)
        loss = ops.reduce_sum(ops.mul(y, seed))
        grads = rg.gradients(loss, xs)
    outputs = {f"d{i}": d for i, d in enumerate(grads) if d is not None}
    feeds = {f"x{i}": a for i, a in enumerate(inputs)}
    want = g.run(outputs, {x: a for x, a in zip(xs, inputs)})
    data = convert(inputs=dict(zip(feeds, xs)), outputs=outputs)
    for runtime in (LiteRT, Interpreter):
        got = runtime(model_content=data).get_signature_runner("infer")(**feeds)
        for key, value in want.items():
            np.testing.assert_allclose(got[key], value, rtol=1e-4, atol=1e-5, err_msg=f"{runtime.__module__}: {key}")
