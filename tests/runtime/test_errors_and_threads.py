"""Errors name the op, its index and the problem; interpreters share no state across threads."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from single_op import Input, op_model

from rillet.runtime import Interpreter, InterpreterError, UnsupportedOpsError

from support import golden, model_path

F32 = np.float32


def test_a_bad_index_at_invoke_names_the_op():
    m = op_model("GATHER", [np.arange(6, dtype=F32), Input((2,), np.int32)], [((2,), F32)], {"axis": 0})
    it = Interpreter(model_content=m)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], np.array([1, 9], np.int32))
    with pytest.raises(InterpreterError, match=r"GATHER op 0 \('out0'\): an index is outside \[0, 6\)"):
        it.invoke()
    it.set_tensor(it.get_input_details()[0]["index"], np.array([1, 5], np.int32))
    it.invoke()
    np.testing.assert_array_equal(it.get_tensor(it.get_output_details()[0]["index"]), [1, 5])


def test_a_shape_mismatch_at_prepare_names_the_op_and_the_problem():
    m = op_model("CONV_2D", [Input((1, 5, 5, 3)), np.zeros((2, 3, 3, 4), F32), np.zeros(2, F32)], [((1,), F32)],
                 {"padding": 0, "stride_w": 1, "stride_h": 1})
    it = Interpreter(model_content=m)
    with pytest.raises(InterpreterError, match="CONV_2D op 0 .*input has 3 channels, filter expects 4"):
        it.allocate_tensors()


def test_a_non_constant_shape_argument_is_reported():
    m = op_model("TRANSPOSE", [Input((2, 3)), Input((2,), np.int32)], [((3, 2), F32)], {})
    with pytest.raises(UnsupportedOpsError, match="TRANSPOSE op 0 .*perm must be known"):
        Interpreter(model_content=m).allocate_tensors()


def test_every_unsupported_op_is_listed_at_load():
    m = op_model("SIN", [Input((1, 5), np.int8)], [((1, 5), np.int8)])
    with pytest.raises(UnsupportedOpsError, match="SIN op 0 on INT8"):
        Interpreter(model_content=m)


def test_interpreters_in_threads_run_at_once_and_agree():
    path = str(model_path("cnn_small_f32"))
    rng = np.random.default_rng(5)
    inputs = [rng.uniform(-1, 1, (1, 28, 28, 1)).astype(F32) for _ in range(4)]
    single = Interpreter(model_path=path)
    single.allocate_tensors()
    expected = []
    for x in inputs:
        single.set_tensor(0, x)
        single.invoke()
        expected.append(single.get_tensor(single.get_output_details()[0]["index"]))

    results: dict[int, list[np.ndarray]] = {}
    start = threading.Barrier(len(inputs))

    def work(k: int) -> None:
        it = Interpreter(model_path=path, num_threads=1)
        it.allocate_tensors()
        out = it.get_output_details()[0]["index"]
        start.wait()
        got = []
        for _ in range(25):
            it.set_tensor(0, inputs[k])
            it.invoke()
            got.append(it.get_tensor(out))
        results[k] = got

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(len(inputs)):
        for got in results[k]:
            np.testing.assert_array_equal(got, expected[k])


def test_golden_still_matches_after_reallocating():
    g = golden("mlp_f32")
    it = Interpreter(model_path=str(model_path("mlp_f32")))
    for _ in range(3):
        it.allocate_tensors()
        it.set_tensor(it.get_input_details()[0]["index"], g["x"])
        it.invoke()
        np.testing.assert_allclose(it.get_tensor(it.get_output_details()[0]["index"]), g["y"], rtol=1e-5, atol=1e-6)
