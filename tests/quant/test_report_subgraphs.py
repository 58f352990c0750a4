"""The quantization report measures the subgraphs a WHILE calls too, at every iteration: the loop body's
tensors and layers appear named SUBGRAPH/NAME, with finite SQNR, beside subgraph 0's; keep-float
suggestions stay with subgraph 0's names, which --keep-float takes."""

from __future__ import annotations

import numpy as np
from test_int8_control_flow import halving_while

from rillet.converter.format import load
from rillet.quant import quantize_with_report


def test_a_while_body_is_measured_at_every_call():
    rng = np.random.default_rng(0)
    calibration = [[np.array(0, np.int32), rng.uniform(-1, 1, 4).astype(np.float32)] for _ in range(8)]
    original = halving_while()
    _, report = quantize_with_report(original, calibration, progress=False, report=True)
    model = load(original)
    body = model.subgraphs[2]
    body_name = body.name or "subgraph2"
    names = {t.name for t in report.tensors}
    body_float = [t.name for t in body.tensors if t.type == 0 and not (t.buffer and model.buffers[t.buffer].data is not None
                                                                    and model.buffers[t.buffer].data.size)]
    measured = {f"{body_name}/{n}" for n in body_float} & names
    assert measured, (names, body_float)
    for t in report.tensors:
        if t.name in measured:
            assert t.sqnr_db is None or 15 < t.sqnr_db < 100, t  # an int8 loop body: near, not equal
    body_layers = [layer for layer in report.layers if layer.subgraph == 2]
    assert {layer.op for layer in body_layers} == {"MUL", "ADD"}, body_layers
    assert all("/" not in name or not name.startswith(body_name) for name in report.keep_float_suggestion)
    assert len(report.to_dict()["tensors"]) == len(report.tensors)  # the names are unique
    assert "#2:" in report.to_html()
