"""Bands over a transformer's tokens (native/src/bands.h): on several threads a layer norm's chain (MEAN,
SQUARED_DIFFERENCE or SUB, RSQRT, the MULs and ADDs, the [tokens] statistics of a MEAN that drops the axis and
the RESHAPE back), the MLP (FULLY_CONNECTED, GELU, FULLY_CONNECTED), the residual ADD and the next projection
run as one job, each thread carrying its band of tokens through every op. The results must be the bits one
thread gives for any token count (uneven splits run op by op) and LiteRT's values; the segments must form; and
an op that reads a tensor whole (a vector of channels) must not join a segment whose earlier op writes it."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import litert_default
from transformer_graphs import graph_model

from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

F32 = np.float32


def encoder_block(seq: int, d: int, hidden: int, keep_dims: bool, seed: int = 0) -> bytes:
    """x [1, seq, d] + a torch-style layer norm (keep_dims False: MEAN to [seq], RESHAPE to [1, seq, 1], as
    litert-torch writes ViT's), an MLP with GELU, the residual ADD, and a projection."""
    rng = np.random.default_rng(seed)
    x, row = (1, seq, d), (1, seq, 1)

    def w(*shape):
        return (rng.standard_normal(shape) / np.sqrt(shape[-1])).astype(F32)

    consts = {"axis": np.array([-1], np.int32), "eps": np.array(1e-5, F32), "row": np.array(row, np.int32),
              "gamma": rng.uniform(0.5, 1.5, d).astype(F32), "beta": rng.uniform(-0.5, 0.5, d).astype(F32),
              "w1": w(hidden, d), "b1": w(hidden), "w2": w(d, hidden), "b2": w(d), "wq": w(d, d), "bq": w(d)}
    stat = (seq,) if not keep_dims else row
    reduce = {"keep_dims": keep_dims}

    def statistic(name, source):  # a MEAN over the last axis, back to [1, seq, 1]
        if keep_dims:
            return [("MEAN", [source, "axis"], name, reduce)]
        return [("MEAN", [source, "axis"], name + "_flat", reduce), ("RESHAPE", [name + "_flat", "row"], name, None)]

    ops = [("ADD", ["x", "x"], "h", None), *statistic("mean", "h"), ("SUB", ["h", "mean"], "xc", None),
           ("MUL", ["xc", "xc"], "sq", None), *statistic("var", "sq"), ("ADD", ["var", "eps"], "var_eps", None),
           ("RSQRT", ["var_eps"], "inv", None), ("MUL", ["xc", "inv"], "xn", None),
           ("MUL", ["xn", "gamma"], "xg", None), ("ADD", ["xg", "beta"], "ln", None),
           ("FULLY_CONNECTED", ["ln", "w1", "b1"], "up", None), ("GELU", ["up"], "act", None),
           ("FULLY_CONNECTED", ["act", "w2", "b2"], "down", None), ("ADD", ["down", "ln"], "res", None),
           ("FULLY_CONNECTED", ["res", "wq", "bq"], "y", None)]
    shapes = {"h": x, "mean": row, "mean_flat": stat, "xc": x, "sq": x, "var": row, "var_flat": stat,
              "var_eps": row, "inv": row, "xn": x, "xg": x, "ln": x, "up": (1, seq, hidden),
              "act": (1, seq, hidden), "down": x, "res": x, "y": x}
    return graph_model({"x": x}, consts, ops, "y", shapes)


def run(model: bytes, x: np.ndarray, threads: int) -> tuple[np.ndarray, list[tuple[int, int]], list[str]]:
    it = Interpreter(model_content=model, num_threads=threads)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    it.invoke()  # twice: the second reads no stale band of the first
    plan = it._plan
    segments = [(i, plan.op_segment_last(i)) for i in range(len(plan.op_names)) if plan.op_segment_last(i) >= 0]
    return it.get_tensor(it.get_output_details()[0]["index"]).copy(), segments, list(plan.op_names)


# 3 tokens: 2 against 1 on two threads (op by op); 9 and 17: bands that end inside the GEMM's 6- and 7-row
# tiles; 64: BERT-tiny's; 197: ViT's.
@pytest.mark.parametrize("keep_dims", [True, False])
@pytest.mark.parametrize("seq, d, hidden", [(3, 16, 32), (9, 24, 40), (17, 33, 64), (64, 128, 512), (197, 64, 96)])
def test_token_bands_give_one_threads_bits_and_litert_values(seq, d, hidden, keep_dims):
    model = encoder_block(seq, d, hidden, keep_dims)
    x = (np.random.default_rng(seq).standard_normal((1, seq, d)) * 2 + 0.5).astype(F32)
    want, none, _ = run(model, x, 1)
    assert none == []  # one thread never bands
    for threads in (2, 3, 4):
        got, segments, names = run(model, x, threads)
        np.testing.assert_array_equal(got, want, err_msg=f"{threads} threads")
        if threads == 2 and seq > 3:  # the whole block is one segment
            assert segments == [(0, len(names) - 1)], (segments, names)
    (expected,) = litert_default(model, [x])
    np.testing.assert_allclose(want, expected, rtol=1e-5, atol=1e-5 * float(np.abs(expected).max()))


def test_uneven_tokens_run_op_by_op():
    _, segments, _ = run(encoder_block(3, 16, 32, keep_dims=True), np.ones((1, 3, 16), F32), 2)
    assert segments == []


def test_a_vector_made_in_a_segment_from_what_its_bands_do_not_write_is_made_before_them():
    """NEG of a [8] vector splits into 4 chunks as [4, 8] does, so it joins the ADD's segment; the MUL reads
    the vector whole (per channel), so its bands must not be writing it: the NEG, which reads nothing they write,
    runs whole before them (where it read what they write, the MUL would start a segment of its own:
    test_values_viewed_from_the_bands_output_stay_out_of_its_segment)."""
    x, v = (4, 8), (8,)
    ops = [("ADD", ["x", "x"], "h", None), ("NEG", ["v"], "nv", None), ("MUL", ["h", "nv"], "m", None),
           ("ADD", ["m", "x"], "y", None)]
    model = graph_model({"x": x, "v": v}, {}, ops, "y", {"h": x, "nv": v, "m": x, "y": x})
    feeds = [np.arange(32, dtype=F32).reshape(x), np.linspace(-1, 1, 8, dtype=F32)]
    outputs = {}
    for threads in (1, 2):
        it = Interpreter(model_content=model, num_threads=threads)
        it.allocate_tensors()
        for detail, value in zip(it.get_input_details(), feeds):
            it.set_tensor(detail["index"], value)
        it.invoke()
        outputs[threads] = it.get_tensor(it.get_output_details()[0]["index"]).copy()
        segments = [(i, it._plan.op_segment_last(i)) for i in range(4) if it._plan.op_segment_last(i) >= 0]
    assert segments == [(0, 3)]
    np.testing.assert_array_equal(outputs[2], outputs[1])
    np.testing.assert_array_equal(outputs[1], (2 * feeds[0]) * -feeds[1] + feeds[0])


def assert_bands_keep_bits(model: bytes, feed: np.ndarray, segments: list[tuple[int, int]], atol: float) -> None:
    """One thread's bits on 2 and 3 threads, the op ranges that run as `segments` on 2, and LiteRT's values."""
    want, _, _ = run(model, feed, 1)
    for threads in (2, 3):
        got, _, _ = run(model, feed, threads)
        np.testing.assert_array_equal(got, want, err_msg=f"{threads} threads")
    _, found, _ = run(model, feed, 2)
    assert found == segments
    (expected,) = litert_default(model, [feed])
    np.testing.assert_allclose(want, expected, rtol=1e-5, atol=atol)


@pytest.mark.parametrize("d", [48, 64])
def test_sin_bands_only_whole_blocks(d):
    """AVX2's SIN sends the last n % 8 values through libm: it bands only when a token is whole 64-value
    blocks, and either way gives one thread's bits."""
    x = (1, 6, d)
    ops = [("ADD", ["x", "x"], "h", None), ("SIN", ["h"], "s", None), ("ADD", ["s", "x"], "y", None)]
    model = graph_model({"x": x}, {}, ops, "y", {"h": x, "s": x, "y": x})
    feed = np.random.default_rng(d).uniform(-9, 9, x).astype(F32)
    want, _, _ = run(model, feed, 1)
    got, segments, _ = run(model, feed, 2)
    np.testing.assert_array_equal(got, want)
    assert segments == ([(0, 2)] if d % 64 == 0 else [])


@pytest.mark.parametrize("heads, seq, width", [(2, 64, 64), (3, 17, 8), (4, 9, 16)])
def test_heads_merged_by_a_transpose_head_the_projection_s_segment(heads, seq, width):
    """Attention's output [1, heads, seq, width] transposed to [1, seq, heads, width] (reading every head: it
    only heads a segment), reshaped to [1, seq, heads * width] and projected: one segment over the tokens."""
    rng = np.random.default_rng(seq)
    d = heads * width
    x, t, r = (1, heads, seq, width), (1, seq, heads, width), (1, seq, d)
    consts = {"perm": np.array([0, 2, 1, 3], np.int32), "shape": np.array(r, np.int32),
              "w": (rng.standard_normal((d, d)) / np.sqrt(d)).astype(F32), "b": rng.standard_normal(d).astype(F32)}
    ops = [("TRANSPOSE", ["x", "perm"], "t", None), ("RESHAPE", ["t", "shape"], "r", None),
           ("FULLY_CONNECTED", ["r", "w", "b"], "p", None), ("ADD", ["p", "r"], "y", None)]
    model = graph_model({"x": x}, consts, ops, "y", {"t": t, "r": r, "p": r, "y": r})
    feed = rng.standard_normal(x).astype(F32)
    assert_bands_keep_bits(model, feed, [(0, 3)], atol=1e-5)


@pytest.mark.parametrize("rows", [8, 64])
def test_a_log_softmax_joins_as_a_row_op(rows):
    """A classifier's loss chain (ADD, LOG_SOFTMAX, EXP, MUL): LOG_SOFTMAX normalizes each whole vector, so in
    bands it must take whole rows, never chunks of elements (it once ran as an element-wise op there, and a
    training file's loss came out negative)."""
    shape = (rows, 10)
    ops = [("ADD", ["x", "x"], "h", None), ("LOG_SOFTMAX", ["h"], "logp", None), ("EXP", ["logp"], "p", None),
           ("MUL", ["p", "logp"], "y", None)]
    model = graph_model({"x": shape}, {}, ops, "y", {"h": shape, "logp": shape, "p": shape, "y": shape})
    x = np.random.default_rng(rows).standard_normal(shape).astype(F32)
    want, _, _ = run(model, x, 1)
    got, segments, names = run(model, x, 2)
    assert segments == [(0, 3)], (segments, names)
    np.testing.assert_array_equal(got, want)
    (expected,) = litert_default(model, [x])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("heads, seq, width", [(2, 64, 64), (3, 17, 8), (4, 9, 16)])
def test_heads_split_by_transposes_end_the_projection_s_segment(heads, seq, width):
    """Attention's queries and keys: one projection of [1, seq, d], reshaped to [1, seq, heads, width], then
    transposed to [1, heads, seq, width] and (the keys) to [1, heads, width, seq]. Each TRANSPOSE copies the
    tokens a band computed to their places in every head (scattered), so both end the projection's segment; the
    BATCH_MATMUL of the two reads them whole after it."""
    rng = np.random.default_rng(seq)
    d = heads * width
    x, r = (1, seq, d), (1, seq, heads, width)
    consts = {"shape": np.array(r, np.int32), "q": np.array([0, 2, 1, 3], np.int32),
              "k": np.array([0, 2, 3, 1], np.int32),
              "w": (rng.standard_normal((d, d)) / np.sqrt(d)).astype(F32), "b": rng.standard_normal(d).astype(F32)}
    ops = [("FULLY_CONNECTED", ["x", "w", "b"], "p", None), ("RESHAPE", ["p", "shape"], "r", None),
           ("TRANSPOSE", ["r", "q"], "tq", None), ("TRANSPOSE", ["r", "k"], "tk", None),
           ("BATCH_MATMUL", ["tq", "tk"], "y", None)]
    shapes = {"p": x, "r": r, "tq": (1, heads, seq, width), "tk": (1, heads, width, seq), "y": (1, heads, seq, seq)}
    model = graph_model({"x": x}, consts, ops, "y", shapes)
    feed = rng.standard_normal(x).astype(F32)
    assert_bands_keep_bits(model, feed, [(0, 3)], atol=1e-5)


def test_a_scattered_output_is_not_read_in_its_segment():
    """A TRANSPOSE that ends a segment scattered writes other bands' rows: an element-wise op after it in the
    segment's pixels (NEG of the tokens, read by nothing) may join, one reading the transposed heads (ADD) may
    not."""
    seq, heads, width = 16, 2, 8
    d = heads * width
    x, r, t = (1, seq, d), (1, seq, heads, width), (1, heads, seq, width)
    rng = np.random.default_rng(3)
    consts = {"shape": np.array(r, np.int32), "perm": np.array([0, 2, 1, 3], np.int32),
              "w": (rng.standard_normal((d, d)) / np.sqrt(d)).astype(F32), "b": rng.standard_normal(d).astype(F32)}
    ops = [("FULLY_CONNECTED", ["x", "w", "b"], "p", None), ("RESHAPE", ["p", "shape"], "r", None),
           ("TRANSPOSE", ["r", "perm"], "t", None), ("NEG", ["r"], "n", None), ("ADD", ["t", "t"], "y", None)]
    model = graph_model({"x": x}, consts, ops, "y", {"p": x, "r": r, "t": t, "n": r, "y": t})
    feed = rng.standard_normal(x).astype(F32)
    want, _, _ = run(model, feed, 1)
    got, segments, _ = run(model, feed, 2)
    assert segments == [(0, 3)]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("heads, seq, width", [(2, 64, 64), (3, 17, 8), (4, 9, 16), (2, 197, 32)])
def test_attention_scores_scale_and_softmax_run_as_one_job(heads, seq, width):
    """Attention's scores: q [1, heads, seq, width] times k^T (here q's own transpose, a y that changes at every
    invoke), scaled, then SOFTMAX: the BATCH_MATMUL heads a segment over the heads' query rows, each band
    packing the heads' k^T it reads on its stack, and the MUL and SOFTMAX run on in the same band. A head that
    two bands share is packed by both; one thread's bits on 2 and 3 threads and LiteRT's values."""
    rng = np.random.default_rng(seq * heads)
    x, kt, s = (1, heads, seq, width), (1, heads, width, seq), (1, heads, seq, seq)
    consts = {"perm": np.array([0, 1, 3, 2], np.int32), "scale": np.array(width ** -0.5, F32)}
    ops = [("TRANSPOSE", ["x", "perm"], "kt", None), ("BATCH_MATMUL", ["x", "kt"], "s", None),
           ("MUL", ["s", "scale"], "z", None), ("SOFTMAX", ["z"], "y", None)]
    model = graph_model({"x": x}, consts, ops, "y", {"kt": kt, "s": s, "z": s, "y": s})
    feed = rng.standard_normal(x).astype(F32)
    assert_bands_keep_bits(model, feed, [(1, 3)], atol=1e-6)


@pytest.mark.parametrize("heads, seq, width", [(2, 64, 64), (3, 17, 8)])
def test_attention_scores_with_adj_y_run_as_one_job(heads, seq, width):
    """The same with k as [heads, seq, width] and adj_y (litert-torch's form): the band packs k's rows."""
    rng = np.random.default_rng(seq + heads)
    x, s = (1, heads, seq, width), (1, heads, seq, seq)
    ops = [("NEG", ["x"], "k", None), ("BATCH_MATMUL", ["x", "k"], "s", {"adj_y": True}), ("SOFTMAX", ["s"], "y", None)]
    model = graph_model({"x": x}, {}, ops, "y", {"k": x, "s": s, "y": s})
    feed = rng.standard_normal(x).astype(F32)
    assert_bands_keep_bits(model, feed, [(1, 2)], atol=1e-6)


@pytest.mark.parametrize("heads, seq, width", [(6, 30, 16), (3, 17, 8)])
def test_scores_viewed_with_a_batch_axis_stay_in_the_product_s_band(heads, seq, width):
    """Whisper's scores: a [heads, seq, seq] product, reshaped to [1, heads, seq, seq] before SOFTMAX. The
    SOFTMAX counts the same pixels (vectors of the last axis) in other rows (heads of seq pixels, not heads * seq
    of one), and joins the product's segment."""
    rng = np.random.default_rng(seq * width)
    x, s, v = (heads, seq, width), (heads, seq, seq), (1, heads, seq, seq)
    consts = {"shape": np.array(v, np.int32)}
    ops = [("NEG", ["x"], "k", None), ("BATCH_MATMUL", ["x", "k"], "s", {"adj_y": True}),
           ("RESHAPE", ["s", "shape"], "r", None), ("SOFTMAX", ["r"], "y", None)]
    model = graph_model({"x": x}, consts, ops, "y", {"k": x, "s": s, "r": v, "y": v})
    feed = rng.standard_normal(x).astype(F32)
    assert_bands_keep_bits(model, feed, [(1, 3)], atol=1e-6)


@pytest.mark.parametrize("op, bias", [("ADD", (1, 1, 17, 17)), ("MUL", (1, 1, 17, 17)), ("SUB", (3, 1, 17))])
def test_a_bias_over_the_heads_joins_the_scores_band(op, bias):
    """ViT's scores plus a [1, 1, seq, seq] bias repeated over the heads (a block of several rows, read whole),
    and a bias of one row per head ([heads, 1, seq], the general broadcast): each band takes its rows of the
    bias, between the product and SOFTMAX."""
    heads, seq, width = 3, 17, 8
    rng = np.random.default_rng(len(bias))
    x, s = (heads, seq, width), (heads, seq, seq)
    out = (1, *s) if len(bias) == 4 else s
    consts = {"bias": rng.standard_normal(bias).astype(F32)}
    ops = [("NEG", ["x"], "k", None), ("BATCH_MATMUL", ["x", "k"], "s", {"adj_y": True}),
           (op, ["s", "bias"], "z", None), ("SOFTMAX", ["z"], "y", None)]
    model = graph_model({"x": x}, consts, ops, "y", {"k": x, "s": s, "z": out, "y": out})
    feed = rng.standard_normal(x).astype(F32)
    assert_bands_keep_bits(model, feed, [(1, 3)], atol=1e-6)


def attention_model(heads: int, seq: int, width: int, values_from_scores: bool = False) -> bytes:
    """Attention over [heads, seq, width]: k and v computed before the scores (NEG, ADD), Q.K^T with adj_y,
    SOFTMAX, v viewed as [heads, seq, width] after it (as Whisper's RESHAPE of V), then P.V. With
    values_from_scores (seq == width) the values are a view of the scores instead, which the bands write."""
    x, s = (heads, seq, width), (heads, seq, seq)
    consts = {"shape": np.array(x if not values_from_scores else s, np.int32)}
    ops = [("NEG", ["x"], "k", None), ("ADD", ["x", "x"], "v", None),
           ("BATCH_MATMUL", ["x", "k"], "s", {"adj_y": True}), ("SOFTMAX", ["s"], "p", None),
           ("RESHAPE", ["s" if values_from_scores else "v", "shape"], "vr", None),
           ("BATCH_MATMUL", ["p", "vr"], "y", None)]
    shapes = {"k": x, "v": x, "s": s, "p": s, "vr": s if values_from_scores else x, "y": x}
    return graph_model({"x": x}, consts, ops, "y", shapes)


# 17 and 64: V packed on the band's stack; 300: deeper than the stack holds in x86's 16-wide panels, packed whole
# before the bands there.
@pytest.mark.parametrize("heads, seq, width", [(3, 17, 8), (2, 64, 64), (2, 300, 16)])
def test_attention_values_product_runs_in_the_scores_bands(heads, seq, width):
    """P.V joins the scores' segment: V, complete before it (its RESHAPE runs before the bands), is read whole by
    every band, each band multiplying its rows of P while they are in cache."""
    model = attention_model(heads, seq, width)
    feed = np.random.default_rng(seq).standard_normal((heads, seq, width)).astype(F32)
    assert_bands_keep_bits(model, feed, [(0, 1), (2, 5)], atol=1e-5)


def test_values_viewed_from_the_bands_output_stay_out_of_its_segment():
    """A view of what the bands write (here the scores, as the values) is not complete before them: the product
    reading it whole runs after the segment."""
    model = attention_model(2, 16, 16, values_from_scores=True)
    feed = np.random.default_rng(5).standard_normal((2, 16, 16)).astype(F32)
    assert_bands_keep_bits(model, feed, [(0, 1), (2, 4)], atol=1e-5)


def test_scores_larger_than_a_cache_run_in_cache_sized_bands_on_any_thread_count():
    """Scores of 2 x 1100 x 1100 floats (9.7 MB, as Whisper's 54 MB): the segment runs in bands of a few rows, so
    that the scores and SOFTMAX's rows are still in cache when P.V reads them; on one thread too. Bands of any
    size give one op-by-op run's bits, and LiteRT's values."""
    heads, seq, width = 2, 1100, 8
    model = attention_model(heads, seq, width)
    feed = np.random.default_rng(11).standard_normal((heads, seq, width)).astype(F32)
    got, segments, _ = run(model, feed, 1)
    assert segments == [(2, 5)]
    assert_bands_keep_bits(model, feed, [(0, 1), (2, 5)], atol=1e-5)
    it = Interpreter(model_content=model, num_threads=1)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], feed)
    profile = it.profile(runs=1)  # op by op: no bands
    np.testing.assert_array_equal(it.get_tensor(it.get_output_details()[0]["index"]), got)
    assert len(profile) == 6
