"""Dynamic-range and float16 quantization of a model with several subgraphs (an IF whose branches hold the
weights, as openWakeWord's hey_jarvis does): every subgraph's weights are rewritten, LiteRT runs both
branches of the file, and rillet agrees with it. int8 quantizes every branch (tests/quant/test_int8_control_flow.py
has WHILE and hey_jarvis)."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import run

from rillet.converter.format import (
    BUILTIN_CODES,
    Buffer,
    ModelFile,
    Operator,
    OperatorCode,
    Options,
    SubGraph,
    Tensor,
    load,
    save,
)
from rillet.quant import quantize

F32, BOOL, INT8, F16 = 0, 6, 9, 1
OPS = ["IF", "FULLY_CONNECTED", "ADD"]


def if_of_two_dense_layers() -> bytes:
    """y = IF(c, x): then W1 x + b1, else W2 x + b2 + 0.5; x [1, 8], y [1, 4]."""
    rng = np.random.default_rng(0)
    buffers = [Buffer(data=None)]

    def const(value: np.ndarray) -> int:
        buffers.append(Buffer(data=np.frombuffer(np.ascontiguousarray(value, np.float32).tobytes(), np.uint8)))
        return len(buffers) - 1

    fc = Options("FullyConnectedOptions", fused_activation_function=0)
    main = SubGraph(tensors=[Tensor(shape=[], type=BOOL, name="c"), Tensor(shape=[1, 8], type=F32, name="x"),
                             Tensor(shape=[1, 4], type=F32, name="y")], inputs=[0, 1], outputs=[2], name="main",
                    operators=[Operator(opcode_index=0, inputs=[0, 1], outputs=[2], builtin_options=Options(
                        "IfOptions", then_subgraph_index=1, else_subgraph_index=2))])
    branches = []
    for k, extra in ((1, False), (2, True)):
        tensors = [Tensor(shape=[1, 8], type=F32, name="x"),
                   Tensor(shape=[4, 8], type=F32, buffer=const(rng.standard_normal((4, 8))), name=f"w{k}"),
                   Tensor(shape=[4], type=F32, buffer=const(rng.standard_normal(4)), name=f"b{k}"),
                   Tensor(shape=[1, 4], type=F32, name="h")]
        ops = [Operator(opcode_index=1, inputs=[0, 1, 2], outputs=[3], builtin_options=fc)]
        if extra:
            tensors += [Tensor(shape=[], type=F32, buffer=const(np.array(0.5)), name="half"),
                        Tensor(shape=[1, 4], type=F32, name="y")]
            ops.append(Operator(opcode_index=2, inputs=[3, 4], outputs=[5],
                                builtin_options=Options("AddOptions", fused_activation_function=0)))
        branches.append(SubGraph(tensors=tensors, inputs=[0], outputs=[len(tensors) - 1], operators=ops,
                                 name=f"branch{k}"))
    codes = [OperatorCode(deprecated_builtin_code=BUILTIN_CODES[n], builtin_code=BUILTIN_CODES[n], version=1)
             for n in OPS]
    return save(ModelFile(operator_codes=codes, subgraphs=[main, *branches], buffers=buffers))


def both_branches(content: bytes, interpreter_class) -> list[np.ndarray]:
    x = np.random.default_rng(1).uniform(-1, 1, (1, 8)).astype(np.float32)
    return [run(interpreter_class, content, [np.array(c), x])[0] for c in (True, False)]


@pytest.mark.parametrize("mode, weight_type", [("dynamic", INT8), ("float16", F16)])
def test_every_subgraph_is_rewritten_and_runs_in_litert_and_rillet(mode, weight_type):
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    original = if_of_two_dense_layers()
    data = quantize(original, mode=mode, progress=False)
    model = load(data)
    assert len(model.subgraphs) == 3
    for sg in model.subgraphs[1:]:
        assert any(t.type == weight_type and t.buffer for t in sg.tensors)
        assert not any(t.type == F32 and t.buffer and t.shape == [4, 8] for t in sg.tensors)  # no float copy
    expected = both_branches(data, LiteRT)
    for got, want, float_out in zip(both_branches(data, Interpreter), expected, both_branches(original, LiteRT)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(want, float_out, rtol=0.05, atol=0.05)  # still the same function


def test_int8_quantizes_both_branches_and_passes_int8_across_the_if():
    """Each branch is calibrated on the samples that take it; the IF's operand and result are int8 with one
    scale on both sides of the call (x quantized once, before the IF), and rillet gives LiteRT's bits."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    rng = np.random.default_rng(2)
    calibration = [[np.array(c), rng.uniform(-1, 1, (1, 8)).astype(np.float32)] for c in [True, False] * 16]
    original = if_of_two_dense_layers()
    data = quantize(original, calibration, progress=False)
    model = load(data)
    main = model.subgraphs[0]
    assert [model.op_name(op) for op in main.operators] == ["QUANTIZE", "IF", "DEQUANTIZE"]
    if_op = main.operators[1]
    operand, result = main.tensors[if_op.inputs[1]], main.tensors[if_op.outputs[0]]
    for sg in model.subgraphs[1:]:
        assert model.op_name(sg.operators[0]) == "FULLY_CONNECTED"  # no QUANTIZE first
        for mine, theirs in ((sg.tensors[sg.inputs[0]], operand), (sg.tensors[sg.outputs[0]], result)):
            assert mine.type == theirs.type == INT8 and mine.quantization.scale == theirs.quantization.scale
    got, want = both_branches(data, Interpreter), both_branches(data, LiteRT)
    for g, w, f in zip(got, want, both_branches(original, LiteRT)):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_allclose(w, f, atol=0.05)


def test_an_if_result_whose_branches_fix_different_parameters_stays_float():
    """then: LOGISTIC (int8 output 1/256), else: TANH (1/128): no one scale serves the IF's result, so it
    crosses as float32 (each branch dequantizes); the operand still crosses int8."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    names = ["IF", "LOGISTIC", "TANH"]
    codes = [OperatorCode(deprecated_builtin_code=BUILTIN_CODES[n], builtin_code=BUILTIN_CODES[n], version=1)
             for n in names]
    main = SubGraph(tensors=[Tensor(shape=[], type=BOOL, name="c"), Tensor(shape=[1, 8], type=F32, name="x"),
                             Tensor(shape=[1, 8], type=F32, name="y")], inputs=[0, 1], outputs=[2], name="main",
                    operators=[Operator(opcode_index=0, inputs=[0, 1], outputs=[2], builtin_options=Options(
                        "IfOptions", then_subgraph_index=1, else_subgraph_index=2))])
    branches = [SubGraph(tensors=[Tensor(shape=[1, 8], type=F32, name="a"), Tensor(shape=[1, 8], type=F32, name="b")],
                         inputs=[0], outputs=[1], operators=[Operator(opcode_index=k, inputs=[0], outputs=[1])],
                         name=names[k].lower()) for k in (1, 2)]
    original = save(ModelFile(operator_codes=codes, subgraphs=[main, *branches], buffers=[Buffer(data=None)]))
    rng = np.random.default_rng(5)
    calibration = [[np.array(c), rng.uniform(-3, 3, (1, 8)).astype(np.float32)] for c in [True, False] * 8]
    data = quantize(original, calibration, progress=False)
    q = load(data)
    if_op = next(op for op in q.subgraphs[0].operators if q.op_name(op) == "IF")
    assert q.subgraphs[0].tensors[if_op.inputs[1]].type == INT8
    assert q.subgraphs[0].tensors[if_op.outputs[0]].type == F32
    for sg in q.subgraphs[1:]:
        assert [q.op_name(op) for op in sg.operators][-1] == "DEQUANTIZE"
    got, want = both_branches(data, Interpreter), both_branches(data, LiteRT)
    for g, w, f in zip(got, want, both_branches(original, LiteRT)):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_allclose(w, f, atol=0.02)


def test_calibrating_several_subgraphs_with_litert_says_what_to_use():
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.quant import CalibrationError

    calibration = [[np.array(True), np.zeros((1, 8), np.float32)]]
    with pytest.raises(CalibrationError, match=r"3 subgraphs runs them one at a time, which rillet's Interpreter "
                                               r"does and ai_edge_litert.interpreter.Interpreter does not"):
        quantize(if_of_two_dense_layers(), calibration, interpreter_class=LiteRT, progress=False)
