"""A malformed model is an error, never a crash: random damage to a real model's structure."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rillet.converter.format import ModelError, load, save
from rillet.runtime import Interpreter

from support import model_path


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_damaged_models_raise_or_run(data):
    model = load(model_path("cnn_small_f32").read_bytes())
    sg = model.subgraphs[0]
    for _ in range(data.draw(st.integers(1, 3))):
        kind = data.draw(st.sampled_from(["shape", "input", "option"]))
        if kind == "shape":
            t = sg.tensors[data.draw(st.integers(0, len(sg.tensors) - 1))]
            t.shape = data.draw(st.lists(st.integers(0, 40), min_size=0, max_size=5))
        elif kind == "input":
            op = sg.operators[data.draw(st.integers(0, len(sg.operators) - 1))]
            if op.inputs:
                op.inputs[data.draw(st.integers(0, len(op.inputs) - 1))] = data.draw(st.integers(-1, len(sg.tensors) - 1))
        else:
            op = sg.operators[data.draw(st.integers(0, len(sg.operators) - 1))]
            if op.builtin_options is not None:
                fields = list(op.builtin_options.fields())
                if fields:
                    setattr(op.builtin_options, data.draw(st.sampled_from(fields)), data.draw(st.integers(-3, 5)))
    try:
        content = save(model)
    except (ModelError, ValueError, OverflowError):
        return
    try:
        it = Interpreter(model_content=content)
        it.allocate_tensors()
        for d in it.get_input_details():
            it.set_tensor(d["index"], np.zeros(d["shape"], d["dtype"]))
        it.invoke()
    except (ModelError, ValueError, RuntimeError) as e:
        assert str(e)
    except Exception as e:  # noqa: BLE001 - anything else is a bug worth seeing
        pytest.fail(f"{type(e).__name__}: {e}")
