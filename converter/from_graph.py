"""`convert`: a rillet graph (or Model) -> .tflite bytes with an `infer` signature in the user's names."""

from __future__ import annotations

from typing import Any

import numpy as np

from .format import (
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
from .format.schema import BUILTIN_CODES, PLACEHOLDER_FOR_GREATER_OP_CODES, TENSOR_TYPES
from .lowering import IR, lower_graph
from .passes import optimize


def convert(model: Any = None, *, inputs: dict | None = None, outputs: dict | None = None,
            signature_key: str = "infer") -> bytes:
    """Write `model` (a rillet Model, or named graph `inputs` and `outputs`) as a .tflite file."""
    return save(convert_to_model_file(model, inputs=inputs, outputs=outputs, signature_key=signature_key))


def convert_to_model_file(model: Any = None, *, inputs: dict | None = None, outputs: dict | None = None,
                          signature_key: str = "infer") -> ModelFile:
    if model is not None:
        inputs, outputs = endpoints(model)
    if not inputs or not outputs:
        raise ValueError("convert() needs a Model, or `inputs` and `outputs` as name -> tensor dicts")
    ir = optimize(lower_graph(dict(inputs), dict(outputs)))
    return write_ir(ir, signature_key)


def endpoints(model: Any) -> tuple[dict, dict]:
    """The named inputs and outputs of a Model, or of an (inputs, outputs) pair of name -> tensor dicts."""
    if isinstance(model, tuple) and len(model) == 2:
        return dict(model[0]), dict(model[1])
    return _named(model.inputs, "input"), _named(model.outputs, "output")


def _named(tensors: Any, role: str) -> dict:
    if isinstance(tensors, dict):
        return dict(tensors)
    if not isinstance(tensors, (list, tuple)):
        tensors = [tensors]
    if role == "input":  # placeholders carry the user's names
        return {t.node.attrs["name"]: t for t in tensors}
    return {("output" if len(tensors) == 1 else f"output_{i}"): t for i, t in enumerate(tensors)}


def write_ir(ir: IR, signature_key: str) -> ModelFile:
    buffers = [Buffer()]  # buffer 0 is TFLite's empty sentinel
    tensors = []
    for t in ir.tensors:
        buffer = 0
        if t.value is not None:
            data = np.ascontiguousarray(t.value, dtype=t.dtype)
            buffers.append(Buffer(data=np.frombuffer(data.tobytes(), np.uint8)))
            buffer = len(buffers) - 1
            shape = list(data.shape)
        else:
            shape = [1 if d < 0 else d for d in t.shape]
        tensors.append(Tensor(
            shape=shape, type=TENSOR_TYPES[np.dtype(t.dtype).name.upper()], buffer=buffer, name=t.name,
            shape_signature=list(t.shape) if t.value is None and -1 in t.shape else None,
        ))
    codes: list[OperatorCode] = []
    code_index: dict[str, int] = {}
    operators = []
    for op in ir.ops:
        if op.builtin not in code_index:
            code = BUILTIN_CODES[op.builtin]
            code_index[op.builtin] = len(codes)
            codes.append(OperatorCode(
                deprecated_builtin_code=min(code, PLACEHOLDER_FOR_GREATER_OP_CODES), builtin_code=code,
            ))
        options = Options(op.options_table, **op.options) if op.options_table else None
        operators.append(Operator(opcode_index=code_index[op.builtin], inputs=op.inputs, outputs=op.outputs,
                                  builtin_options=options))
    subgraph = SubGraph(tensors=tensors, inputs=list(ir.inputs.values()), outputs=list(ir.outputs.values()),
                        operators=operators, name=signature_key)
    signature = SignatureDef(
        inputs=[TensorMap(name=k, tensor_index=v) for k, v in ir.inputs.items()],
        outputs=[TensorMap(name=k, tensor_index=v) for k, v in ir.outputs.items()],
        signature_key=signature_key, subgraph_index=0,
    )
    return ModelFile(operator_codes=codes, subgraphs=[subgraph], description="rillet", buffers=buffers,
                     signature_defs=[signature])
