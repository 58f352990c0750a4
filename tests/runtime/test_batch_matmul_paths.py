"""float32 BATCH_MATMUL on the GEMM micro-kernels (native/ops/batch_matmul_gemm.c), every shape: attention's
per-head products (Q·Kᵀ with adj_y, P·V) at head counts, sequence lengths and head widths around the tiles'
edges, the four adj_x / adj_y combinations, batches broadcast either way, y constant (packed at prepare) or
not (packed at every invoke); and attention's linear layers (FULLY_CONNECTED on [1,seq,d]) as one GEMM. Every
kernel path this CPU runs (RILLET_ISA) is within 1e-5 of LiteRT's default Interpreter (XNNPACK), and 1, 2 and
3 threads give that path's bits."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, litert_default, op_model
from test_kernel_paths import PATHS, rillet_outputs

F32 = np.float32
HEADS, SEQS, WIDTHS = (1, 2, 4, 12), (1, 7, 17, 64, 197), (8, 16, 64)
ADJ = [(False, False), (False, True), (True, False), (True, True)]


def attention_cases() -> list[tuple[str, int, int, int, bool, bool]]:
    """Every sequence length with each adj pair, for Q·Kᵀ and P·V; head counts and widths cycle across them
    so each appears with several lengths."""
    cases = []
    for i, (seq, (adj_x, adj_y)) in enumerate((s, a) for s in SEQS for a in ADJ):
        for kind in ("qk", "pv"):
            width = WIDTHS[(i + (kind == "pv")) % len(WIDTHS)]
            cases.append((kind, HEADS[i % len(HEADS)], seq, width, adj_x, adj_y))
    return cases


def operand_shape(batch: tuple[int, ...], rows: int, cols: int, adjoint: bool) -> tuple[int, ...]:
    return batch + ((cols, rows) if adjoint else (rows, cols))


def model_and_feeds(x_batch, y_batch, m, k, n, adj_x, adj_y, y_constant=False, seed=0):
    rng = np.random.default_rng(seed)
    x_shape = operand_shape(x_batch, m, k, adj_x)
    y_shape = operand_shape(y_batch, k, n, adj_y)
    x = rng.uniform(-1, 1, x_shape).astype(F32)
    y = rng.uniform(-1, 1, y_shape).astype(F32)
    out_shape = np.broadcast_shapes(x_batch, y_batch) + (m, n)
    inputs = [Input(x_shape), y if y_constant else Input(y_shape)]
    model = op_model("BATCH_MATMUL", inputs, [(out_shape, F32)], {"adj_x": adj_x, "adj_y": adj_y})
    return model, [x] if y_constant else [x, y]


def assert_every_path_close_to_litert_and_thread_count_free(model, feeds, monkeypatch) -> None:
    (expected,) = litert_default(model, feeds)
    for isa in PATHS:
        (one,) = rillet_outputs(model, feeds, isa, 1, monkeypatch)
        assert one.shape == expected.shape, (isa, one.shape, expected.shape)
        np.testing.assert_allclose(one, expected, rtol=1e-5, atol=1e-5, err_msg=isa)
        for threads in (2, 3):
            (got,) = rillet_outputs(model, feeds, isa, threads, monkeypatch)
            assert got.tobytes() == one.tobytes(), (isa, threads, np.abs(got - one).max())


@pytest.mark.parametrize("kind, heads, seq, width, adj_x, adj_y", attention_cases())
def test_attention_products(kind, heads, seq, width, adj_x, adj_y, monkeypatch):
    m, k, n = (seq, width, seq) if kind == "qk" else (seq, seq, width)
    model, feeds = model_and_feeds((1, heads), (1, heads), m, k, n, adj_x, adj_y, seed=seq * 31 + heads)
    assert_every_path_close_to_litert_and_thread_count_free(model, feeds, monkeypatch)


@pytest.mark.parametrize("x_batch, y_batch, m, k, n, adj_x, adj_y", [
    ((2, 3), (), 17, 33, 40, False, False),        # one y for every batch: one tall GEMM
    ((2, 3), (), 9, 20, 19, True, True),           # the same, x transposed into scratch first
    ((1, 4), (3, 1), 7, 64, 17, False, True),      # [1,h] against [b,1]: each side broadcast
    ((3, 1), (1, 4), 13, 16, 25, True, False),
    ((), (2, 5), 6, 11, 24, False, False),         # x of rank 2 against batched y
    ((5,), (2, 1), 1, 64, 197, False, True),       # one row per product (a decoder step)
    ((2, 1, 3), (4, 1), 5, 9, 7, True, True),      # three batch dims
])
def test_broadcast_batches(x_batch, y_batch, m, k, n, adj_x, adj_y, monkeypatch):
    model, feeds = model_and_feeds(x_batch, y_batch, m, k, n, adj_x, adj_y, seed=m + k + n)
    assert_every_path_close_to_litert_and_thread_count_free(model, feeds, monkeypatch)


@pytest.mark.parametrize("x_batch, y_batch, m, k, n, adj_x, adj_y", [
    ((1, 4), (1, 4), 17, 16, 23, False, False),
    ((1, 4), (1, 4), 64, 8, 9, False, True),
    ((2, 3), (), 33, 40, 48, True, False),          # a constant weight matrix shared by every batch
    ((3,), (2, 1), 7, 64, 8, True, True),
])
def test_constant_y_is_packed_once_at_prepare(x_batch, y_batch, m, k, n, adj_x, adj_y, monkeypatch):
    from rillet.runtime import Interpreter

    model, feeds = model_and_feeds(x_batch, y_batch, m, k, n, adj_x, adj_y, y_constant=True, seed=k)
    assert_every_path_close_to_litert_and_thread_count_free(model, feeds, monkeypatch)
    monkeypatch.delenv("RILLET_ISA", raising=False)
    it = Interpreter(model_content=model)
    it.allocate_tensors()
    y_bytes = int(np.prod(y_batch, dtype=np.int64)) * k * n * 4
    assert it.memory_report()["packed_weight_bytes"] >= y_bytes  # one packed copy per distinct y, kept


def test_invoking_again_packs_the_new_y(monkeypatch):
    """y is packed at every invoke: a second invoke with other values gives the second product."""
    from rillet.runtime import Interpreter

    model, (x, y) = model_and_feeds((1, 2), (1, 2), 17, 16, 17, False, True)
    it = Interpreter(model_content=model, num_threads=2)
    it.allocate_tensors()
    inputs = it.get_input_details()
    for scale in (1.0, -3.0):
        it.set_tensor(inputs[0]["index"], x)
        it.set_tensor(inputs[1]["index"], y * F32(scale))
        it.invoke()
        got = it.get_tensor(it.get_output_details()[0]["index"])
        np.testing.assert_allclose(got, scale * (x @ np.swapaxes(y, -1, -2)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("seq, depth, units", [(7, 64, 192), (64, 128, 512), (197, 192, 64)])
def test_linear_layers_on_3d_inputs_are_one_packed_gemm(seq, depth, units, monkeypatch):
    """litert-torch's linear layers: FULLY_CONNECTED [1,seq,d] x [units,d] with keep_num_dims runs as one GEMM
    over all seq rows on packed weights (not the row-dot kernels, not the reference), as close to LiteRT."""
    from rillet.runtime import Interpreter

    rng = np.random.default_rng(seq)
    weights = rng.uniform(-1, 1, (units, depth)).astype(F32)
    bias = rng.uniform(-1, 1, units).astype(F32)
    model = op_model("FULLY_CONNECTED", [Input((1, seq, depth)), weights, bias], [((1, seq, units), F32)],
                     {"fused_activation_function": 0, "keep_num_dims": True})
    feeds = [rng.uniform(-1, 1, (1, seq, depth)).astype(F32)]
    assert_every_path_close_to_litert_and_thread_count_free(model, feeds, monkeypatch)
    monkeypatch.delenv("RILLET_ISA", raising=False)
    it = Interpreter(model_content=model)
    it.allocate_tensors()
    assert it.memory_report()["packed_weight_bytes"] >= weights.nbytes + bias.nbytes


@pytest.mark.parametrize("x_batch, y_batch, k, n", [
    ((1, 2), (1, 2), 64, 128),     # a decoder step: q [1, 64] against k^T [64, 128] per head
    ((1, 2), (1, 2), 128, 64),     # then the weights against v [128, 64]
    ((3,), (3,), 33, 1),           # one column; every column step's edge below
    ((2,), (2,), 7, 15),
    ((2,), (2,), 16, 33),
    ((4,), (4,), 5, 65),
    ((1,), (1,), 9, 129),
    ((5,), (2, 1), 17, 200),       # batches broadcast either way
    ((), (), 40, 47),              # a single product
])
def test_one_row_products_read_a_changing_y_in_place(x_batch, y_batch, k, n, monkeypatch):
    """One row per product and a y that is not a constant (rowdot.h's row-times-matrix kernel, y never
    packed): every path close to LiteRT, thread counts giving the same bits, and a second invoke with a new
    y gives the second product."""
    from rillet.runtime import Interpreter

    model, (x, y) = model_and_feeds(x_batch, y_batch, 1, k, n, False, False, seed=k * n)
    assert_every_path_close_to_litert_and_thread_count_free(model, [x, y], monkeypatch)
    monkeypatch.delenv("RILLET_ISA", raising=False)
    it = Interpreter(model_content=model, num_threads=2)
    it.allocate_tensors()
    inputs = it.get_input_details()
    for scale in (1.0, -3.0):
        it.set_tensor(inputs[0]["index"], x)
        it.set_tensor(inputs[1]["index"], y * F32(scale))
        it.invoke()
        got = it.get_tensor(it.get_output_details()[0]["index"])
        np.testing.assert_allclose(got, scale * (x.astype(np.float64) @ y), rtol=1e-5, atol=1e-5)
