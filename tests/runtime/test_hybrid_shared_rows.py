"""Hybrid projections that read the same float rows share one quantization of them (native/ops/conv_hybrid_gemm.c,
share_quantized_rows): attention's Q, K and V FULLY_CONNECTEDs (or BATCH_MATMULs) quantized each row three
times. The first reader quantizes the rows into arena scratch that lives to the last reader's step; the later
ones read them there. LiteRT's default Interpreter quantizes every such row XNNPACK's way (asymmetric, per row)
whatever asymmetric_quantize_inputs says, so readers whose options differ share too, and the result must stay
LiteRT's bits, one thread's bits on 2 and 3 threads (in bands over the tokens), and the bits of the same readers
each quantizing on its own (each reading a copy of the rows: nothing to share)."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Quant, litert_default
from transformer_graphs import graph_model

from rillet.converter.format import load, save
from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

F32, I8 = np.float32, np.int8


def hybrid(model: bytes, rng: np.random.Generator, weights: dict[str, int]) -> bytes:
    """`model` with each float constant named in `weights` made int8, a scale per row of the given axis (-1:
    one scale for the tensor), as TensorFlow's dynamic-range quantizer writes them."""
    m = load(model)
    sg = m.subgraphs[0]
    for t in sg.tensors:
        if t.name not in weights:
            continue
        shape, axis = tuple(t.shape), weights[t.name]
        channels = shape[axis] if axis >= 0 else 1
        m.buffers[t.buffer].data = np.frombuffer(rng.integers(-127, 128, shape).astype(I8).tobytes(), np.uint8)
        t.type = 9  # INT8
        t.quantization = Quant(rng.uniform(0.002, 0.03, channels).astype(F32), 0, max(axis, 0)).parameters()
    return save(m)


def projections(seq: int, d: int, same_input: bool, seed: int = 0) -> bytes:
    """h = x + x, then three hybrid readers of h with different options (a FULLY_CONNECTED with
    asymmetric_quantize_inputs, one without and with a bias, a BATCH_MATMUL of a [d, d] constant), with
    float ops between them whose outputs the arena may place where the shared rows are unless they live on; the
    readers' sum is the output. same_input False: the second and third read copies of h (RESHAPEs to [seq, d]
    and back: views of h's block, but other tensors), so each quantizes its own rows."""
    rng = np.random.default_rng(seed)
    x, flat = (1, seq, d), (seq, d)
    consts = {"wq": np.zeros((d, d), F32), "wk": np.zeros((d, d), F32), "wv": np.zeros((d, d), F32),
              "bk": rng.uniform(-1, 1, d).astype(F32), "flat": np.array(flat, np.int32), "x3": np.array(x, np.int32)}
    k_in, v_in = ("h", "h") if same_input else ("hk", "hv")
    ops = [("ADD", ["x", "x"], "h", None),
           ("FULLY_CONNECTED", ["h", "wq"], "q", {"asymmetric_quantize_inputs": True}),
           ("MUL", ["q", "q"], "q2", None), ("ADD", ["q2", "x"], "q3", None)]
    if not same_input:
        ops += [("RESHAPE", ["h", "flat"], "hf", None), ("RESHAPE", ["hf", "x3"], "hk", None),
                ("RESHAPE", ["h", "flat"], "hf2", None), ("RESHAPE", ["hf2", "x3"], "hv", None)]
    ops += [("FULLY_CONNECTED", [k_in, "wk", "bk"], "k", {"asymmetric_quantize_inputs": False}),
            ("MUL", ["k", "q3"], "kq", None),
            ("BATCH_MATMUL", [v_in, "wv"], "v", {"asymmetric_quantize_inputs": True}),
            ("ADD", ["kq", "v"], "y", None)]
    shapes = {name: x for name in ("h", "q", "q2", "q3", "hk", "hv", "k", "kq", "v", "y")}
    shapes.update(hf=flat, hf2=flat)
    model = graph_model({"x": x}, consts, ops, "y", shapes)
    m = load(model)
    for code in m.operator_codes:  # the versions TensorFlow writes for hybrid FULLY_CONNECTED and BATCH_MATMUL
        if code.builtin_code in (9, 126):
            code.version = 12 if code.builtin_code == 9 else 4
    return hybrid(save(m), rng, {"wq": 0, "wk": 0, "wv": -1})


def run(model: bytes, x: np.ndarray, threads: int) -> tuple[np.ndarray, int]:
    """The output (after a second invoke: no stale rows of the first) and the plan's arena bytes."""
    it = Interpreter(model_content=model, num_threads=threads)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"]).copy(), it.memory_report()["arena_bytes"]


# 3 tokens: uneven on two threads (op by op); 17 and 64: bands ending inside the GEMM's row tiles, BERT-tiny's;
# a row of 3,000 is quantized before the product (too long for the tiles), and then shared as it is.
@pytest.mark.parametrize("seq, d", [(3, 16), (17, 40), (64, 128), (5, 3000)])
def test_readers_with_different_options_share_rows_and_keep_litert_s_bits(seq, d):
    shared, separate = projections(seq, d, True), projections(seq, d, False)
    x = (np.random.default_rng(seq).standard_normal((1, seq, d)) * 2 + 0.5).astype(F32)
    want, arena = run(shared, x, 1)
    (expected,) = litert_default(shared, [x])
    np.testing.assert_array_equal(want, expected)
    for threads in (2, 3):
        got, _ = run(shared, x, threads)
        np.testing.assert_array_equal(got, want, err_msg=f"{threads} threads")
    alone, arena_alone = run(separate, x, 1)
    np.testing.assert_array_equal(alone, want)
    # shared: the quantized rows (a byte per value) live in the arena from the first reader to the last
    assert arena - arena_alone >= seq * d, (arena, arena_alone)
