"""A float MEAN or SUM over contiguous rows whose input is MUL(x, x) or SQUARED_DIFFERENCE(x, one value per
row), read by it alone, runs as one sum-of-squares pass in the squaring op (native/ops/reduce_sumsq.c): the
bits of the two ops run apart (experimental_preserve_all_tensors keeps them apart) on every path and thread
count, bands or not, and LiteRT's values. The pass leaves the row sums where the squares would be, which shows
that it ran; a squares tensor with a second reader, a clamped MUL, a SQUARED_DIFFERENCE of two full tensors and
a MEAN over another axis keep both ops (the squares written, LiteRT's values)."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import litert_default
from test_kernel_paths import PATHS
from transformer_graphs import graph_model, layer_norm_model

from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

F32 = np.float32


def squares_model(rows: int, c: int, form: str, reduce: str = "MEAN", keep_dims: bool = True,
                  second_reader: bool = False, activation: int = 0, axes: tuple[int, ...] = (-1,)) -> bytes:
    """x [1, rows, c] -> the squares `sq` -> reduce over `axes` -> y; `form` "mul" (MUL(x, x)),
    "sqdiff" (SQUARED_DIFFERENCE(x, MEAN(x)) with one mean per row), "sqdiff-reversed" (the mean first) or
    "sqdiff-full" (SQUARED_DIFFERENCE(x, z) of two [1, rows, c] inputs). second_reader: y = reduce(sq) + sq."""
    x, row = (1, rows, c), (1, rows, 1)
    inputs = {"x": x, "z": x} if form == "sqdiff-full" else {"x": x}
    consts = {"axis": np.array([-1], np.int32), "axes": np.array(axes, np.int32)}
    if form == "mul":
        ops = [("MUL", ["x", "x"], "sq", {"fused_activation_function": activation})]
    elif form == "sqdiff-full":
        ops = [("SQUARED_DIFFERENCE", ["x", "z"], "sq", None)]
    else:
        operands = ["x", "mean"] if form == "sqdiff" else ["mean", "x"]
        ops = [("MEAN", ["x", "axis"], "mean", None), ("SQUARED_DIFFERENCE", operands, "sq", None)]
    kept = tuple(1 if d in [a % 3 for a in axes] else n for d, n in enumerate(x))
    dropped = tuple(n for d, n in enumerate(x) if d not in [a % 3 for a in axes])
    ops.append((reduce, ["sq", "axes"], "r", {"keep_dims": keep_dims}))
    shapes = {"mean": row, "sq": x, "r": kept if keep_dims else dropped}
    if second_reader:
        ops.append(("ADD", ["r", "sq"], "y", None))
        shapes["y"] = x
        return graph_model(inputs, consts, ops, "y", shapes)
    return graph_model(inputs, consts, ops, "r", shapes)


def feeds(model_inputs: int, rows: int, c: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed + 7 * rows + c)
    return [(rng.standard_normal((1, rows, c)) * 3 + 1).astype(F32) for _ in range(model_inputs)]


def rillet_run(model: bytes, inputs: list[np.ndarray], threads: int = 1, keep_all: bool = False):
    """The output and, after the invoke, the squares tensor `sq`."""
    it = Interpreter(model_content=model, num_threads=threads, experimental_preserve_all_tensors=keep_all)
    it.allocate_tensors()
    for detail, value in zip(it.get_input_details(), inputs):
        it.set_tensor(detail["index"], value)
    it.invoke()
    it.invoke()  # twice: the second reads nothing the first left behind
    sq = next(d["index"] for d in it.get_tensor_details() if d["name"] == "sq")
    return it.get_tensor(it.get_output_details()[0]["index"]).copy(), it.get_tensor(sq).copy()


SIZES = [(1, 1), (3, 7), (5, 8), (2, 31), (9, 33), (4, 64), (17, 100), (64, 128), (197, 192)]


@pytest.mark.filterwarnings("ignore:Warning. Enabling `experimental_preserve_all_tensors`")
@pytest.mark.parametrize("form", ["mul", "sqdiff", "sqdiff-reversed"])
@pytest.mark.parametrize("reduce, keep_dims", [("MEAN", True), ("MEAN", False), ("SUM", True)])
@pytest.mark.parametrize("rows, c", SIZES)
def test_one_pass_gives_the_two_ops_bits_on_every_path(form, reduce, keep_dims, rows, c, monkeypatch):
    model = squares_model(rows, c, form, reduce, keep_dims)
    x = feeds(1, rows, c)
    (expected,) = litert_default(model, x)
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        apart, squares = rillet_run(model, x, keep_all=True)
        centred = x[0] if form == "mul" else x[0] - x[0].mean(axis=-1, keepdims=True, dtype=F32)
        np.testing.assert_allclose(squares, centred * centred, rtol=1e-5, atol=1e-4)  # both ops ran
        for threads in (1, 2, 3):
            got, sums = rillet_run(model, x, threads)
            assert got.tobytes() == apart.tobytes(), (isa, threads, np.count_nonzero(got != apart))
            if reduce == "SUM":  # the pass ran: the row sums lie where the squares would be
                assert sums.ravel()[:rows].tobytes() == got.ravel().tobytes(), (isa, threads)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("form", ["keras", "torch"])
@pytest.mark.parametrize("seq, d", [(64, 128), (197, 192), (9, 33)])
def test_a_layer_norm_in_token_bands_gives_one_threads_bits(form, seq, d, monkeypatch):
    """The whole layer norm one segment on two threads, the squaring op banded by rows, as on one thread."""
    model = layer_norm_model(seq, d, form)
    x = feeds(1, seq, d)
    (expected,) = litert_default(model, x)
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        want = None
        for threads in (1, 2, 4):
            it = Interpreter(model_content=model, num_threads=threads)
            it.allocate_tensors()
            it.set_tensor(it.get_input_details()[0]["index"], x[0])
            it.invoke()
            got = it.get_tensor(it.get_output_details()[0]["index"]).copy()
            if threads == 2:
                plan = it._plan
                segments = [(i, plan.op_segment_last(i)) for i in range(len(plan.op_names))
                            if plan.op_segment_last(i) >= 0]
                assert segments == [(0, len(plan.op_names) - 1)], (segments, plan.op_names)
            want = got if want is None else want
            assert got.tobytes() == want.tobytes(), (isa, threads)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_a_reduction_over_every_axis_sums_each_whole_row():
    """MEAN of MUL(x, x) over the tokens and channels: one row of rows * c values, no bands."""
    rows, c = 17, 40
    model = squares_model(rows, c, "mul", "SUM", axes=(1, 2))
    x = feeds(1, rows, c)
    got, sums = rillet_run(model, x, 2)
    assert sums.ravel()[:1].tobytes() == got.ravel().tobytes()
    np.testing.assert_allclose(got, litert_default(model, x)[0], rtol=1e-5)


@pytest.mark.parametrize("case", ["second reader", "clamped", "two full tensors", "another axis"])
def test_squares_are_written_where_the_pass_does_not_apply(case):
    rows, c = 9, 33
    model = {"second reader": lambda: squares_model(rows, c, "mul", second_reader=True),
             "clamped": lambda: squares_model(rows, c, "mul", activation=1),  # RELU
             "two full tensors": lambda: squares_model(rows, c, "sqdiff-full"),
             "another axis": lambda: squares_model(rows, c, "mul", axes=(1,))}[case]()
    x = feeds(2 if case == "two full tensors" else 1, rows, c)
    for threads in (1, 2):
        got, squares = rillet_run(model, x, threads)
        other = x[1] if case == "two full tensors" else x[0]
        want = (x[0] - other) ** 2 if case == "two full tensors" else x[0] * x[0]
        np.testing.assert_array_equal(squares, want)
        np.testing.assert_allclose(got, litert_default(model, x)[0], rtol=1e-5, atol=1e-6)
