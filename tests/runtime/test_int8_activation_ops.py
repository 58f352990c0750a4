"""int8 RELU, RELU6, LEAKY_RELU, LOGISTIC, TANH, HARD_SWISH against LiteRT's default Interpreter, bit for bit.

Each example feeds all 256 int8 values (in a random shape), so a table entry that differs cannot hide."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_op import Input, Quant, assert_same_bits_as_litert, op_model, run

pytest.importorskip("ai_edge_litert")

EXAMPLES = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
I8 = np.int8
zero_points = st.integers(-128, 127)
SHAPES = [(256,), (2, 128), (1, 4, 8, 8), (16, 16)]


def log_uniform(low: float, high: float):
    return st.floats(np.log(low), np.log(high)).map(lambda v: float(np.float32(np.exp(v))))


def every_int8(seed: int, shape) -> np.ndarray:
    return np.random.default_rng(seed).permutation(np.arange(-128, 128)).astype(I8).reshape(shape)


def check(op, qi, qo, options=None, seed=0):
    shape = SHAPES[seed % len(SHAPES)]
    m = op_model(op, [Input(shape, I8, qi)], [((1,), I8, qo)], options)
    assert_same_bits_as_litert(m, [every_int8(seed, shape)])


@EXAMPLES
@given(st.sampled_from(["RELU", "RELU6", "HARD_SWISH"]), log_uniform(1e-3, 0.5), zero_points,
       log_uniform(1e-3, 0.5), zero_points, st.integers(0, 100))
def test_relu_relu6_hard_swish(op, si, zi, so, zo, seed):
    if op == "HARD_SWISH" and si / so >= 64:
        so = si  # see test_hard_swish_refuses_large_ratios
    check(op, Quant(si, zi), Quant(so, zo), seed=seed)


@EXAMPLES
@given(log_uniform(1e-3, 0.5), zero_points, log_uniform(1e-3, 0.5), zero_points,
       st.floats(0.0, 1.0).map(lambda v: float(np.float32(v))), st.integers(0, 100))
def test_leaky_relu(si, zi, so, zo, alpha, seed):
    check("LEAKY_RELU", Quant(si, zi), Quant(so, zo), {"alpha": alpha}, seed)


@EXAMPLES
@given(st.sampled_from(["LOGISTIC", "TANH"]), log_uniform(1e-3, 0.5), zero_points, st.booleans(),
       log_uniform(1e-3, 0.05), zero_points, st.integers(0, 100))
def test_logistic_tanh(op, si, zi, usual_output, so, zo, seed):
    if usual_output:  # what converters emit: 1/256 and -128 for LOGISTIC, 1/128 and 0 for TANH
        so, zo = (1 / 256, -128) if op == "LOGISTIC" else (1 / 128, 0)
    check(op, Quant(si, zi), Quant(so, zo), seed=seed)


@pytest.mark.parametrize("op", ["RELU", "LOGISTIC", "HARD_SWISH", "LEAKY_RELU"])
@pytest.mark.parametrize("quant,message", [
    (None, "one scale"), (Quant(0.0, 0), "scale 0"), (Quant(0.1, -129), "zero point -129"),
])
def test_malformed_quantization_is_refused(op, quant, message):
    from rillet.runtime import Interpreter

    m = op_model(op, [Input((4,), I8, quant)], [((4,), I8, Quant(0.1, 0))], {"alpha": 0.1} if op == "LEAKY_RELU" else None)
    with pytest.raises(Exception, match=message):
        Interpreter(model_content=m).allocate_tensors()


def test_hard_swish_refuses_large_ratios():
    """TFLite's HARD_SWISH needs input/output scale below 128 (LiteRT fails to prepare); rillet refuses too."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    m = op_model("HARD_SWISH", [Input((4,), I8, Quant(1.0, 0))], [((4,), I8, Quant(1 / 200, 0))])
    with pytest.raises(RuntimeError):  # LiteRT fails to prepare it
        LiteRT(model_content=m).allocate_tensors()
    with pytest.raises(Exception, match="too large for int8 HARD_SWISH"):
        Interpreter(model_content=m).allocate_tensors()


@EXAMPLES
@given(st.integers(0, 2**31 - 1), st.integers(1, 4), st.integers(1, 40), log_uniform(1e-3, 1.0), zero_points,
       st.sampled_from([1.0, 0.5, 1.7]))
def test_softmax(seed, rows, depth, si, zi, beta):
    x = np.random.default_rng(seed).integers(-128, 128, size=(rows, depth)).astype(I8)
    m = op_model("SOFTMAX", [Input(x.shape, I8, Quant(si, zi))], [((1,), I8, Quant(1 / 256, -128))], {"beta": beta})
    assert_same_bits_as_litert(m, [x])


def test_softmax_output_quantization_must_be_the_usual():
    """LiteRT refuses an int8 SOFTMAX output other than scale 1/256, zero point -128; so does rillet."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    m = op_model("SOFTMAX", [Input((2, 5), I8, Quant(0.1, 0))], [((1,), I8, Quant(1 / 256, 0))], {"beta": 1.0})
    with pytest.raises(RuntimeError, match="zero_point"):
        LiteRT(model_content=m).allocate_tensors()
    with pytest.raises(Exception, match="scale 1/256 and zero point -128"):
        Interpreter(model_content=m).allocate_tensors()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1), st.integers(1, 4), st.integers(1, 40), log_uniform(1e-3, 1.0), zero_points,
       st.integers(1, 255))
def test_log_softmax(seed, rows, depth, si, zi, spread):
    """TFLite's optimized float-table LOG_SOFTMAX (what LiteRT's default Interpreter runs on int8), bit for bit."""
    rng = np.random.default_rng(seed)
    low = int(rng.integers(-128, 256 - spread))
    x = rng.integers(low, low + spread + 1, size=(rows, depth)).clip(-128, 127).astype(I8)
    m = op_model("LOG_SOFTMAX", [Input(x.shape, I8, Quant(si, zi))], [((1,), I8, Quant(16 / 256, 127))])
    assert_same_bits_as_litert(m, [x])


def test_log_softmax_near_tie_is_rounded_as_the_default_interpreter_not_the_reference_kernel():
    """True value 96.500005: LiteRT's reference integer kernel gives 96, its default Interpreter 97."""
    x = np.array([[-66, -28, 98, 41, 104, -6, -13, 87, -38, 67, 73, 61, -65, -74, 89, 8, 108, -73, 116, 57, -76, -62,
                   -76, 123, -15, -54, -30, 84, 98, 78, 2, 19, -44, -6, 25, 84, 116, 71, -69]], I8)
    m = op_model("LOG_SOFTMAX", [Input(x.shape, I8, Quant(0.05364280194044113, 0))], [((1,), I8, Quant(16 / 256, 127))])
    assert_same_bits_as_litert(m, [x])
    from rillet.runtime import Interpreter

    assert run(Interpreter, m, [x])[0][0, 18] == 97


@pytest.mark.parametrize("quant", [Quant(16 / 256, 0), Quant(1 / 256, 127), Quant(1 / 256, -128)])
def test_log_softmax_output_quantization_must_be_the_usual(quant):
    """LiteRT refuses an int8 LOG_SOFTMAX output other than scale 16/256, zero point 127; so does rillet."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    m = op_model("LOG_SOFTMAX", [Input((2, 5), I8, Quant(0.1, 0))], [((1,), I8, quant)])
    with pytest.raises(RuntimeError):
        LiteRT(model_content=m).allocate_tensors()
    with pytest.raises(Exception, match="scale 16/256 and zero point 127"):
        Interpreter(model_content=m).allocate_tensors()
