"""Element-wise ops that split their elements across the plan's threads (conv_gemm.h's rl_parallelize_elements,
the int8 binary driver's rows and runs): the same bits on 1, 2 and 3 threads as LiteRT's, and at 2 threads the
worker really does part of the work (Interpreter.thread_profile: each thread runs its own share while it
profiles, so a worker's CPU time of 0 means the op ran on one thread).

Sizes are odd (not whole 64-element blocks) and on both sides of the split threshold (8192 elements)."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Input, Quant, litert_default, op_model

from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

I8 = np.int8
PATHS = ["ref", "avx2", None]  # None: the machine's best path


def rillet_run(model: bytes, feeds: list[np.ndarray], threads: int) -> tuple[list[np.ndarray], Interpreter]:
    it = Interpreter(model_content=model, num_threads=threads)
    it.allocate_tensors()
    for detail, value in zip(it.get_input_details(), feeds):
        it.set_tensor(detail["index"], value)
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()], it


def assert_split_and_same_bits(model: bytes, feeds: list[np.ndarray], monkeypatch, splits: bool = True,
                               litert_bits: bool = True) -> None:
    """litert_bits: LiteRT's bits are the expected ones, else (float ops within 1e-5 of LiteRT) each path's own
    one-thread bits, checked close to LiteRT's."""
    reference = litert_default(model, feeds)[0]
    expected = reference.tobytes()
    for isa in PATHS:
        if isa:
            monkeypatch.setenv("RILLET_ISA", isa)
        else:
            monkeypatch.delenv("RILLET_ISA", raising=False)
        if not litert_bits:
            (one,), _ = rillet_run(model, feeds, 1)
            np.testing.assert_allclose(one, reference, rtol=1e-5, atol=1e-6)
            expected = one.tobytes()
        for threads in (1, 2, 3):
            (got,), it = rillet_run(model, feeds, threads)
            assert got.tobytes() == expected, (isa, threads)
        (_, it) = rillet_run(model, feeds, 2)
        (row,) = [r for r in it.thread_profile(runs=1) if not r["folded"]]
        assert (row["thread_seconds"][1] > 0) == splits, (isa, row)
        (again,), _ = rillet_run(model, feeds, 2)
        assert again.tobytes() == expected  # a profiled invoke leaves the plan as it was


SIZES = [(3, 2731), (1, 197, 192), (5, 13, 127), (1, 8191)]


@pytest.mark.parametrize("shape", SIZES)
def test_dequantize_splits(shape, monkeypatch):
    x = np.random.default_rng(len(shape)).integers(-128, 128, shape).astype(I8)
    model = op_model("DEQUANTIZE", [Input(shape, I8, Quant(0.037, -7))], [(shape, np.float32)])
    assert_split_and_same_bits(model, [x], monkeypatch, splits=x.size >= 8192)


@pytest.mark.parametrize("shape", SIZES)
def test_quantize_from_float_and_int8_splits(shape, monkeypatch):
    rng = np.random.default_rng(len(shape))
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    model = op_model("QUANTIZE", [Input(shape, np.float32)], [(shape, I8, Quant(0.05, 3))])
    assert_split_and_same_bits(model, [x], monkeypatch, splits=x.size >= 8192)
    q = rng.integers(-128, 128, shape).astype(I8)
    model = op_model("QUANTIZE", [Input(shape, I8, Quant(0.05, 3))], [(shape, I8, Quant(0.07, -11))])
    assert_split_and_same_bits(model, [q], monkeypatch, splits=q.size >= 8192)


@pytest.mark.parametrize("shape", [(3, 2731), (1, 197, 768)])
def test_int8_gelu_table_splits(shape, monkeypatch):
    x = np.random.default_rng(1).integers(-128, 128, shape).astype(I8)
    model = op_model("GELU", [Input(shape, I8, Quant(0.06, 10))], [(shape, I8, Quant(0.03, -100))])
    assert_split_and_same_bits(model, [x], monkeypatch)


# (a shape, b shape): one long row (same shape, a single value), many rows against a per-row value, few long
# rows against a vector, the tiled short vector, and a broadcast in the middle.
BINARY = [
    ((1, 6, 150, 151), (1, 6, 150, 151)),
    ((1, 6, 150, 151), ()),
    ((), (3, 2731)),
    ((1, 197, 192), (1, 197, 1)),
    ((3, 4099), (4099,)),
    ((1, 197, 192), (192,)),
    ((7, 1, 1301), (7, 5, 1301)),
]


@pytest.mark.parametrize("op", ["MUL", "ADD", "SUB"])
@pytest.mark.parametrize("a_shape, b_shape", BINARY, ids=[str(i) for i in range(len(BINARY))])
def test_int8_binary_splits(op, a_shape, b_shape, monkeypatch):
    rng = np.random.default_rng(len(a_shape) + 7 * len(b_shape))
    a = rng.integers(-128, 128, a_shape).astype(I8)
    b = rng.integers(-128, 128, b_shape).astype(I8)
    out = np.broadcast_shapes(a.shape, b.shape)
    model = op_model(op, [Input(a.shape, I8, Quant(0.03, 5)), Input(b.shape, I8, Quant(0.05, -9))],
                     [(out, I8, Quant(0.08 if op != "MUL" else 0.05, -3))])
    assert_split_and_same_bits(model, [a, b], monkeypatch)


@pytest.mark.parametrize("shape, axis", [((1, 64, 128), -1), ((1, 197, 192), 2), ((5, 31, 67), 1), ((3, 40, 300), 1)])
def test_mean_slices_split(shape, axis, monkeypatch):
    """A layer norm's MEAN over channels (one slice per token), int8 and float; a middle axis (slices of rows),
    and int8 slices too wide for the stack sums (300 outputs: the caller alone, same bits)."""
    rng = np.random.default_rng(len(shape))
    out = list(shape)
    out[axis] = 1
    axes = np.array([axis], np.int32)
    x = rng.integers(-128, 128, shape).astype(I8)
    model = op_model("MEAN", [Input(shape, I8, Quant(0.04, 3)), axes], [(tuple(out), I8, Quant(0.02, -5))],
                     options={"keep_dims": True})
    assert_split_and_same_bits(model, [x], monkeypatch, splits=shape[-1] != 300)  # inner 300: stack too small
    f = rng.standard_normal(shape).astype(np.float32)
    model = op_model("MEAN", [Input(shape, np.float32), axes], [(tuple(out), np.float32)], options={"keep_dims": True})
    assert_split_and_same_bits(model, [f], monkeypatch)


@pytest.mark.parametrize("a_shape, b_shape", [((1, 64, 128), (1, 64, 1)), ((1, 64, 1), (1, 64, 128)),
                                              ((7, 1, 1301), (7, 5, 1301)), ((3, 4099), ())])
def test_int8_squared_difference_rows_split(a_shape, b_shape, monkeypatch):
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, a_shape).astype(I8)
    b = rng.integers(-128, 128, b_shape).astype(I8)
    out = np.broadcast_shapes(a.shape, b.shape)
    model = op_model("SQUARED_DIFFERENCE", [Input(a.shape, I8, Quant(0.03, 5)), Input(b.shape, I8, Quant(0.07, -9))],
                     [(out, I8, Quant(0.2, -100))])
    assert_split_and_same_bits(model, [a, b], monkeypatch)


@pytest.mark.parametrize("op, b_shape", [("ADD", (1, 197, 192)), ("MUL", (1, 197, 1)), ("SQUARED_DIFFERENCE", (1, 197, 1))])
def test_float_binary_of_a_token_block_splits(op, b_shape, monkeypatch):
    """A ViT's [197, 192] residual ADD and layer-norm MUL / SQUARED_DIFFERENCE: 37,824 elements, which stayed on
    the caller under the GEMMs' threshold."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((1, 197, 192)).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    model = op_model(op, [Input(a.shape, np.float32), Input(b.shape, np.float32)], [(a.shape, np.float32)])
    assert_split_and_same_bits(model, [a, b], monkeypatch)


@pytest.mark.parametrize("b_shape", [(), (1, 3, 197, 197)])
def test_float_binary_of_a_tail_splits(b_shape, monkeypatch):
    """ViT's attention scores times their scale (a single value) or plus a mask: 3 * 197 * 197 elements are not
    whole 64-element blocks, which kept the op on one thread; the last run takes the tail."""
    rng = np.random.default_rng(6)
    a = rng.standard_normal((1, 3, 197, 197)).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    model = op_model("MUL", [Input(a.shape, np.float32), Input(b.shape, np.float32)], [(a.shape, np.float32)])
    assert_split_and_same_bits(model, [a, b], monkeypatch)


@pytest.mark.parametrize("dtype", [np.float32, I8])
def test_attention_head_transpose_splits(dtype, monkeypatch):
    x = np.random.default_rng(6).integers(-100, 100, (1, 197, 3, 64)).astype(dtype)
    model = op_model("TRANSPOSE", [Input(x.shape, dtype), np.array([0, 2, 1, 3], np.int32)], [((1, 3, 197, 64), dtype)])
    assert_split_and_same_bits(model, [x], monkeypatch)


@pytest.mark.parametrize("shape", [(1, 56, 56, 24), (1, 7, 7, 1152), (1, 13, 11, 300), (1, 4, 1, 4099),
                                   (1, 20, 20, 1000)])
def test_int8_global_average_pool_splits_its_rows(shape, monkeypatch):
    """A squeeze-and-excite's MEAN over H and W (one slice: its rows summed in parts of 8 rows or more, the parts
    added by channels, split too where there are many: 4099 and 1000 channels); 4 rows: a part a row on 2
    threads, on 3 too few rows for parts (the caller alone, same bits)."""
    x = np.random.default_rng(7).integers(-128, 128, shape).astype(I8)
    out = (1, 1, 1, shape[3])
    model = op_model("MEAN", [Input(shape, I8, Quant(0.04, 3)), np.array([1, 2], np.int32)],
                     [(out, I8, Quant(0.02, -5))], options={"keep_dims": True})
    assert_split_and_same_bits(model, [x], monkeypatch)


@pytest.mark.parametrize("shape", [(1, 2, 64, 64), (3, 37, 129)])
def test_int8_softmax_rows_split(shape, monkeypatch):
    x = np.random.default_rng(8).integers(-128, 128, shape).astype(I8)
    model = op_model("SOFTMAX", [Input(shape, I8, Quant(0.1, 4))], [(shape, I8, Quant(1 / 256, -128))],
                     options={"beta": 1.0})
    assert_split_and_same_bits(model, [x], monkeypatch)
    model = op_model("LOG_SOFTMAX", [Input(shape, I8, Quant(0.1, 4))], [(shape, I8, Quant(16 / 256, 127))])
    assert_split_and_same_bits(model, [x], monkeypatch)


@pytest.mark.parametrize("op", ["HARD_SWISH", "LOGISTIC", "TANH", "RSQRT", "EXP", "LEAKY_RELU"])
@pytest.mark.parametrize("shape", [(1, 28, 28, 97), (3, 2731)])
def test_float_unary_outside_bands_splits(op, shape, monkeypatch):
    """A float activation outside a band run (after a strided convolution, or on a rank-2 tensor)."""
    x = np.random.default_rng(9).standard_normal(shape).astype(np.float32) * 3
    if op == "RSQRT":
        x = np.abs(x) + 0.1
    options = {"alpha": 0.2} if op == "LEAKY_RELU" else None
    model = op_model(op, [Input(shape, np.float32)], [(shape, np.float32)], options=options)
    assert_split_and_same_bits(model, [x], monkeypatch, litert_bits=False)


@pytest.mark.parametrize("shape", [(1, 7, 7, 576), (1, 14, 14, 1000), (2, 5, 5, 300), (1, 56, 56, 131),
                                   (1, 56, 56, 16), (1, 14, 14, 96), (1, 28, 28, 21)])
def test_float_global_average_pool_splits_its_channels(shape, monkeypatch):
    """A squeeze-and-excite's float MEAN over H and W: one slice a batch, split in blocks of 8 channels (16 and
    96: MobileNetV3-small's; 21: a block with a masked tail)."""
    x = np.random.default_rng(10).standard_normal(shape).astype(np.float32)
    model = op_model("MEAN", [Input(shape, np.float32), np.array([1, 2], np.int32)],
                     [((shape[0], 1, 1, shape[3]), np.float32)], options={"keep_dims": True})
    assert_split_and_same_bits(model, [x], monkeypatch, litert_bits=False)


@pytest.mark.parametrize("shape", [(1, 3, 3, 1), (1, 2, 5, 7), (2, 4, 3, 8), (1, 3, 2, 9), (1, 5, 5, 31),
                                   (1, 2, 2, 32), (1, 3, 1, 33), (2, 7, 7, 71), (1, 6, 6, 200)])
def test_float_mean_over_h_w_gives_the_scalar_paths_bits(shape, monkeypatch):
    """MEAN over H and W (f32_rdsum: AVX2's 32- and 8-channel steps and masked last 1-7 channels) on every path
    and thread count gives the scalar path's bits (each channel summed in row order from 0), with -0.0 and
    infinities among the terms, and LiteRT's values."""
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape).astype(np.float32)
    x[0, 0, 0, :] = -0.0
    x[-1, -1, -1, -1] = np.inf
    if shape[3] > 1:
        x[0, -1, 0, 0] = -np.inf  # another channel's
    model = op_model("MEAN", [Input(shape, np.float32), np.array([1, 2], np.int32)],
                     [((shape[0], 1, 1, shape[3]), np.float32)], options={"keep_dims": True})
    monkeypatch.setenv("RILLET_ISA", "scalar")
    (expected,), _ = rillet_run(model, [x], 1)
    for isa in PATHS:
        if isa:
            monkeypatch.setenv("RILLET_ISA", isa)
        else:
            monkeypatch.delenv("RILLET_ISA", raising=False)
        for threads in (1, 2):
            (got,), _ = rillet_run(model, [x], threads)
            assert got.tobytes() == expected.tobytes(), (isa, threads)
    np.testing.assert_allclose(expected, litert_default(model, [x])[0], rtol=1e-5, atol=1e-6)
