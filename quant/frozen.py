"""A training file's frozen feature extractor in int8, its trainable head left float: fine-tuning the head of
a quantized deployed model on the device.

`quantize_frozen(training_file, calibration_data)` finds, in each signature that takes the model's inputs
(`infer`, `train`), the frozen part: the ops that compute from those inputs and constants alone on the way
to the signature's outputs (the convolutions a TrainSpec left untrained; not the head, whose weights are
variables, nor the backward pass, which the loss does not depend on). That part is cut out as a plain
single-subgraph inference model whose outputs are the tensors the head reads, quantized once by
`rillet.quant.quantize` (QUANTIZE at its input, int8 CONV_2D / DEPTHWISE_CONV_2D / pooling ..., DEQUANTIZE
at each output), and spliced back into every signature in place of the float ops. The head's forward and
backward passes, the optimizer and the `save`/`restore` signatures stay float and are not touched; the
frozen float weights leave the file.

`infer` and `train` must compute the frozen part alike (a frozen part in training mode, dropout say, is
refused): both then run the very same int8 ops, so the features the head trains on are the ones it serves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from rillet.converter.format import (
    Buffer,
    ModelFile,
    OperatorCode,
    SignatureDef,
    SubGraph,
    TensorMap,
    load,
    save,
)
from rillet.converter.format.prune import drop_unused_buffers, drop_unused_tensors

from .rewrite import QuantizationError

# Ops that touch state or call subgraphs: never part of a frozen computation.
STATEFUL = {"VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "CALL_ONCE", "RANDOM_UNIFORM", "IF", "WHILE"}


@dataclasses.dataclass
class FrozenPart:
    """One signature's frozen part: its ops (indices into the subgraph, in order), the model inputs it
    reads and the tensors it hands the rest of the subgraph (features), each by signature name."""

    subgraph: int
    ops: list[int]
    inputs: dict[str, int]
    features: list[int]


def quantize_frozen(model: Any, calibration_data: Any, *, calibration: str | None = None,
                    per_channel: bool = True, keep_float: list[str] | None = None,
                    interpreter_class: Callable | None = None, progress: bool = False) -> bytes:
    """The training file `model` (bytes, a path or a ModelFile from `rl.convert(..., train=TrainSpec(...))`)
    with its frozen feature extractor in int8. calibration_data: inputs of the model (an array of samples
    on axis 0, or a dict or .npz by input name); calibration, per_channel and keep_float (op types or
    output tensor names of the extractor to leave float) as rillet.quant.quantize takes them."""
    from . import _model_bytes, quantize

    m = load(_model_bytes(model))  # a copy: the caller's ModelFile is not changed
    parts = frozen_parts(m)
    extractors = [extractor_model(m, part) for part in parts]
    reference = save(_unnamed(extractors[0]))
    for part, extractor in zip(parts[1:], extractors[1:]):
        if save(_unnamed(extractor)) != reference:
            raise QuantizationError(
                f'signature "{m.subgraphs[part.subgraph].name}" computes the frozen part differently from '
                f'"{m.subgraphs[parts[0].subgraph].name}" (a frozen layer in training mode, such as dropout?): '
                "both must run the same int8 ops")
    quantized = load(quantize(save(extractors[0]), calibration_data, io="float", calibration=calibration,
                              per_channel=per_channel, keep_float=keep_float, interpreter_class=interpreter_class,
                              progress=progress))
    moved: dict[int, int] = {}  # the quantized model's buffers, added to the file once for every signature
    for part in parts:
        _splice(m, part, quantized, moved)
    return save(drop_unused_buffers(drop_unused_tensors(m)))


def frozen_parts(m: ModelFile) -> list[FrozenPart]:
    """The frozen part of each signature that reads the model's inputs (those of the first signature, or
    `infer`'s); QuantizationError when there is none."""
    signatures = {sd.signature_key: sd for sd in m.signature_defs or []}
    first = signatures.get("infer") or next(iter(signatures.values()), None)
    if first is None:
        raise QuantizationError("the model has no signatures: quantize_frozen takes a training file "
                                "(rl.convert(model, train=TrainSpec(...)))")
    if not any(m.op_name(op) == "READ_VARIABLE" for sg in m.subgraphs for op in sg.operators):
        raise QuantizationError("the model has no resource variables, so nothing in it trains: quantize_frozen "
                                "takes a training file; quantize an inference model with rillet.quant.quantize")
    names = [t.name for t in first.inputs]
    parts = []
    for sd in [first, *(sd for sd in signatures.values() if sd is not first)]:
        inputs = {t.name: t.tensor_index for t in sd.inputs}
        if all(name in inputs for name in names):  # an empty part where the first has one is refused later
            parts.append(_frozen_part(m, sd, {name: inputs[name] for name in names}))
    if not parts[0].features:
        raise QuantizationError("the model has no frozen part: no op computes from its inputs and constants "
                                "alone (is every layer trainable?)")
    return parts


def _is_constant(m: ModelFile, t: Any) -> bool:
    return t.buffer < len(m.buffers) and m.buffers[t.buffer].data is not None and m.buffers[t.buffer].data.size > 0


def _frozen_part(m: ModelFile, sd: SignatureDef, inputs: dict[str, int]) -> FrozenPart:
    sg = m.subgraphs[sd.subgraph_index]
    derived = set(inputs.values())  # tensors computed from the inputs and constants alone
    candidates = []
    for j, op in enumerate(sg.operators):
        ins = [i for i in op.inputs or [] if i >= 0]
        if m.op_name(op) in STATEFUL or not any(i in derived for i in ins):
            continue
        if all(i in derived or _is_constant(m, sg.tensors[i]) for i in ins):
            candidates.append(j)
            derived.update(op.outputs or [])
    # only what the signature's outputs need: not the backward pass, which reads the features too
    wanted, needed = set(sg.outputs), set()
    for j in reversed(range(len(sg.operators))):
        op = sg.operators[j]
        if any(o in wanted for o in op.outputs or []):
            needed.add(j)
            wanted.update(i for i in op.inputs or [] if i >= 0)
    ops = [j for j in candidates if j in needed]
    inside = set(ops)
    made = {o for j in ops for o in sg.operators[j].outputs or []}
    read_outside = {i for k, op in enumerate(sg.operators) if k not in inside for i in op.inputs or []}
    features = sorted(made & (read_outside | set(sg.outputs)))
    return FrozenPart(sd.subgraph_index, ops, inputs, features)


def extractor_model(m: ModelFile, part: FrozenPart) -> ModelFile:
    """The frozen part as a single-subgraph float inference model: the model's inputs in, the features out
    (signature outputs feature_0, feature_1, ...), its constants copied."""
    sg = m.subgraphs[part.subgraph]
    order = list(dict.fromkeys([*part.inputs.values(), *(i for j in part.ops for i in
                                                         [*sg.operators[j].inputs, *sg.operators[j].outputs]
                                                         if i >= 0)]))
    index = {old: new for new, old in enumerate(order)}
    buffers = [Buffer()]
    tensors = []
    for old in order:
        t = sg.tensors[old]
        buffer = 0
        if _is_constant(m, t):
            buffers.append(Buffer(data=m.buffers[t.buffer].data))
            buffer = len(buffers) - 1
        tensors.append(dataclasses.replace(t, buffer=buffer))
    codes: list[OperatorCode] = []
    operators = []
    for j in part.ops:
        op = sg.operators[j]
        operators.append(dataclasses.replace(
            op, opcode_index=_code_index(codes, m.operator_codes[op.opcode_index]),
            inputs=[index[i] if i >= 0 else i for i in op.inputs], outputs=[index[o] for o in op.outputs]))
    inputs = [index[i] for i in part.inputs.values()]
    outputs = [index[i] for i in part.features]
    signature = SignatureDef(inputs=[TensorMap(name=n, tensor_index=index[i]) for n, i in part.inputs.items()],
                             outputs=[TensorMap(name=f"feature_{k}", tensor_index=i) for k, i in enumerate(outputs)],
                             signature_key="frozen", subgraph_index=0)
    return ModelFile(operator_codes=codes, subgraphs=[SubGraph(tensors, inputs, outputs, operators, "frozen")],
                     buffers=buffers, signature_defs=[signature], description="rillet frozen part")


def _code_index(codes: list[OperatorCode], code: OperatorCode) -> int:
    """The index of `code` (builtin, custom code and version alike) in `codes`, appended when missing."""
    for k, c in enumerate(codes):
        if (c.code, c.custom_code, c.version) == (code.code, code.custom_code, code.version):
            return k
    codes.append(dataclasses.replace(code))
    return len(codes) - 1


def _unnamed(model: ModelFile) -> ModelFile:
    """`model` without tensor names: what it computes, for comparing two signatures' frozen parts."""
    sg = model.subgraphs[0]
    return dataclasses.replace(model, subgraphs=[dataclasses.replace(
        sg, name=None, tensors=[dataclasses.replace(t, name=None) for t in sg.tensors])])


def _splice(m: ModelFile, part: FrozenPart, quantized: ModelFile, moved: dict[int, int]) -> None:
    """Replaces the part's float ops in `m` by the quantized model's ops: its inputs are the subgraph's
    input tensors, its DEQUANTIZEs write the features the head reads; its other tensors and constants are
    added to the subgraph and the file."""
    sg, qsg = m.subgraphs[part.subgraph], quantized.subgraphs[0]
    qsig = quantized.signature_defs[0]
    index = {t.tensor_index: part.inputs[t.name] for t in qsig.inputs}
    index.update({t.tensor_index: part.features[int(t.name.rsplit("_", 1)[1])] for t in qsig.outputs})
    tensors = list(sg.tensors)
    for old, t in enumerate(qsg.tensors):
        if old in index:
            continue
        if _is_constant(quantized, t) and t.buffer not in moved:
            m.buffers.append(Buffer(data=quantized.buffers[t.buffer].data))
            moved[t.buffer] = len(m.buffers) - 1
        tensors.append(dataclasses.replace(t, buffer=moved.get(t.buffer, 0)))
        index[old] = len(tensors) - 1
    spliced = [dataclasses.replace(op, opcode_index=_code_index(m.operator_codes, quantized.operator_codes[op.opcode_index]),
                                   inputs=[index[i] if i >= 0 else i for i in op.inputs or []],
                                   outputs=[index[o] for o in op.outputs or []]) for op in qsg.operators]
    inside, at = set(part.ops), part.ops[0]
    operators = [op for j, op in enumerate(sg.operators) if j < at and j not in inside]
    operators += spliced + [op for j, op in enumerate(sg.operators) if j >= at and j not in inside]
    m.subgraphs[part.subgraph] = dataclasses.replace(sg, tensors=tensors, operators=operators)
