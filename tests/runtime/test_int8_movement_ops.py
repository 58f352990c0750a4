"""int8 through the data-movement ops (any-dtype kernels): values and quantization pass through unchanged,
bit for bit as LiteRT's default Interpreter gives them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_op import Const, Input, Quant, assert_same_bits_as_litert, op_model

pytest.importorskip("ai_edge_litert")

EXAMPLES = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
I8 = np.int8
Q = Quant(0.05, -7)


def int8s(seed: int, shape) -> np.ndarray:
    return np.random.default_rng(seed).integers(-128, 128, size=shape).astype(I8)


CASES = {
    "RESHAPE": ([np.array([6, -1], np.int32)], {"new_shape": [6, -1]}),
    "TRANSPOSE": ([np.array([0, 2, 1, 3], np.int32)], None),
    "PAD": ([np.array([[0, 0], [1, 2], [0, 1], [2, 0]], np.int32)], None),
    "PADV2": ([np.array([[0, 0], [1, 2], [0, 1], [2, 0]], np.int32), Const(np.array(37, I8), Q)], None),
    "STRIDED_SLICE": ([np.array([0, 1, 0, 1], np.int32), np.array([2, 3, 3, 5], np.int32),
                       np.array([1, 1, 2, 2], np.int32)], {}),
    "GATHER": ([np.array([2, 0, 1, 1], np.int32)], {"axis": 3}),
    "EXPAND_DIMS": ([np.array(1, np.int32)], None),
    "SQUEEZE": ([], {"squeeze_dims": [0]}),
}


@pytest.mark.parametrize("op", sorted(CASES))
@pytest.mark.parametrize("seed", [0, 1])
def test_movement(op, seed):
    extra, options = CASES[op]
    shape = (1, 3, 4, 5)
    m = op_model(op, [Input(shape, I8, Q), *extra], [((1,), I8, Q)], options)
    assert_same_bits_as_litert(m, [int8s(seed, shape)])


@EXAMPLES
@given(st.integers(0, 2**31 - 1), st.integers(1, 4), st.integers(0, 3), st.lists(st.integers(1, 6), min_size=4, max_size=4))
def test_concatenation_same_quantization(seed, n, axis, dims):
    shapes = []
    for i in range(n):
        s = list(dims)
        s[axis] = dims[axis] + i % 2
        shapes.append(tuple(s))
    m = op_model("CONCATENATION", [Input(s, I8, Q) for s in shapes], [((1,), I8, Q)],
                 {"axis": axis, "fused_activation_function": 0})
    assert_same_bits_as_litert(m, [int8s(seed + i, s) for i, s in enumerate(shapes)])


@pytest.mark.parametrize("op", ["CONCATENATION", "PACK"])
@pytest.mark.parametrize("q_input,q_output", [(Quant(0.1, 0), Q), (Q, Quant(0.2, 5)), (Quant(Q.scales, 3), Q)])
def test_concatenation_of_unlike_quantization_is_refused(op, q_input, q_output):
    """LiteRT 2.3 fails to prepare int8 inputs quantized unlike the output with every resolver: XNNPACK refuses
    the node, and TFLite's builtin kernel checks that each input's scale and zero point equal the output's (it
    requantizes uint8 only). rillet refuses it too, so there is no requantization to match."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT
    from ai_edge_litert.interpreter import OpResolverType

    from rillet.runtime import Interpreter

    options = {"axis": 1, "fused_activation_function": 0} if op == "CONCATENATION" else {"axis": 1, "values_count": 2}
    m = op_model(op, [Input((2, 3), I8, Q), Input((2, 3), I8, q_input)], [((1,), I8, q_output)], options)
    for resolver in (OpResolverType.AUTO, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES, OpResolverType.BUILTIN_REF):
        with pytest.raises(RuntimeError):
            LiteRT(model_content=m, experimental_op_resolver_type=resolver).allocate_tensors()
    with pytest.raises(Exception, match="quantized unlike the output"):
        Interpreter(model_content=m).allocate_tensors()
