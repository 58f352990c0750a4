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
    QuantizationParameters,
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
            signature_key: str = "infer", train: Any = None, run: tuple = ()) -> bytes:
    """Write `model` (a rillet Model, or named graph `inputs` and `outputs`) as a .tflite file; `run`: nodes
    kept for their effect though no output needs them (a model's CALL_ONCE and state assignments). With
    `train=TrainSpec(...)`, a training file: `infer`, `train`, `save` and `restore` signatures over resource
    variables (converter/training.py)."""
    if train is not None:
        from .training import convert_for_training

        if model is None:
            model = (inputs, outputs)
        return save(convert_for_training(model, train))
    return save(convert_to_model_file(model, inputs=inputs, outputs=outputs, signature_key=signature_key, run=run))


def convert_to_model_file(model: Any = None, *, inputs: dict | None = None, outputs: dict | None = None,
                          signature_key: str = "infer", run: tuple = ()) -> ModelFile:
    if model is not None:
        inputs, outputs = endpoints(model)
    if not inputs or not outputs:
        raise ValueError("convert() needs a Model, or `inputs` and `outputs` as name -> tensor dicts")
    ir = optimize(lower_graph(dict(inputs), dict(outputs), run=tuple(run)))
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
    return write_subgraphs([(signature_key, ir)], signed=1)


FIRST_VERSIONS = {"BROADCAST_TO": 2}
"""Builtins whose first version is not 1: TFLite registers BROADCAST_TO from version 2 (1 was never released)."""


def write_subgraphs(subgraphs: list[tuple[str, IR]], signed: int) -> ModelFile:
    """One file of several subgraphs (sharing operator codes and buffers); the first `signed` of them get a
    SignatureDef under their name, the rest (a CALL_ONCE initialiser) are called, not signed."""
    buffers = [Buffer()]  # buffer 0 is TFLite's empty sentinel
    shared: dict[bytes, int] = {}  # constant bytes -> buffer: a frozen weight that several subgraphs use is stored once
    codes: list[OperatorCode] = []
    code_index: dict[str, int] = {}
    written, signatures = [], []
    subgraphs = _with_called(subgraphs)
    position = {id(ir): k for k, (_key, ir) in enumerate(subgraphs)}
    for k, (key, ir) in enumerate(subgraphs):
        operators = []
        for op in ir.ops:
            op.options.update({field_: position[id(called)] for field_, called in op.calls.items()})
            if op.builtin not in code_index:
                code_index[op.builtin] = len(codes)
                if op.custom_options is not None:  # MediaPipe's pooling: CUSTOM (32) under its name
                    codes.append(OperatorCode(deprecated_builtin_code=32, builtin_code=32, custom_code=op.builtin))
                else:
                    code = BUILTIN_CODES[op.builtin]
                    codes.append(OperatorCode(
                        deprecated_builtin_code=min(code, PLACEHOLDER_FOR_GREATER_OP_CODES), builtin_code=code,
                        version=FIRST_VERSIONS.get(op.builtin, 1),
                    ))
            options = Options(op.options_table, **op.options) if op.options_table else None
            custom = None if op.custom_options is None else np.frombuffer(op.custom_options, np.uint8)
            operators.append(Operator(opcode_index=code_index[op.builtin], inputs=op.inputs, outputs=op.outputs,
                                      builtin_options=options, custom_options=custom))
        written.append(SubGraph(tensors=[_tensor(t, buffers, shared) for t in ir.tensors], inputs=list(ir.inputs.values()),
                                outputs=list(ir.outputs.values()), operators=operators, name=key))
        if k < signed:
            signatures.append(SignatureDef(
                inputs=[TensorMap(name=n, tensor_index=i) for n, i in ir.inputs.items()],
                outputs=[TensorMap(name=n, tensor_index=i) for n, i in ir.outputs.items()],
                signature_key=key, subgraph_index=k,
            ))
    return ModelFile(operator_codes=codes, subgraphs=written, description="rillet", buffers=buffers,
                     signature_defs=signatures)


def _with_called(subgraphs: list[tuple[str, IR]]) -> list[tuple[str, IR]]:
    """`subgraphs`, then every subgraph their ops call (IF's branches, WHILE's condition and body, a CALL_ONCE
    initialiser), and those that these call, each once, in the order first called."""
    out, seen = list(subgraphs), {id(ir) for _key, ir in subgraphs}
    for key, ir in out:  # grows as it goes
        for op in ir.ops:
            for field_, called in op.calls.items():
                if id(called) not in seen:
                    seen.add(id(called))
                    out.append((f"{key}/{op.builtin.lower()}_{field_.removesuffix('_subgraph_index')}", called))
    return out


def _tensor(t, buffers: list[Buffer], shared: dict[bytes, int]) -> Tensor:
    """The file's tensor for an IR tensor; a constant's bytes go to a buffer, one per distinct content."""
    if t.dtype == "resource":
        return Tensor(shape=[], type=TENSOR_TYPES["RESOURCE"], buffer=0, name=t.name)
    buffer = 0
    sparsity = None
    if t.value is not None:
        data = np.asarray(t.value, dtype=t.dtype)  # not ascontiguousarray: it makes a scalar [1], so a value
        raw = data.tobytes()                        # read as [] and assigned as MUL([], [1]) had no one shape
        if t.sparse:
            sparsity, raw = _csr(data)
        if raw not in shared:
            buffers.append(Buffer(data=np.frombuffer(raw, np.uint8)))
            shared[raw] = len(buffers) - 1
        buffer = shared[raw]
        shape = list(data.shape)
    else:
        shape = [1 if d < 0 else d for d in t.shape]
    quantization = None
    if t.quantization is not None:
        scale, zero_point, axis = t.quantization
        quantization = QuantizationParameters(scale=list(np.ravel(scale)), zero_point=list(np.ravel(zero_point)),
                                              quantized_dimension=0 if axis is None else axis % len(shape))
    return Tensor(shape=shape, type=TENSOR_TYPES[np.dtype(t.dtype).name.upper()], buffer=buffer, name=t.name,
                  shape_signature=list(t.shape) if t.value is None and -1 in t.shape else None,
                  is_variable=t.is_variable, quantization=quantization, sparsity=sparsity)


def _csr(matrix: np.ndarray) -> tuple[Options, bytes]:
    """A matrix in TFLite's sparsity format, rows DENSE and columns SPARSE_CSR (what DENSIFY reads): the
    SparsityParameters and the stored bytes, its nonzero values row by row."""
    nonzero = matrix != 0
    segments = np.concatenate([[0], np.cumsum(nonzero.sum(1))])
    levels = [Options("DimensionMetadata", format=0, dense_size=int(matrix.shape[0])),
              Options("DimensionMetadata", format=1, dense_size=0,
                      array_segments=Options("Int32Vector", values=[int(v) for v in segments]),
                      array_indices=Options("Int32Vector", values=[int(v) for v in np.nonzero(nonzero)[1]]))]
    sparsity = Options("SparsityParameters", traversal_order=[0, 1], block_map=[], dim_metadata=levels)
    return sparsity, np.ascontiguousarray(matrix[nonzero]).tobytes()
