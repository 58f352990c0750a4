"""TFLite's 16x8 mode (int16 activations with zero point 0, int8 weights) outside the GEMM family, against
LiteRT's default Interpreter bit for bit: models from TensorFlow's converter (tests/data/int16x8_ops, made by
bench/make_int16x8_ops.py) and single-op models over random shapes, scales and values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_op import (
    OPTIONS_TYPES,
    Const,
    Input,
    Quant,
    assert_same_bits_as_litert,
    litert_default,
    op_model,
    run,
)

pytest.importorskip("ai_edge_litert")

OPTIONS_TYPES.update({"MAXIMUM": "MaximumMinimumOptions", "MINIMUM": "MaximumMinimumOptions",
                      "REDUCE_MAX": "ReducerOptions", "REDUCE_MIN": "ReducerOptions", "GELU": "GeluOptions",
                      "FLOOR_DIV": "FloorDivOptions", "FLOOR_MOD": "FloorModOptions",
                      "REDUCE_PROD": "ReducerOptions"})
DATA = Path(__file__).resolve().parents[1] / "data" / "int16x8_ops"
EXAMPLES = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
I16 = np.int16
seeds = st.integers(0, 2**31 - 1)


def int16s(seed: int, shape, low: int = -32768, high: int = 32768) -> np.ndarray:
    return np.random.default_rng(seed).integers(low, high, size=shape).astype(I16)


def log_uniform(low: float, high: float):
    return st.floats(np.log(low), np.log(high)).map(lambda v: float(np.float32(np.exp(v))))


def q(scale: float, zero_point: int = 0) -> Quant:
    return Quant(scale, zero_point)


def x16(shape, scale: float) -> Input:
    return Input(shape, I16, q(scale))


shapes = st.lists(st.integers(1, 9), min_size=1, max_size=4).map(tuple)


@st.composite
def broadcast_pair(draw):
    out = tuple(draw(st.integers(1, 7)) for _ in range(draw(st.integers(1, 4))))

    def operand():
        rank = draw(st.integers(0, len(out)))
        return tuple(d if draw(st.booleans()) else 1 for d in out[len(out) - rank:])
    return operand(), operand()


# ---- the converter's models ----

@pytest.mark.parametrize("name", ["attention_block", "elementwise", "pooling"])
def test_converted_models_give_litert_bits(name):
    from rillet.runtime import Interpreter

    content = (DATA / f"{name}.tflite").read_bytes()
    data = np.load(DATA / f"{name}.npz")
    feeds = [data[f"input_{i}"] for i in range(sum(k.startswith("input_") for k in data))]
    stored = [data[f"output_{i}"] for i in range(sum(k.startswith("output_") for k in data))]
    got = run(Interpreter, content, feeds)
    live = litert_default(content, feeds)
    for g, s, e in zip(got, stored, live):
        assert g.dtype == s.dtype and g.shape == s.shape
        assert g.tobytes() == s.tobytes(), f"{name}: {np.count_nonzero(g != s)} of {g.size} differ from LiteRT's file"
        assert g.tobytes() == e.tobytes()


def test_the_converted_models_run_int16_ops():
    """The fixtures exercise what they are for: int16 tensors feed every op between the first QUANTIZE and the
    last DEQUANTIZE (no float fallback hides an op)."""
    from rillet.converter.format import load

    int16_ops = set()
    for name in ["attention_block", "elementwise", "pooling"]:
        model = load((DATA / f"{name}.tflite").read_bytes())
        graph = model.subgraphs[0]
        for op in graph.operators:
            code = model.operator_codes[op.opcode_index].builtin_code
            if code not in (6, 114) and graph.tensors[op.inputs[0]].type == 7:
                int16_ops.add(code)
    # ADD, AVERAGE_POOL_2D, CONCATENATION, MAX_POOL_2D, LOGISTIC, MUL, SOFTMAX, TANH, PAD, SUB, RSQRT, MAXIMUM,
    # MINIMUM, LEAKY_RELU, BATCH_MATMUL, GELU, MEAN, SUM (the converter fuses RELU and RELU6 into the ops before)
    assert {0, 1, 2, 17, 14, 18, 25, 28, 34, 41, 76, 55, 57, 98, 126, 150, 40, 74} <= int16_ops


# ---- conversions ----

@EXAMPLES
@given(seeds, shapes, log_uniform(1e-5, 1.0))
def test_quantize_float_to_int16(seed, shape, scale):
    """Blocks of 8 round half to even after a multiply by the reciprocal, the last n % 8 values half away from
    zero after a division (LiteRT's NEON code on x86 and its scalar tail): ties, and values past int16, in both."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * scale * 20000).astype(np.float32)
    ties = (rng.integers(-40000, 40000, x.size) + 0.5).astype(np.float32) * np.float32(scale)
    x.flat[::3] = ties[::3]
    assert_same_bits_as_litert(op_model("QUANTIZE", [Input(shape, np.float32)], [(shape, I16, q(scale))]), [x])


def test_quantize_exact_ties_round_half_even_in_blocks_of_8_and_away_from_zero_after():
    scale = 0.5
    x = np.array([-7, -5, -3, -1, 1, 3, 5, 7, -7, -5, -3, 1, 3], np.float32) * np.float32(0.25)  # x / scale: ties
    m = op_model("QUANTIZE", [Input(x.shape, np.float32)], [(x.shape, I16, q(scale))])
    assert_same_bits_as_litert(m, [x])
    got = litert_default(m, [x])[0]
    assert list(got[:8]) == [-4, -2, -2, 0, 0, 2, 2, 4] and list(got[8:]) == [-4, -3, -2, 1, 2]


@EXAMPLES
@given(seeds, shapes, log_uniform(1e-4, 1e-1), log_uniform(1e-4, 1e-1), st.integers(-128, 127))
def test_requantize_int16_to_int16_and_int8(seed, shape, s_in, s_out, zero_point):
    x = int16s(seed, shape)
    assert_same_bits_as_litert(op_model("QUANTIZE", [x16(shape, s_in)], [(shape, I16, q(s_out))]), [x])
    assert_same_bits_as_litert(op_model("QUANTIZE", [x16(shape, s_in)], [(shape, np.int8, q(s_out * 256, zero_point))]),
                               [x])


@EXAMPLES
@given(seeds, shapes, log_uniform(1e-3, 1.0), log_uniform(1e-5, 1e-2), st.integers(-128, 127))
def test_quantize_int8_to_int16_and_dequantize(seed, shape, s_in, s_out, zero_point):
    x8 = np.random.default_rng(seed).integers(-128, 128, shape).astype(np.int8)
    assert_same_bits_as_litert(
        op_model("QUANTIZE", [Input(shape, np.int8, q(s_in, zero_point))], [(shape, I16, q(s_out))]), [x8])
    dequantize = op_model("DEQUANTIZE", [x16(shape, s_out)], [(shape, np.float32)])
    assert_same_bits_as_litert(dequantize, [int16s(seed, shape)])


# ---- element-wise binary ----

@EXAMPLES
@given(seeds, broadcast_pair(), st.sampled_from(["ADD", "SUB"]), log_uniform(1e-4, 1e-2), log_uniform(1e-4, 1e-2),
       log_uniform(1e-4, 1e-2), st.sampled_from([0, 1, 3]))
def test_add_sub_general_scales(seed, shapes_ab, op, sa, sb, so, act):
    """What the converter writes: pot_scale_int16 = false, TFLite's 15-bit fixed-point path."""
    m = op_model(op, [x16(shapes_ab[0], sa), x16(shapes_ab[1], sb)], [((1,), I16, q(so))],
                 {"fused_activation_function": act, "pot_scale_int16": False})
    assert_same_bits_as_litert(m, [int16s(seed, shapes_ab[0]), int16s(seed + 1, shapes_ab[1])])


@EXAMPLES
@given(seeds, shapes, st.sampled_from(["ADD", "SUB"]), st.integers(-14, -10), st.integers(0, 3), st.booleans(),
       st.sampled_from([0, 1]))
def test_add_sub_power_of_two_scales(seed, shape, op, log2_out, finer, second_finer, act):
    """pot_scale_int16 = true (the schema's default) with power-of-two scales: the LSTM path, saturating."""
    sa, sb = (2.0 ** log2_out, 2.0 ** (log2_out - finer))[:: -1 if not second_finer else 1]
    m = op_model(op, [x16(shape, sa), x16(shape, sb)], [(shape, I16, q(2.0 ** log2_out))],
                 {"fused_activation_function": act, "pot_scale_int16": True})
    assert_same_bits_as_litert(m, [int16s(seed, shape), int16s(seed + 1, shape)])


def test_the_pot_scale_int16_option_picks_the_arithmetic():
    """The two ADD arithmetics differ on the same power-of-two scales, and rillet follows the option."""
    shape = (4, 64)
    feeds = [int16s(1, shape), int16s(2, shape)]
    results = []
    for pot in (False, True):
        m = op_model("ADD", [x16(shape, 2.0**-12), x16(shape, 2.0**-13)], [(shape, I16, q(2.0**-12))],
                     {"pot_scale_int16": pot})
        assert_same_bits_as_litert(m, feeds)
        results.append(litert_default(m, feeds)[0])
    assert not np.array_equal(results[0], results[1])


def test_same_shape_add_rounds_its_inputs_once_in_blocks_of_16(monkeypatch):
    """LiteRT's same-shape general int16 ADD rescales each input of the first n - n % 16 values with one rounding
    (ties up), the rest, broadcasts and SUB with TFLite's two. Input 0's multiplier 2^30 + 2^10 puts an exact tie
    at every 64 * odd value, and an output step of about one unit of the sum shows which rounding ran."""
    from test_kernel_paths import PATHS

    from rillet.runtime import Interpreter

    sa, sb, so = np.float32(0.5 + 2**-21), np.float32(1.0), np.float32(2**-14 * (1 + 2**-10))
    k = np.resize(np.array([1, -1, 3, -3, -511, 511]), 40)
    a, b = (64 * k).astype(I16), (-32 * k).astype(I16)
    cases = [("ADD", a, b), ("SUB", a, -b), ("ADD", a.reshape(2, 20), b[:20])]
    # a Whisper-sized same-shape ADD (its positional embedding) where two roundings put 4 of 576,000 values off
    big = op_model("ADD", [x16((1, 1500, 384), 3.9895607e-05), x16((1500, 384), 5.5128636e-05)],
                   [((1, 1500, 384), I16, q(8.2951265e-05))], {"pot_scale_int16": False})
    big_feeds = [int16s(7, (1, 1500, 384)), int16s(8, (1500, 384))]
    # ties throughout a tensor of 142,191 values (n % 16 = 15), long enough to be split over threads
    long_k = np.random.default_rng(9).choice([1, -1, 3, -3], (3, 777, 61))
    long_feeds = [(64 * long_k).astype(I16), (-32 * long_k).astype(I16)]
    long_ties = op_model("ADD", [x16(long_k.shape, sa), x16(long_k.shape, sb)], [(long_k.shape, I16, q(so))],
                         {"pot_scale_int16": False})
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        for op, x, y in cases:
            m = op_model(op, [x16(x.shape, sa), x16(y.shape, sb)], [(x.shape, I16, q(so))], {"pot_scale_int16": False})
            assert_same_bits_as_litert(m, [x, y])
        assert_same_bits_as_litert(big, big_feeds)
        for model, feeds in ((big, big_feeds), (long_ties, long_feeds)):
            for threads in (1, 2, 3):  # runs of 64 over the threads round as one run over the tensor would
                assert run(Interpreter, model, feeds, num_threads=threads)[0].tobytes() == \
                    litert_default(model, feeds)[0].tobytes(), (isa, threads)
    (blocks,) = litert_default(op_model("ADD", [x16(a.shape, sa), x16(b.shape, sb)], [(a.shape, I16, q(so))],
                                        {"pot_scale_int16": False}), [a, b])
    once = np.floor(k / 2 + 0.5)  # k / 2 rounded half up: the sum input 0 + input 1 is that tie's rounding
    twice = np.where(k < 0, np.ceil(k / 2 - 0.5), once)  # half away from zero
    assert np.array_equal(blocks[:32], once[:32]) and np.array_equal(blocks[32:], twice[32:])


@EXAMPLES
@given(seeds, broadcast_pair(), log_uniform(1e-4, 1e-2), log_uniform(1e-4, 1e-2), log_uniform(1e-5, 1e-2),
       st.sampled_from([0, 1, 3]))
def test_mul(seed, shapes_ab, sa, sb, so, act):
    m = op_model("MUL", [x16(shapes_ab[0], sa), x16(shapes_ab[1], sb)], [((1,), I16, q(so))],
                 {"fused_activation_function": act})
    assert_same_bits_as_litert(m, [int16s(seed, shapes_ab[0]), int16s(seed + 1, shapes_ab[1])])


@EXAMPLES
@given(seeds, broadcast_pair(), log_uniform(1e-4, 1e-2), log_uniform(1e-4, 1e-2), log_uniform(0.02, 50.0),
       st.sampled_from([0, 1, 3]))
def test_div(seed, shapes_ab, sa, sb, ratio, act):
    m = op_model("DIV", [x16(shapes_ab[0], sa), x16(shapes_ab[1], sb)], [((1,), I16, q(sa / sb / ratio))],
                 {"fused_activation_function": act})
    b = int16s(seed + 1, shapes_ab[1])
    b[b == 0] = 1
    assert_same_bits_as_litert(m, [int16s(seed, shapes_ab[0]), b])


@EXAMPLES
@given(seeds, broadcast_pair(), st.sampled_from(["FLOOR_DIV", "FLOOR_MOD"]))
def test_floor_div_mod_on_raw_values(seed, shapes_ab, op):
    m = op_model(op, [x16(shapes_ab[0], 0.001), x16(shapes_ab[1], 0.002)], [((1,), I16, q(0.003))])
    a, b = int16s(seed, shapes_ab[0]), int16s(seed + 1, shapes_ab[1], -300, 300)
    a.flat[0] = -32768
    b[b == 0] = -1
    assert_same_bits_as_litert(m, [a, b])


def test_div_by_zero_fails_the_invoke_as_in_litert():
    from rillet.runtime import Interpreter

    m = op_model("DIV", [x16((3,), 0.01), x16((3,), 0.01)], [((3,), I16, q(0.01))], {})
    feeds = [np.array([1, 2, 3], I16), np.array([1, 0, 2], I16)]
    with pytest.raises(RuntimeError):
        litert_default(m, feeds)
    with pytest.raises(Exception, match="DIV by zero"):
        run(Interpreter, m, feeds)


@EXAMPLES
@given(seeds, broadcast_pair(), st.sampled_from(["MAXIMUM", "MINIMUM"]), log_uniform(1e-4, 1e-2))
def test_maximum_minimum(seed, shapes_ab, op, scale):
    m = op_model(op, [x16(shapes_ab[0], scale), x16(shapes_ab[1], scale)], [((1,), I16, q(scale))])
    assert_same_bits_as_litert(m, [int16s(seed, shapes_ab[0]), int16s(seed + 1, shapes_ab[1])])


@EXAMPLES
@given(seeds, broadcast_pair(), st.sampled_from(["EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER",
                                                 "GREATER_EQUAL"]), log_uniform(1e-4, 1e-2), st.sampled_from([1, 2]))
def test_comparisons(seed, shapes_ab, op, scale, ratio):
    # Small values and scales 1:1 or 1:2, so that equal real values occur.
    m = op_model(op, [x16(shapes_ab[0], scale), x16(shapes_ab[1], scale * ratio)], [((1,), np.bool_)])
    assert_same_bits_as_litert(m, [int16s(seed, shapes_ab[0], -4, 5), int16s(seed + 1, shapes_ab[1], -2, 3)])


@EXAMPLES
@given(seeds, st.integers(1, 6), st.integers(1, 9), log_uniform(1e-4, 1e-2), log_uniform(1e-3, 1e-1),
       st.integers(-20, 20), st.booleans())
def test_prelu(seed, rows, channels, scale, alpha_scale, alpha_zero_point, per_channel):
    alpha_shape = (channels,) if per_channel else (1,)
    alpha = np.random.default_rng(seed).integers(-128, 128, alpha_shape).astype(np.int8)
    m = op_model("PRELU", [x16((rows, channels), scale), Const(alpha, q(alpha_scale, alpha_zero_point))],
                 [((rows, channels), I16, q(scale * 1.5))])
    assert_same_bits_as_litert(m, [int16s(seed, (rows, channels))])


# ---- activations and SOFTMAX ----

@EXAMPLES
@given(seeds, shapes, log_uniform(1e-6, 1e-2), st.sampled_from([1.0, 0.5, 2.0]))
def test_softmax(seed, shape, scale, beta):
    m = op_model("SOFTMAX", [x16(shape, scale)], [(shape, I16, q(1 / 32768))], {"beta": beta})
    assert_same_bits_as_litert(m, [int16s(seed, shape)])


@EXAMPLES
@given(seeds, shapes, st.sampled_from(["LOGISTIC", "TANH"]),
       st.one_of(log_uniform(1e-5, 1e-2), st.sampled_from([2.0**-12, 2.0**-11])))
def test_logistic_tanh(seed, shape, op, scale):
    """2^-12 (and 2^-11 for TANH) take gemmlowp's Q3.12 functions, other scales TFLite's sigmoid table."""
    m = op_model(op, [x16(shape, scale)], [(shape, I16, q(1 / 32768))])
    assert_same_bits_as_litert(m, [int16s(seed, shape)])


@EXAMPLES
@given(seeds, shapes, st.sampled_from(["RELU", "RELU6", "LEAKY_RELU"]), log_uniform(1e-4, 1e-2),
       log_uniform(1e-4, 1e-2), st.floats(-1.0, 2.0))
def test_relu_family(seed, shape, op, s_in, s_out, alpha):
    options = {"alpha": alpha} if op == "LEAKY_RELU" else None
    m = op_model(op, [x16(shape, s_in)], [(shape, I16, q(s_out))], options)
    assert_same_bits_as_litert(m, [int16s(seed, shape)])


@EXAMPLES
@given(seeds, shapes, st.sampled_from(["ABS", "NEG", "EXP", "LOG", "SQRT", "RSQRT", "GELU", "GELU_TANH"]),
       log_uniform(1e-4, 1e-2), log_uniform(1e-4, 1e-2))
def test_unary(seed, shape, op, s_in, s_out):
    options = None
    if op.startswith("GELU"):
        op, options = "GELU", {"approximate": op == "GELU_TANH"}
    low = 0 if op in ("LOG", "SQRT", "RSQRT") else -32768
    x = int16s(seed, shape, low)
    assert_same_bits_as_litert(op_model(op, [x16(shape, s_in)], [(shape, I16, q(s_out))], options), [x])


def test_cases_the_sweeps_found():
    """Each once differed from LiteRT: a table whose steps wrap (EXP saturating: TFLite keeps the slope in int16),
    a negative LEAKY_RELU alpha on ties (a negative multiplier, not a negated result), a RELU rescale whose ratio
    TFLite divides in float."""
    every = np.arange(-32768, 32768, dtype=I16)
    m = op_model("EXP", [x16(every.shape, 0.00865169521421194)], [(every.shape, I16, q(0.0024787522852420807))])
    assert_same_bits_as_litert(m, [every])
    ties = np.array([-5, -3, -1, 0, 1, -32768, 7], I16)
    m = op_model("LEAKY_RELU", [x16(ties.shape, 0.0067379)], [(ties.shape, I16, q(0.0067379))], {"alpha": -0.5})
    assert_same_bits_as_litert(m, [ties])
    m = op_model("RELU", [x16((1,), 0.00105446414090693)], [((1,), I16, q(0.0001885506499093026))])
    assert_same_bits_as_litert(m, [np.array([4131], I16)])


def test_rsqrt_of_a_negative_value_fails_the_invoke_as_in_litert():
    from rillet.runtime import Interpreter

    m = op_model("RSQRT", [x16((4,), 0.01)], [((4,), I16, q(0.01))])
    x = np.array([4, 1, -3, 2], I16)
    with pytest.raises(RuntimeError):
        litert_default(m, [x])
    with pytest.raises(Exception, match="RSQRT of a negative value"):
        run(Interpreter, m, [x])


# ---- reductions and pooling ----

@EXAMPLES
@given(seeds, st.lists(st.integers(1, 6), min_size=1, max_size=4).map(tuple), st.data(),
       st.sampled_from(["MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN"]), log_uniform(1e-4, 1e-2), st.booleans())
def test_reductions(seed, shape, data, op, s_in, keep_dims):
    axes = sorted(data.draw(st.sets(st.integers(0, len(shape) - 1), min_size=1)))
    reduced = int(np.prod([shape[a] for a in axes]))
    s_out = s_in if op.startswith("REDUCE") else (data.draw(log_uniform(s_in / 4, s_in * 4)) if op == "MEAN"
                                                 else s_in * reduced / 2)
    m = op_model(op, [x16(shape, s_in), np.array(axes, np.int32)], [((1,), I16, q(s_out))], {"keep_dims": keep_dims})
    assert_same_bits_as_litert(m, [int16s(seed, shape)])


@EXAMPLES
@given(seeds, st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), st.data(), log_uniform(1e-3, 1e-1),
       st.booleans())
def test_reduce_prod(seed, shape, data, s_in, keep_dims):
    """Every step rescaled by input_scale / output_scale^(1/n), as TFLite's QuantizedReduceProd."""
    axes = sorted(data.draw(st.sets(st.integers(0, len(shape) - 1), min_size=1)))
    reduced = int(np.prod([shape[a] for a in axes]))
    s_out = float(np.float32(s_in * data.draw(st.floats(0.01, 100.0))))
    m = op_model("REDUCE_PROD", [x16(shape, s_in), np.array(axes, np.int32)], [((1,), I16, q(s_out))],
                 {"keep_dims": keep_dims})
    assert_same_bits_as_litert(m, [int16s(seed, shape, -300 // reduced - 3, 300 // reduced + 4)])


def test_reduce_prod_steps_past_2_to_the_7():
    """The int8 kernel's rule on int16 values: per-step rescales up to 2^14 run, a product of one value copies."""
    for shape, s_in, s_out in (((4, 1, 3), 1.0, 1 / 148), ((3, 2), 1.0, 1 / 148**2), ((3, 2), 1.0, 1e-8)):
        m = op_model("REDUCE_PROD", [x16(shape, s_in), np.array([1], np.int32)],
                     [(tuple(d for i, d in enumerate(shape) if i != 1), I16, q(s_out))], {"keep_dims": False})
        assert_same_bits_as_litert(m, [int16s(len(shape), shape, -3, 4)])


@EXAMPLES
@given(seeds, st.sampled_from(["MAX_POOL_2D", "AVERAGE_POOL_2D"]), st.integers(1, 9), st.integers(1, 9),
       st.integers(1, 4), st.integers(1, 3), st.integers(1, 3), st.sampled_from([0, 1]), st.sampled_from([0, 1, 3]))
def test_pooling(seed, op, h, w, filter_size, stride, channels, padding, act):
    # padding 0 is SAME, 1 VALID (TFLite's schema)
    if padding == 1 and (filter_size > h or filter_size > w):
        filter_size = min(h, w)
    shape = (2, h, w, channels)
    m = op_model(op, [x16(shape, 0.001)], [((1, 1, 1, channels), I16, q(0.001))],
                 {"padding": padding, "stride_w": stride, "stride_h": stride, "filter_width": filter_size,
                  "filter_height": filter_size, "fused_activation_function": act})
    assert_same_bits_as_litert(m, [int16s(seed, shape)])


@EXAMPLES
@given(seeds, st.sampled_from(["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"]), st.integers(1, 6), st.integers(1, 6),
       st.integers(1, 13), st.integers(1, 13), st.sampled_from([(False, False), (True, False), (False, True)]))
def test_resize(seed, op, in_h, in_w, out_h, out_w, corners_half_pixel):
    align_corners, half_pixel_centers = corners_half_pixel
    shape = (2, in_h, in_w, 3)
    m = op_model(op, [x16(shape, 0.001), np.array([out_h, out_w], np.int32)], [((2, out_h, out_w, 3), I16, q(0.001))],
                 {"align_corners": align_corners, "half_pixel_centers": half_pixel_centers})
    assert_same_bits_as_litert(m, [int16s(seed, shape)])


# ---- what rillet refuses, with LiteRT's reasons ----

def test_int16_prelu_with_int16_alpha_is_refused_naming_it():
    from rillet.runtime import Interpreter

    m = op_model("PRELU", [x16((2, 4), 0.001), Const(np.ones(4, I16), q(0.01))], [((2, 4), I16, q(0.001))])
    with pytest.raises(Exception, match="int16 PRELU needs int8 alpha"):
        run(Interpreter, m, [int16s(0, (2, 4))])


def test_int16_softmax_needs_its_output_scale():
    from rillet.runtime import Interpreter

    m = op_model("SOFTMAX", [x16((2, 4), 0.001)], [((2, 4), I16, q(1 / 16384))], {"beta": 1.0})
    with pytest.raises(Exception, match="1/32768"):
        run(Interpreter, m, [int16s(0, (2, 4))])
