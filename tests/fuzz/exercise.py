"""Runs whatever a model file lets a user do with rillet's Interpreter: load, allocate, set every input (zeros
of its type and shape), invoke twice, read every output, each signature through its runner. A hostile file may
make any step raise a Python exception; it must never crash the process."""

from __future__ import annotations

import numpy as np


def exercise(content: bytes) -> str:
    """'ok' when everything ran, else the name of the exception that stopped it."""
    from rillet.runtime import Interpreter

    try:
        it = Interpreter(model_content=content)
        it.allocate_tensors()
        for d in it.get_input_details():
            it.set_tensor(d["index"], np.zeros(d["shape"], d["dtype"]))
        for _ in range(2):
            it.invoke()
        for d in it.get_output_details():
            it.get_tensor(d["index"])
        for key, signature in it.get_signature_list().items():
            runner = it.get_signature_runner(key)
            details = runner.get_input_details()
            # str(): a hostile file may leave a name out; the runner then refuses the name "None"
            runner(**{str(name): np.zeros(details[name]["shape"], details[name]["dtype"]) for name in signature["inputs"]})
    except Exception as e:  # noqa: BLE001 - any Python exception is an acceptable outcome; a crash is not
        return type(e).__name__
    return "ok"
