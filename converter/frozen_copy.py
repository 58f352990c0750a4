"""Copying part of one model into another as it is: the frozen part of a model in front of a training file's
signatures (`splice_frozen`), with the subgraphs its ops call, its constants (each buffer once) and the
original's metadata. Used by `trainable` (converter/trainable.py)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from .format import Buffer, ModelError, ModelFile, Operator, OperatorCode, Options, SignatureDef, SubGraph, TensorMap
from .format.schema import BUILTIN_CODES
from .format.variable_roles import METADATA_NAME as ROLES_METADATA

# Ops run for their effect (a streaming model's state, its initialiser): kept in the frozen copy, with what
# they read, though no output needs them.
EFFECTS = {"ASSIGN_VARIABLE", "CALL_ONCE"}
SUBGRAPH_FIELDS = ("init_subgraph_index", "then_subgraph_index", "else_subgraph_index", "cond_subgraph_index",
                   "body_subgraph_index", "subgraph")
_FLOAT32, _INT8 = 0, 9  # TensorType


def code_index(codes: list[OperatorCode], code: OperatorCode) -> int:
    """The index of `code` (builtin, custom code and version alike) in `codes`, appended when missing."""
    for k, c in enumerate(codes):
        if (c.code, c.custom_code, c.version) == (code.code, code.custom_code, code.version):
            return k
    codes.append(dataclasses.replace(code))
    return len(codes) - 1


def builtin_code(codes: list[OperatorCode], name: str) -> int:
    return code_index(codes, OperatorCode(deprecated_builtin_code=min(BUILTIN_CODES[name], 127),
                                          builtin_code=BUILTIN_CODES[name]))


def is_constant(m: ModelFile, t: Any) -> bool:
    return 0 < t.buffer < len(m.buffers) and m.buffers[t.buffer].data is not None and m.buffers[t.buffer].data.size > 0


def is_quantized(t: Any) -> bool:
    q = t.quantization
    return q is not None and q.scale is not None and len(q.scale) > 0 and t.dtype.kind in "iu"


def ancestors(sg: SubGraph, tensors: list[int]) -> set[int]:
    """The ops that the tensors depend on."""
    wanted, needed = set(tensors), set()
    for j in reversed(range(len(sg.operators))):
        op = sg.operators[j]
        if any(o in wanted for o in op.outputs or []):
            needed.add(j)
            wanted.update(i for i in op.inputs or [] if i >= 0)
    return needed


def boundary_name(index: int) -> str:
    """The name a tail's input takes: the index of the original's tensor it stands for."""
    return f"boundary_{index}"


def splice_frozen(t: ModelFile, m: ModelFile, sg_index: int, frozen: list[int], boundary: list[int],
                   inputs: dict[str, int], outputs: dict[str, int], tail_outputs: dict[str, int]) -> None:
    """Puts the original's frozen ops in front of the tail in `infer` and `train`: the boundary inputs become
    the frozen ops' results (or the model's own inputs), the model's inputs the signatures' inputs, and
    `infer` gives the outputs the frozen part makes too."""
    sg = m.subgraphs[sg_index]
    moved: dict[int, int] = {}  # the original's buffers, added once for both signatures
    called: dict[int, int] = {}  # the original's subgraphs that frozen ops call -> their copies in `t`
    for sd in t.signature_defs:
        if sd.signature_key not in ("infer", "train"):
            continue
        sub = t.subgraphs[sd.subgraph_index]
        by_name = {tm.name: tm.tensor_index for tm in sd.inputs}
        extra_outputs = {n: i for n, i in outputs.items() if n not in tail_outputs} if sd.signature_key == "infer" else {}
        effects = [j for j in frozen if m.op_name(sg.operators[j]) in EFFECTS]
        reads = [i for j in effects for i in sg.operators[j].inputs or [] if i >= 0]
        needed_ops = sorted((ancestors(sg, [*boundary, *extra_outputs.values(), *reads]) | set(effects))
                            & set(frozen))
        quantized = [b for b in boundary if is_quantized(sg.tensors[b])]
        copy = _TensorCopier(m, sg, t, moved, list(sub.tensors),
                             {b: by_name[boundary_name(b)] for b in boundary if b not in quantized})
        tensors, place = copy.tensors, copy.place
        for b in boundary:  # the boundary tensors keep the original's names and shapes
            if b not in quantized:
                tensors[copy.index[b]] = dataclasses.replace(sg.tensors[b], buffer=0)
        copied = [dataclasses.replace(sg.operators[j],
                                      opcode_index=code_index(t.operator_codes,
                                                               m.operator_codes[sg.operators[j].opcode_index]),
                                      builtin_options=_called_subgraphs(t, m, sg.operators[j].builtin_options,
                                                                        called),
                                      inputs=[place(i) if i >= 0 else i for i in sg.operators[j].inputs or []],
                                      outputs=[place(o) for o in sg.operators[j].outputs or []])
                  for j in needed_ops]
        dequantize = builtin_code(t.operator_codes, "DEQUANTIZE")
        copied += [Operator(opcode_index=dequantize, inputs=[place(b)], outputs=[by_name[boundary_name(b)]])
                   for b in quantized]
        requantized = _requantized_outputs(t, sd, sg, outputs, tail_outputs, copy) \
            if sd.signature_key == "infer" else []
        new_inputs = {name: place(i) for name, i in inputs.items()}
        label = [tm for tm in sd.inputs if not tm.name.startswith("boundary_")]
        sd.inputs = [TensorMap(name=n, tensor_index=i) for n, i in new_inputs.items()] + label
        for name, i in extra_outputs.items():
            sd.outputs.append(TensorMap(name=name, tensor_index=place(i)))
        order = {n: k for k, n in enumerate(outputs)}
        sd.outputs.sort(key=lambda tm: order.get(tm.name, len(order)))
        first = 1 if sub.operators and t.op_name(sub.operators[0]) == "CALL_ONCE" else 0
        operators = sub.operators[:first] + copied + sub.operators[first:]
        operators += requantized
        t.subgraphs[sd.subgraph_index] = dataclasses.replace(
            sub, tensors=tensors, operators=operators, inputs=[tm.tensor_index for tm in sd.inputs],
            outputs=[tm.tensor_index for tm in sd.outputs])


def original_infer(t: ModelFile, m: ModelFile, sg_index: int, inputs: dict[str, int], outputs: dict[str, int],
                   trained: dict[int, str], inside: dict[tuple[int, int], str] | None = None) -> None:
    """Replaces `t`'s `infer` by the original's ops as they are (int8 included), each trained weight read from
    its float variable and quantized with the original's scales and zero points (DIV, ROUND, ADD, clamp,
    CAST: builtins every runtime has, per channel by broadcasting): before any training step, `infer` gives
    the original's outputs bit for bit; after, the deployed model's arithmetic on the trained weights. `inside`:
    trained weights of the subgraphs its IF and WHILE ops call, (subgraph, tensor) -> variable, read the same
    way at the start of their subgraph's copy (a resource variable is the interpreter's, any subgraph reads it)."""
    sd = next(s for s in t.signature_defs if s.signature_key == "infer")
    sub = t.subgraphs[sd.subgraph_index]
    sg = m.subgraphs[sg_index]
    copy = _TensorCopier(m, sg, t, {}, [], {})
    ops = [sub.operators[0]] if sub.operators and t.op_name(sub.operators[0]) == "CALL_ONCE" else []
    made_by_view = {o: j for j, op in enumerate(sg.operators) for o in op.outputs or [] if o in trained}
    for w, name in trained.items():
        copy.index[w] = _quantized_read(t, copy, ops, sg.tensors[w], name)
    called: dict[int, int] = {}
    for j, op in enumerate(sg.operators):
        if j in made_by_view.values():  # a float16 weight's DEQUANTIZE: the variable stands for its output
            continue
        ops.append(dataclasses.replace(op, opcode_index=code_index(t.operator_codes, m.operator_codes[op.opcode_index]),
                                       builtin_options=_called_subgraphs(t, m, op.builtin_options, called, inside),
                                       inputs=[copy.place(i) if i >= 0 else i for i in op.inputs or []],
                                       outputs=[copy.place(o) for o in op.outputs or []]))
    sd.inputs = [TensorMap(name=n, tensor_index=copy.place(i)) for n, i in inputs.items()]
    sd.outputs = [TensorMap(name=n, tensor_index=copy.place(i)) for n, i in outputs.items()]
    t.subgraphs[sd.subgraph_index] = dataclasses.replace(
        sub, tensors=copy.tensors, operators=ops, inputs=[tm.tensor_index for tm in sd.inputs],
        outputs=[tm.tensor_index for tm in sd.outputs])


def _quantized_read(t: ModelFile, copy: _TensorCopier, ops: list, original: Any, name: str) -> int:
    """Ops appended to `ops` that read variable `name` and give `original`'s quantized tensor (its type, scales
    and zero points); the index of that tensor."""
    tensors = copy.tensors

    def tensor(like: Any, **changes: Any) -> int:
        tensors.append(dataclasses.replace(like, buffer=0, **changes))
        return len(tensors) - 1

    def constant(value: np.ndarray, label: str) -> int:
        t.buffers.append(Buffer(data=np.frombuffer(np.ascontiguousarray(value).tobytes(), np.uint8)))
        tensors.append(dataclasses.replace(original, name=f"{name}/{label}", shape=list(value.shape),
                                           shape_signature=None, type=_FLOAT32 if value.dtype == np.float32 else 2,
                                           quantization=None, buffer=len(t.buffers) - 1))
        return len(tensors) - 1

    def op(kind: str, inputs: list[int], output: int, options: Any = None) -> int:
        ops.append(Operator(opcode_index=builtin_code(t.operator_codes, kind), inputs=inputs, outputs=[output],
                            builtin_options=options))
        return output

    def floats(label: str) -> int:
        return tensor(original, name=f"{name}/{label}", type=_FLOAT32, quantization=None)

    handle = tensor(original, name=f"{name}/handle", shape=[], shape_signature=None, type=_RESOURCE,
                    quantization=None)
    op("VAR_HANDLE", [], handle, Options("VarHandleOptions", container="", shared_name=name))
    value = op("READ_VARIABLE", [handle], floats("read"))
    if not is_quantized(original):
        return value
    q = original.quantization
    shape = [1] * len(original.shape)
    scale = np.asarray(q.scale, np.float32)
    zero = np.asarray(q.zero_point or [0], np.float32)
    if scale.size > 1:
        shape[q.quantized_dimension] = scale.size
    scaled = op("DIV", [value, constant(scale.reshape(shape), "scale")], floats("scaled"),
                Options("DivOptions", fused_activation_function=0))
    level = op("ROUND", [scaled], floats("round"))
    if zero.any():
        level = op("ADD", [level, constant(zero.reshape(shape) if zero.size > 1 else zero, "zero_point")],
                   floats("shifted"), Options("AddOptions", fused_activation_function=0))
    info = np.iinfo(original.dtype)
    if original.dtype != np.int32:
        level = op("MAXIMUM", [level, constant(np.array([info.min], np.float32), "min")], floats("floor"))
        level = op("MINIMUM", [level, constant(np.array([info.max], np.float32), "max")], floats("ceiling"))
    cast = op("CAST", [level], tensor(original),
              Options("CastOptions", in_data_type=_FLOAT32, out_data_type=original.type))
    return cast


_RESOURCE = 13  # TensorType


def _requantized_outputs(t: ModelFile, sd: Any, sg: SubGraph, outputs: dict[str, int], tail_outputs: dict[str, int],
                         copy: _TensorCopier) -> list[Operator]:
    """QUANTIZE ops that give `infer`'s outputs the original's quantized types again (the tail computes them in
    float); `sd`'s outputs are pointed at them."""
    ops = []
    for tm in sd.outputs:
        original = outputs.get(tm.name)
        if original is None or original not in tail_outputs.values() or not is_quantized(sg.tensors[original]):
            continue
        quantize = builtin_code(t.operator_codes, "QUANTIZE")
        made = copy.place(original)
        source = tm.tensor_index
        if copy.tensors[made].dtype == np.uint8:
            # float -> uint8 by way of int8 at the same scale (zero point - 128): what every runtime quantizes
            # (rillet's QUANTIZE makes uint8 only from int8), and exact
            q = copy.tensors[made].quantization
            copy.tensors.append(dataclasses.replace(
                copy.tensors[made], type=_INT8, name=f"{copy.tensors[made].name}/int8",
                quantization=dataclasses.replace(q, zero_point=[z - 128 for z in q.zero_point])))
            source = len(copy.tensors) - 1
            ops.append(Operator(opcode_index=quantize, inputs=[tm.tensor_index], outputs=[source]))
        ops.append(Operator(opcode_index=quantize, inputs=[source], outputs=[made]))
        tm.tensor_index = made
    return ops


def _called_subgraphs(t: ModelFile, m: ModelFile, options: Any, called: dict[int, int],
                      inside: dict[tuple[int, int], str] | None = None) -> Any:
    """An op's options with each subgraph it calls (CALL_ONCE's initialiser, IF's branches, WHILE's body) copied
    from `m` into `t` once, the indices pointing at the copies; `inside`: weights of them read from variables
    (original_infer)."""
    if options is None or not any(hasattr(options, f) for f in SUBGRAPH_FIELDS):
        return options
    fields = options.fields()
    for name in SUBGRAPH_FIELDS:
        if name in fields:
            fields[name] = _copy_subgraph(t, m, fields[name], called, inside or {})
    return type(options)(options.type_name, **fields)


def _copy_subgraph(t: ModelFile, m: ModelFile, k: int, called: dict[int, int],
                   inside: dict[tuple[int, int], str]) -> int:
    if k in called:
        return called[k]
    sg = m.subgraphs[k]
    called[k] = len(t.subgraphs)
    t.subgraphs.append(None)  # its place, so that the subgraphs it calls come after it
    copier = _TensorCopier(m, sg, t, {}, [], {})
    for i in range(len(sg.tensors)):
        copier.place(i)
    reads: list = []
    read = {i: _quantized_read(t, copier, reads, sg.tensors[i], name) for (g, i), name in inside.items() if g == k}
    operators = [dataclasses.replace(op, opcode_index=code_index(t.operator_codes, m.operator_codes[op.opcode_index]),
                                     inputs=[read.get(i, i) for i in op.inputs or []],
                                     builtin_options=_called_subgraphs(t, m, op.builtin_options, called, inside))
                 for op in sg.operators]
    t.subgraphs[called[k]] = dataclasses.replace(sg, tensors=copier.tensors, operators=reads + operators)
    return called[k]


@dataclass
class _TensorCopier:
    """Copies the original's tensors into a subgraph of `t` on first use (constants' buffers once per file)."""

    m: ModelFile
    sg: SubGraph
    t: ModelFile
    moved: dict[int, int]
    tensors: list
    index: dict[int, int]

    def place(self, old: int) -> int:
        if old not in self.index:
            original = self.sg.tensors[old]
            buffer = 0
            if is_constant(self.m, original):
                if original.buffer not in self.moved:
                    self.t.buffers.append(Buffer(data=self.m.buffers[original.buffer].data))
                    self.moved[original.buffer] = len(self.t.buffers) - 1
                buffer = self.moved[original.buffer]
            self.tensors.append(dataclasses.replace(original, buffer=buffer))
            self.index[old] = len(self.tensors) - 1
        return self.index[old]


def keep_metadata(t: ModelFile, m: ModelFile) -> None:
    """The original's metadata entries (its TFLite metadata, min runtime version, ...) and description."""
    kept = []
    for entry in m.metadata or []:
        if m.buffers[entry.buffer].data is None or entry.name == ROLES_METADATA or any(e.name == entry.name for e in t.metadata or []):
            continue
        t.buffers.append(Buffer(data=m.buffers[entry.buffer].data))
        kept.append(dataclasses.replace(entry, buffer=len(t.buffers) - 1))
    t.metadata = [*kept, *(t.metadata or [])]
    if m.description:
        t.description = m.description


def score_signature(t: ModelFile, name: str) -> None:
    """Adds a `score` signature to `t`: `infer`'s ops up to the tensor `name` (inside the model: the one the
    loss reads, before ops such as an IF that post-process it), given as its one output. The trainer's accuracy
    and validation read the loss's tensor here, so `infer` keeps the original's outputs, all a user sees."""
    sd = next(s for s in t.signature_defs if s.signature_key == "infer")
    sub = t.subgraphs[sd.subgraph_index]
    made = [o for op in sub.operators for o in op.outputs or [] if o >= 0 and sub.tensors[o].name == name]
    if len(made) != 1:
        raise ModelError(f"infer makes {len(made)} tensors named {name!r}, not one")
    needed = ancestors(sub, made)
    if sub.operators and t.op_name(sub.operators[0]) == "CALL_ONCE":
        needed.add(0)  # the variables' initialisation, whichever signature runs first
    inputs = [TensorMap(name=tm.name, tensor_index=tm.tensor_index) for tm in sd.inputs]
    t.subgraphs.append(dataclasses.replace(
        sub, tensors=list(sub.tensors), operators=[op for j, op in enumerate(sub.operators) if j in needed],
        inputs=[tm.tensor_index for tm in inputs], outputs=made, name="score"))
    t.signature_defs.append(SignatureDef(inputs=inputs, outputs=[TensorMap(name=name, tensor_index=made[0])],
                                         signature_key="score", subgraph_index=len(t.subgraphs) - 1))
