"""int8 MUL(x, f(x)) with f a table op (a swish, x * LOGISTIC(x); HARD_SWISH-like x * TANH(x)) whose output only the
MUL reads runs as one 256-entry table and skips the table op (elementwise_int8.c's use_unary_product): LiteRT's bits
on every path and thread count, x on either side of the MUL, and the same bits as the two ops run apart (the
LOGISTIC's output also a graph output, so it must still be written, or the MUL's other operand not x)."""

from __future__ import annotations

import numpy as np
import pytest
from single_op import Quant, litert_default
from test_kernel_paths import PATHS

from rillet.converter.format import (
    BUILTIN_CODES,
    Buffer,
    ModelFile,
    Operator,
    OperatorCode,
    Options,
    SignatureDef,
    SubGraph,
    Tensor,
    TensorMap,
    save,
)
from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")

I8 = np.int8
SHAPE = (1, 5, 7, 19)  # 665 elements: whole 32-byte steps and a tail


def product_model(unary: str, x_first: bool, table_output_too: bool = False, other_operand: bool = False,
                  activation: int = 0) -> bytes:
    """x -> unary -> MUL(x, unary(x)) (or MUL(z, unary(x)) with a second input z), int8 throughout."""
    qx, qf, qy = Quant(0.05, -3), Quant(1 / 256, -128), Quant(0.03, -20)
    if unary == "TANH":
        qf = Quant(1 / 128, 0)
    tensors = [Tensor(shape=list(SHAPE), type=9, buffer=0, name="x", quantization=qx.parameters()),
               Tensor(shape=list(SHAPE), type=9, buffer=0, name="f", quantization=qf.parameters()),
               Tensor(shape=list(SHAPE), type=9, buffer=0, name="y", quantization=qy.parameters())]
    inputs = [0]
    if other_operand:
        tensors.append(Tensor(shape=list(SHAPE), type=9, buffer=0, name="z", quantization=Quant(0.04, 5).parameters()))
        inputs.append(3)
    left = 3 if other_operand else 0
    mul_inputs = [left, 1] if x_first else [1, left]
    outputs = [2, 1] if table_output_too else [2]
    codes = [BUILTIN_CODES[unary], BUILTIN_CODES["MUL"]]
    model = ModelFile(
        operator_codes=[OperatorCode(deprecated_builtin_code=min(c, 127), builtin_code=c, version=2) for c in codes],
        subgraphs=[SubGraph(tensors=tensors, inputs=inputs, outputs=outputs, name="main", operators=[
            Operator(opcode_index=0, inputs=[0], outputs=[1]),
            Operator(opcode_index=1, inputs=mul_inputs, outputs=[2],
                     builtin_options=Options("MulOptions", fused_activation_function=activation))])],
        buffers=[Buffer(data=None)],
        signature_defs=[SignatureDef(inputs=[TensorMap(name=f"x{k}", tensor_index=t) for k, t in enumerate(inputs)],
                                     outputs=[TensorMap(name=f"y{k}", tensor_index=t) for k, t in enumerate(outputs)],
                                     signature_key="serving_default", subgraph_index=0)],
    )
    return save(model)


def feeds(count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(count)
    x = np.concatenate([np.arange(-128, 128), rng.integers(-128, 128, int(np.prod(SHAPE)) - 256)]).astype(I8)
    return [x.reshape(SHAPE)] + [rng.integers(-128, 128, SHAPE).astype(I8) for _ in range(count - 1)]


def rillet_outputs(model: bytes, inputs: list[np.ndarray], threads: int) -> list[np.ndarray]:
    it = Interpreter(model_content=model, num_threads=threads)
    it.allocate_tensors()
    for detail, value in zip(it.get_input_details(), inputs):
        it.set_tensor(detail["index"], value)
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()]


@pytest.mark.parametrize("unary", ["LOGISTIC", "TANH"])
@pytest.mark.parametrize("x_first", [True, False], ids=["x-first", "x-second"])
@pytest.mark.parametrize("activation", [0, 1])
def test_product_table_gives_litert_bits_on_every_path(unary, x_first, activation, monkeypatch):
    model = product_model(unary, x_first, activation=activation)
    x = feeds(1)
    (expected,) = litert_default(model, x)
    for isa in PATHS:
        monkeypatch.setenv("RILLET_ISA", isa)
        for threads in (1, 2, 3):
            (got,) = rillet_outputs(model, x, threads)
            assert got.tobytes() == expected.tobytes(), (isa, threads, np.count_nonzero(got != expected))


@pytest.mark.parametrize("x_first", [True, False], ids=["x-first", "x-second"])
def test_the_two_ops_run_apart_where_the_table_output_is_read(x_first):
    """The LOGISTIC's output is also a graph output: both ops run, with the fused table's bits on the MUL."""
    x = feeds(1)
    fused = rillet_outputs(product_model("LOGISTIC", x_first), x, 1)
    apart = rillet_outputs(product_model("LOGISTIC", x_first, table_output_too=True), x, 1)
    expected = litert_default(product_model("LOGISTIC", x_first, table_output_too=True), x)
    assert apart[0].tobytes() == fused[0].tobytes() == expected[0].tobytes()
    assert apart[1].tobytes() == expected[1].tobytes()  # the LOGISTIC's own output was written


def test_a_product_with_another_operand_is_not_a_table():
    inputs = feeds(2)
    model = product_model("LOGISTIC", True, other_operand=True)
    (got,) = rillet_outputs(model, inputs, 2)
    assert got.tobytes() == litert_default(model, inputs)[0].tobytes()


@pytest.mark.filterwarnings("ignore:Warning. Enabling `experimental_preserve_all_tensors`")
def test_every_tensor_kept_runs_the_table_op_too():
    """experimental_preserve_all_tensors: a user reads the LOGISTIC's output after invoke, as in LiteRT."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    model, x = product_model("LOGISTIC", True), feeds(1)
    kept = {}
    for name, cls in (("rillet", Interpreter), ("litert", LiteRT)):
        it = cls(model_content=model, experimental_preserve_all_tensors=True)
        it.allocate_tensors()
        it.set_tensor(it.get_input_details()[0]["index"], x[0])
        it.invoke()
        kept[name] = it.get_tensor(1)  # the LOGISTIC's output, read by the MUL alone
    assert kept["rillet"].tobytes() == kept["litert"].tobytes()
