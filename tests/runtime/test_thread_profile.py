"""Interpreter.thread_profile (rl_plan_invoke_thread_profiled): per op each thread's CPU time, the ops run as a
plain invoke runs them (band runs as one unit on their first op), the outputs unchanged."""

from __future__ import annotations

import numpy as np
from support import golden, model_path

from rillet.runtime import Interpreter

MODEL = "mobilenet_v2_035_96_int8"  # depthwise and 1x1 convolutions in band runs, a MEAN, a SOFTMAX


def ready(threads: int) -> Interpreter:
    it = Interpreter(model_path=str(model_path(MODEL)), num_threads=threads)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], golden(MODEL)["x"])
    return it


def output(it: Interpreter) -> np.ndarray:
    return it.get_tensor(it.get_output_details()[0]["index"])


def test_two_threads_share_the_work_and_band_runs_count_as_one():
    it = ready(2)
    it.invoke()
    expected = output(it).copy()
    report = it.thread_profile(runs=2)
    assert np.array_equal(output(it), expected)
    heads = [r for r in report if r["segment_last"] > r["index"]]
    assert heads, "the model runs ops in bands on 2 threads"
    inside = {j for r in heads for j in range(r["index"] + 1, r["segment_last"] + 1)}
    for r in report:
        assert len(r["thread_seconds"]) == 2
        if r["index"] in inside or r["folded"]:
            assert r["thread_seconds"] == [0.0, 0.0] and r["seconds"] == 0.0
    for r in heads:  # a band a thread: both threads work on every run
        assert min(r["thread_seconds"]) > 0.0, r
    work = np.array([r["thread_seconds"] for r in report])
    assert work[:, 1].sum() > 0.25 * work.sum()  # the worker does a real share of the model
    it.invoke()
    assert np.array_equal(output(it), expected)  # and the plan runs as before afterwards


def test_one_thread_reports_its_own_time_only():
    it = ready(1)
    report = it.thread_profile()
    assert all(len(r["thread_seconds"]) == 1 and r["segment_last"] == -1 for r in report)
    assert sum(r["thread_seconds"][0] for r in report) > 0.0
