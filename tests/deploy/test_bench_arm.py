"""bench/bench_arm.py's host side, without qemu: the one-op models it cuts run in both runtimes and give what
the op gave inside the whole model, and its tables say what the counts say (the guest runs are the bench's,
never a test's)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "tests" / "data" / "models"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location("bench_arm", ROOT / "bench" / "bench_arm.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while the file executes
    spec.loader.exec_module(module)
    return module


def test_one_op_models_reproduce_the_ops(bench, tmp_path):
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    path = MODELS / "cnn_small_int8.tflite"
    inputs, outputs = bench.model_io(path)
    job = bench.prepare_job(path, tmp_path, per_op=True)
    assert sorted(job.reference) == [f"t{i}" for i in sorted(outputs)]
    for i, v in outputs.items():
        np.testing.assert_array_equal(job.reference[f"t{i}"], v)
    values = bench.intermediate_values(path, inputs)
    from rillet.converter.format.io import load

    whole = load(path.read_bytes()).subgraphs[0]
    assert sorted(job.ops) == list(range(len(whole.operators))) and not job.uncut
    for k in job.ops:
        cut = job.folder / "ops" / f"op_{k:04d}.tflite"
        feeds = np.load(cut.with_suffix(".npz"))
        got = []
        for runtime in (Interpreter, LiteRT):
            it = runtime(model_path=str(cut), num_threads=1)
            it.allocate_tensors()
            for key in feeds.files:
                it.set_tensor(int(key[1:]), feeds[key])
            it.invoke()
            got.append(it.get_tensor(it.get_output_details()[0]["index"]).astype(np.int32))
        # The feeds come from LiteRT's builtin kernels, whose int8 convolutions round a requantization
        # differently from XNNPACK's now and then: within 1 of the op's value, and rillet bit-exact with
        # LiteRT's default (XNNPACK) on the cut model.
        np.testing.assert_array_equal(got[0], got[1], err_msg=f"op {k}")
        want = values[whole.operators[k].outputs[0]].astype(np.int32)
        assert got[0].shape == want.shape and np.max(np.abs(got[0] - want)) <= 1, f"op {k}"


def test_counts_and_tables(bench, capsys):
    marks = {1: 300_000_000, 2: 312_000_000, 1000: 0, 1001: 4_000_000, 1002: 0, 1003: 2_000_000}
    rillet = bench.Count(marks, {"t5": np.array([1, 2], np.int8)})
    litert = bench.Count({**marks, 2: 308_000_000, 1001: 1_000_000}, {"t5": np.array([1, 3], np.int8)},
                         failed={1: "UnsupportedOpsError x"})
    assert (rillet.start, rillet.invoke, rillet.op(0), litert.invoke) == (300_000_000, 6e6, 2e6, 4e6)
    assert bench.agreement(rillet.outputs, rillet.outputs) == "bit-exact"
    assert bench.agreement(rillet.outputs, litert.outputs) == "1/2 differ (max 1)"
    assert bench.agreement({"t0": np.array([1.0, 2.0 + 2e-6])}, {"t0": np.array([1.0, 2.0])}) == "rel 1.0e-06"
    two = {"t7": np.array([1.0]), "t3": np.array([4], np.int8)}
    assert bench.agreement(two, two) == "t3 bit-exact, t7 rel 0.0e+00"
    job = bench.Job("m", Path("."), {}, ops={0: "CONV_2D", 1: "ADD"})
    bench.per_op_tables(job, "cortex-a76", rillet, litert, top=4)
    text = capsys.readouterr().out
    assert "| CONV_2D | 1 | 2.00 | 0.500 | 4.00 | 100% |" in text
    assert "| whole model | | 6.00 | 4.00 | 1.50 | |" in text
    assert "1:ADD (LiteRT: UnsupportedOpsError x)" in text
