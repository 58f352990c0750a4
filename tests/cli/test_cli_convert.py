"""`rillet convert builder.py:make_model -o model.tflite [--weights ckpt.npz]`."""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter

from rillet.cli import main

BUILDER = textwrap.dedent('''
    import numpy as np
    from rillet.graph import Graph, Variable, ops

    def make_model():
        g = Graph()
        with g.as_default():
            x = ops.placeholder((None, 3), name="features")
            w = Variable(np.ones((2, 3), np.float32), name="dense/kernel")
            y = ops.relu(ops.fully_connected(x, w))
        return {"features": x}, {"scores": y}
''')


@pytest.fixture
def builder(tmp_path):
    path = tmp_path / "builder.py"
    path.write_text(BUILDER)
    return path


def run_converted(path, x):
    return Interpreter(model_path=str(path)).get_signature_runner("infer")(features=x)["scores"]


def test_convert_writes_a_model_litert_runs(builder, tmp_path, capsys):
    out = tmp_path / "model.tflite"
    assert main(["convert", f"{builder}:make_model", "-o", str(out)]) == 0
    assert "inputs ['features'], outputs ['scores']" in capsys.readouterr().out
    x = np.array([[1, 2, -4]], np.float32)
    np.testing.assert_array_equal(run_converted(out, x), [[0, 0]])
    np.testing.assert_array_equal(run_converted(out, -x), [[1, 1]])


def test_convert_loads_weights_from_a_checkpoint(builder, tmp_path):
    ckpt = tmp_path / "ckpt.npz"
    np.savez(ckpt, **{"dense/kernel": np.array([[1, 0, 0], [0, 2, 0]], np.float32)})
    out = tmp_path / "model.tflite"
    assert main(["convert", f"{builder}:make_model", "-o", str(out), "--weights", str(ckpt)]) == 0
    np.testing.assert_array_equal(run_converted(out, np.array([[3, 4, 5]], np.float32)), [[3, 8]])


def test_checkpoint_that_does_not_match_is_refused(builder, tmp_path, capsys):
    ckpt = tmp_path / "ckpt.npz"
    np.savez(ckpt, other=np.zeros(3, np.float32))
    assert main(["convert", f"{builder}:make_model", "-o", str(tmp_path / "m.tflite"), "--weights", str(ckpt)]) == 1
    assert re.search(r"missing: \['dense/kernel'\], unknown: \['other'\]", capsys.readouterr().err)


def test_missing_function_is_named(builder, tmp_path, capsys):
    assert main(["convert", f"{builder}:nope", "-o", str(tmp_path / "m.tflite")]) == 2
    assert "has no function 'nope'" in capsys.readouterr().err
