"""The rewrite of a float ModelFile into TFLite's int8 scheme (and the dynamic-range and float16 forms).

Full-integer int8: every op with a rule below runs on int8 tensors; ops the user keeps float get a
DEQUANTIZE before and a QUANTIZE after where they meet int8 tensors. A quantized tensor keeps its float
tensor's name, so a report can pair them; the views added at a float/int8 boundary get `/int8` or
`/float` appended.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from rillet.converter.format import (
    BUILTIN_CODES,
    Buffer,
    Metadata,
    ModelFile,
    Operator,
    OperatorCode,
    Options,
    SignatureDef,
    SubGraph,
    Tensor,
    TensorMap,
)
from rillet.converter.format.schema import PLACEHOLDER_FOR_GREATER_OP_CODES

from .calibrate import HUGE
from .lstm import LSTM, internal_params, quantized_inputs
from .lstm import why_float as lstm_why_float
from .lstm_dynamic import dynamic_weight_slots
from .params import (
    QParams,
    activation_params,
    int16_activation_params,
    negated_params,
    negation_input_params,
    quantize_bias,
    quantize_values,
    quantize_weights,
    weight_scales,
)
from .versions import FLOAT16, FLOAT32, INT8, quantized_version

INT32, INT16, INT64 = 2, 7, 4


class QuantizationError(ValueError):
    """A model (or a request) that int8 quantization cannot serve; the message names the op or tensor."""


# The output-channel axis of each weight-bearing op's filter.
WEIGHT_AXIS = {"CONV_2D": 0, "DEPTHWISE_CONV_2D": 3, "FULLY_CONNECTED": 0, "TRANSPOSE_CONV": 0}
# Where a weight-bearing op keeps its activation input, filter and bias (TRANSPOSE_CONV: output_shape first).
WEIGHT_SLOTS = {"TRANSPOSE_CONV": (2, 1, 3)}
DEFAULT_WEIGHT_SLOTS = (0, 1, 2)
# Ops whose int8 kernels require every float input and the output to share one scale and zero point.
SAME_SCALE = {
    "MAX_POOL_2D", "AVERAGE_POOL_2D", "RESHAPE", "SQUEEZE", "EXPAND_DIMS", "TRANSPOSE", "STRIDED_SLICE",
    "SLICE", "GATHER", "PAD", "PADV2", "MIRROR_PAD", "RESIZE_NEAREST_NEIGHBOR", "RESIZE_BILINEAR",
    "SPACE_TO_DEPTH", "DEPTH_TO_SPACE", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "SPLIT", "SPLIT_V",
    "UNPACK", "PACK", "CONCATENATION", "MAXIMUM", "MINIMUM", "TILE", "BROADCAST_TO", "REDUCE_MAX",
    "REDUCE_MIN", "REVERSE_V2", "GATHER_ND", "SELECT", "SELECT_V2", "EMBEDDING_LOOKUP",
}
# EMBEDDING_LOOKUP(ids, table) is written as GATHER(table, ids) on axis 0, the same rows: LiteRT's int8
# EMBEDDING_LOOKUP copies rows too, but rillet runs int8 GATHER and not int8 EMBEDDING_LOOKUP.
GATHER_OPTIONS = Options("GatherOptions", axis=0, batch_dims=0)
# Ops that negate the stored integers (see negation_input_params).
NEGATES = {"NEG"}
# Ops a -inf operand passes through exactly as the int8 minimum (a max pool's -inf padding): a tensor whose
# only readers are these may hold -inf, and is quantized over its finite range.
MAX_OF_WINDOW = {"MAX_POOL_2D", "REDUCE_MAX"}
# PADV2's pad value at or below this (-inf, float's lowest) stands for "below everything": not part of the
# range, it quantizes to the range's minimum, -128 (exact before a max pool).
VERY_NEGATIVE = -HUGE
# How far below the largest score a masked score (float's lowest) lands in an int8 SOFTMAX input: e^-20.
MASK_DEPTH = 20.0
# Ops whose int8 output has fixed parameters in TFLite's spec.
FIXED_OUTPUT = {
    "SOFTMAX": QParams((1.0 / 256,), (-128,)),
    "LOGISTIC": QParams((1.0 / 256,), (-128,)),
    "TANH": QParams((1.0 / 128,), (0,)),
    "LOG_SOFTMAX": QParams((16.0 / 256,), (127,)),
    "L2_NORMALIZATION": QParams((1.0 / 128,), (0,)),
}
# TFLite's 16x8 scheme (TensorFlow's EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8): int16
# activations with zero point 0, int8 per-channel weights, int64 biases. A softmax, logistic or tanh writes
# steps of 1/32768 from 0.
FIXED_OUTPUT_INT16 = {name: QParams((1.0 / 32768,), (0,)) for name in ("SOFTMAX", "LOGISTIC", "TANH")}
# The ops LiteRT's builtin kernels run with int16 activations (what TensorFlow's 16x8 converter quantizes);
# the rest stay float between DEQUANTIZE and QUANTIZE, as it writes them. Not SQUARED_DIFFERENCE (TensorFlow
# 2.21 writes it int16, LiteRT 2.3 refuses it at invoke) nor RSQRT (LiteRT's int16 RSQRT reads a 513-entry
# table: 35 dB on a layer norm's variance, where float costs one op per row).
INT16_OPS = {
    "FULLY_CONNECTED", "CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV", "BATCH_MATMUL", "ADD", "SUB", "MUL",
    "SOFTMAX", "LOGISTIC", "TANH", "MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "GELU", "CONCATENATION",
    "RESHAPE", "SQUEEZE", "EXPAND_DIMS", "TRANSPOSE", "STRIDED_SLICE", "SLICE", "PAD", "PADV2", "GATHER",
    "MAX_POOL_2D", "AVERAGE_POOL_2D", "RELU", "RELU6", "LEAKY_RELU", "ABS", "SPLIT", "SPLIT_V", "PACK",
    "UNPACK", "MAXIMUM", "MINIMUM", "BROADCAST_TO", "SELECT_V2",
}
# Why an op TensorFlow's 16x8 converter writes int16 stays float here.
FLOAT_IN_INT16 = {"SQUARED_DIFFERENCE": "LiteRT 2.3 refuses int16 SQUARED_DIFFERENCE at invoke",
                  "RSQRT": "LiteRT's int16 RSQRT table gives 35 dB on a layer norm's variance"}
# The versions TensorFlow's 16x8 converter writes (TF 2.21); 2 for the other int16 ops, 1 for shape-only ones.
INT16_VERSIONS = {"FULLY_CONNECTED": 5, "CONV_2D": 3, "DEPTHWISE_CONV_2D": 3, "TRANSPOSE_CONV": 3,
                  "RESHAPE": 1, "SQUEEZE": 1, "EXPAND_DIMS": 1, "BROADCAST_TO": 3}
# Ops that rescale: their output gets the range calibration saw.
# A constant float operand of one of them (PRELU's alpha, an ADD's bias) gets int8 parameters of its own
# from its values, as TensorFlow's converter gives them.
OWN_RANGE = {"ADD", "SUB", "MUL", "MEAN", "SUM", "RELU", "RELU6", "RELU_N1_TO_1", "LEAKY_RELU", "HARD_SWISH",
             "SQUARED_DIFFERENCE", "ABS", "BATCH_MATMUL", "PRELU", "RSQRT", "SQRT", "LOG", "EXP", "DIV",
             "ELU", "GELU"}
# Ops that take an int8 input as it comes and give no float output.
ANY_INPUT = {"SHAPE", "ARG_MAX", "ARG_MIN"}
# Comparisons: each float operand int8 with parameters of its own (the kernel rescales both), a bool output.
COMPARISONS = {"EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"}
QUANTIZABLE = set(WEIGHT_AXIS) | SAME_SCALE | set(FIXED_OUTPUT) | OWN_RANGE | ANY_INPUT | COMPARISONS | NEGATES | {LSTM}
# Ops whose float tensors cross a subgraph or variable boundary: they stay float, so that an IF's branches, a
# WHILE's body and condition, and a resource variable see one dtype whichever subgraph touches them (TFLite
# copies the bytes across and checks the types); each side quantizes and dequantizes on its own.
BOUNDARY = {"IF", "WHILE", "CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE"}
# dynamic-range: int8 weights, float activations, as TensorFlow writes them (TFLite has no hybrid TRANSPOSE_CONV)
HYBRID = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"}


@dataclass
class Plan:
    """What the int8 (or 16x8) rewrite decided: which ops run quantized, and every quantized tensor's
    parameters."""

    quantized_ops: list[bool]
    params: dict[int, QParams]  # original float tensor -> its int8 parameters
    kept: list[str] = field(default_factory=list)  # the ops left float, as "OP (tensor)"
    matched: set[str] = field(default_factory=set)  # the keep_float entries that named an op here
    int8_boundary: set[int] = field(default_factory=set)  # int8 tensors an IF or WHILE passes across
    typed: dict[int, int] = field(default_factory=dict)  # tensors a rule gives a type of its own (an LSTM's int16 cell)
    notes: list[str] = field(default_factory=list)  # ops the planner kept float on its own, and why
    activation: int = INT8  # the activations' type: INT8, or INT16 (16x8)


def runs_int8(name: str) -> bool:
    """Whether librillet's op registry runs `name` on int8 tensors."""
    return name in _int8_ops()


def rillet_int16_ops() -> frozenset[str]:
    """The ops of INT16_OPS that librillet's op registry runs on int16 tensors; none unless it runs int16
    QUANTIZE and DEQUANTIZE too (every 16x8 file has them at its float edges)."""
    ops = _int8_ops(INT16)
    return frozenset(INT16_OPS & ops) if {"QUANTIZE", "DEQUANTIZE"} <= ops else frozenset()


@functools.cache
def _int8_ops(dtype: int = INT8) -> frozenset[str]:
    try:
        from rillet.native import ffi, lib
    except ImportError:  # no native library here: say nothing about what it runs
        return frozenset()
    code, op, dtypes = ffi.new("int32_t *"), ffi.new("char **"), ffi.new("uint32_t *")
    names, k = set(), 0
    while lib.rl_op_registry_entry(k, code, op, dtypes):
        if dtypes[0] & (1 << dtype):
            names.add(ffi.string(op[0]).decode())
        k += 1
    return frozenset(names)


class _Groups:
    """Union-find over tensor indices: the tensors one int8 kernel needs to share parameters."""

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, i: int) -> int:
        self.parent.setdefault(i, i)
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)  # the smaller index leads: deterministic


def _constant(model: ModelFile, i: int, sg_index: int = 0) -> np.ndarray | None:
    return model.tensor_data(sg_index, i)


def _op_label(model: ModelFile, j: int, k: int = 0) -> str:
    """"ADD #12 ('out')"; in subgraph k > 0, "ADD #2:12 ('out')"."""
    sg = model.subgraphs[k]
    op = sg.operators[j]
    where = f"{k}:{j}" if k else f"{j}"
    outs = [sg.tensors[o].name for o in op.outputs or [] if o >= 0]
    return f"{model.op_name(op)} #{where} ({outs[0]!r})" if outs else f"{model.op_name(op)} #{where}"


Key = tuple[int, int]  # (subgraph, tensor): the planner's tensors span every subgraph


@dataclass
class _Constraints:
    """What the int8 kernels ask of the tensors' parameters, over every subgraph."""

    groups: _Groups = field(default_factory=_Groups)  # tensors that share parameters
    fixed: dict[Key, QParams] = field(default_factory=dict)  # parameters an op's spec fixes
    symmetric: set[Key] = field(default_factory=set)  # constant operands quantized as weights
    needed: set[Key] = field(default_factory=set)  # tensors that get an int8 view
    no_op_bounds: set[Key] = field(default_factory=set)  # a MINIMUM's +inf, a MAXIMUM's -inf: no range of theirs
    negated: list[tuple[Key, Key]] = field(default_factory=list)  # a NEG's (input, output)
    float_ops: set[Key] = field(default_factory=set)  # (subgraph, op) of the ops that stay float
    zero_centred: set[Key] = field(default_factory=set)  # activations quantized with zero point 0
    activation: int = INT8  # INT16: TFLite's 16x8 (symmetric int16 activations, its fixed outputs)


def _decide_ops(model: ModelFile, k: int, keep: set[str], allowed: frozenset[str] | None = None
                ) -> tuple[list[bool], list[str], set[str]]:
    """Which ops of subgraph k run int8; the ops left float (labels); the keep_float entries that named one.
    allowed (16x8): the op types that may run quantized; the others stay float."""
    sg = model.subgraphs[k]
    matched: set[str] = set()
    quantized, kept = [], []
    from_constants = constant_ops(model, k)
    for j, op in enumerate(sg.operators):
        name = model.op_name(op)
        tensors = [i for i in (op.inputs or []) + (op.outputs or []) if i >= 0]
        outs = {sg.tensors[o].name for o in op.outputs or [] if o >= 0}
        hits = ({name, f"{k}:{j}" if k else str(j)} | outs) & keep
        matched |= hits
        if not any(sg.tensors[i].type == FLOAT32 for i in tensors):
            quantized.append(False)  # integer-only ops (shape arithmetic) stay as they are
        elif j in from_constants:
            quantized.append(False)  # computed from constants alone: no activation (constant_ops)
            kept.append(_op_label(model, j, k))
        elif hits or name in BOUNDARY or (allowed is not None and name not in allowed):
            quantized.append(False)
            kept.append(_op_label(model, j, k))
        elif name not in QUANTIZABLE:
            raise QuantizationError(f"{_op_label(model, j, k)}: {no_int8_reason(name)}; keep it float with "
                                    f"keep_float=[{name!r}] (or --keep-float {name})")
        else:
            if name in WEIGHT_AXIS and (len(op.inputs) < 2 or _constant(model, op.inputs[1], k) is None):
                raise QuantizationError(f"{_op_label(model, j, k)}: int8 {name} needs constant weights; keep it "
                                        f"float with keep_float=[{name!r}]")
            if name == LSTM and (reason := lstm_why_float(model, k, j)):
                raise QuantizationError(f"{_op_label(model, j, k)}: {reason}; keep it float with "
                                        f"keep_float=[{name!r}] (or --keep-float {name})")
            quantized.append(True)
    return quantized, kept, matched


def constant_ops(model: ModelFile, k: int) -> set[int]:
    """The ops of subgraph k that read constants alone, directly or through other such ops: T5's relative
    position buckets (ABS, CAST to float, LOG, MULs, CAST back to int32, then an EMBEDDING_LOOKUP of the bias
    table). They stay float: their values do not depend on the input (rillet folds them at prepare), int8
    would only round them, and a bucket index cast from int8 arithmetic would pick other rows of the table.
    Ops without inputs (VAR_HANDLE) and those that touch variables or other subgraphs are not among them."""
    sg = model.subgraphs[k]
    known = {i for i in range(len(sg.tensors)) if _constant(model, i, k) is not None}
    found = set()
    for j, op in enumerate(sg.operators):
        inputs = [i for i in op.inputs or [] if i >= 0]
        if inputs and model.op_name(op) not in BOUNDARY and all(i in known for i in inputs):
            found.add(j)
            known.update(o for o in op.outputs or [] if o >= 0)
    return found


def _constant_op_notes(model: ModelFile) -> dict[int, list[str]]:
    """One note per subgraph naming its float ops that constant_ops keeps float."""
    notes: dict[int, list[str]] = {}
    for k, sg in enumerate(model.subgraphs):
        labels = [_op_label(model, j, k) for j in sorted(constant_ops(model, k)) if any(
            sg.tensors[i].type == FLOAT32 for i in (sg.operators[j].inputs or []) + (sg.operators[j].outputs or [])
            if i >= 0)]
        if labels:
            notes[k] = [f"{', '.join(labels)} kept float: computed from constants alone, not from the input "
                        "(rillet folds them at prepare)"]
    return notes


def _constrain(model: ModelFile, k: int, quantized: list[bool], c: _Constraints, int8_inputs: bool,
               int8_outputs: bool) -> None:
    """Adds what subgraph k's int8 ops (and int8 graph inputs and outputs) ask of their tensors to `c`."""
    sg = model.subgraphs[k]
    for j, op in enumerate(sg.operators):
        name = model.op_name(op)
        float_in = [i for i in op.inputs or [] if i >= 0 and sg.tensors[i].type == FLOAT32]
        float_out = [o for o in op.outputs or [] if o >= 0 and sg.tensors[o].type == FLOAT32]
        if not quantized[j] or name in ANY_INPUT:
            continue
        if name in WEIGHT_AXIS:  # only the activation input: the filter and bias get their own parameters
            activation = op.inputs[WEIGHT_SLOTS.get(name, DEFAULT_WEIGHT_SLOTS)[0]]
            float_in = [i for i in float_in if i == activation]
        if name == LSTM:  # its weights, state and intermediates get parameters from quant/lstm.py
            float_in = [op.inputs[0]]
        c.needed.update((k, i) for i in float_in + float_out)
        fixed_output = FIXED_OUTPUT_INT16 if c.activation == INT16 else FIXED_OUTPUT
        if name == "BATCH_MATMUL":  # a constant operand is a weight: symmetric, as TensorFlow writes it
            c.symmetric.update((k, i) for i in float_in if _constant(model, i, k) is not None)
            # an activation y: zero point 0. LiteRT 2.3 aborts at allocate on some int8 BATCH_MATMULs whose y
            # has another (ViT-tiny's [3, 197, 64] x [3, 64, 197], builtin kernels and XNNPACK alike), and
            # rillet's kernel takes y's zero point 0 only
            if len(op.inputs) > 1 and op.inputs[1] in float_in and _constant(model, op.inputs[1], k) is None:
                c.zero_centred.add((k, op.inputs[1]))
        if name in SAME_SCALE:
            for t in float_in[1:] + float_out:
                c.groups.union((k, float_in[0]), (k, t))
        if name in fixed_output:
            for o in float_out:
                c.fixed[(k, o)] = fixed_output[name]
        if name in NEGATES:
            c.negated.append(((k, float_in[0]), (k, float_out[0])))
        if name == "PADV2" and len(op.inputs) > 2 and (data := _constant(model, op.inputs[2], k)) is not None \
                and data.size and bool(np.all(data <= VERY_NEGATIVE)):
            c.no_op_bounds.add((k, op.inputs[2]))
        if name in ("MINIMUM", "MAXIMUM"):  # clip_by_value at infinity: the bound quantizes to the range's edge
            infinity = np.inf if name == "MINIMUM" else -np.inf
            c.no_op_bounds.update((k, i) for i in float_in if (data := _constant(model, i, k)) is not None
                                  and data.size and bool(np.all(data == infinity)))
    if int8_inputs:
        c.needed.update((k, i) for i in sg.inputs if sg.tensors[i].type == FLOAT32)
    # int8 outputs need parameters whatever computes them (a kept-float op's output gets a QUANTIZE); a
    # kept-float op's output that an int8 op reads is among that op's inputs above.
    if int8_outputs:
        c.needed.update((k, o) for o in sg.outputs if sg.tensors[o].type == FLOAT32)


def _boundary_groups(model: ModelFile) -> list[list[Key]]:
    """The tensors each IF and WHILE passes between subgraphs, one list per value: an IF operand with each
    branch's input, an IF result with each branch's output; a WHILE's operand, result, and the condition's
    and body's input and the body's output in that slot. TFLite copies the bytes across, so each list must
    share one dtype and, int8, one scale and zero point."""
    from .subgraphs import callees

    found: list[list[Key]] = []
    for k, sg in enumerate(model.subgraphs):
        for op in sg.operators:
            name = model.op_name(op)
            if name == "IF":
                branches = [model.subgraphs[b] for b in callees(op)]
                calls = callees(op)
                for slot, i in enumerate(op.inputs[1:]):
                    found.append([(k, i)] + [(b, g.inputs[slot]) for b, g in zip(calls, branches)])
                for slot, o in enumerate(op.outputs):
                    found.append([(k, o)] + [(b, g.outputs[slot]) for b, g in zip(calls, branches)])
            elif name == "WHILE":
                cond, body = callees(op)
                for slot, (i, o) in enumerate(zip(op.inputs, op.outputs)):
                    found.append([(k, i), (k, o), (cond, model.subgraphs[cond].inputs[slot]),
                                  (body, model.subgraphs[body].inputs[slot]),
                                  (body, model.subgraphs[body].outputs[slot])])
    return found


def _int8_boundaries(model: ModelFile, c: _Constraints, ranges: dict[int, dict[int, tuple[float, float]]]) -> set[Key]:
    """The boundary tensors that cross int8: every tensor of a boundary value float32 data (no constant, no
    bool or integer) that calibration saw somewhere. Their groups are joined in `c`; the rest stay float."""
    values = _Groups()
    for group in _boundary_groups(model):
        for key in group[1:]:
            values.union(group[0], key)
    members: dict[Key, list[Key]] = {}
    for key in list(values.parent):
        members.setdefault(values.find(key), []).append(key)
    int8: set[Key] = set()
    for group in members.values():
        float_data = all(model.subgraphs[k].tensors[i].type == FLOAT32 and _constant(model, i, k) is None
                         for k, i in group)
        fixes: dict[Key, set[QParams]] = {}
        for key, p in c.fixed.items():
            fixes.setdefault(c.groups.find(key), set()).add(p)
        fixed = set().union(*(fixes.get(c.groups.find(key), set()) for key in group))
        # two sides whose ops fix different parameters (a LOGISTIC branch and a TANH one) stay float
        if float_data and len(fixed) <= 1 and any(i in ranges.get(k, {}) for k, i in group):
            for key in group[1:]:
                c.groups.union(group[0], key)
            c.needed.update(group)
            int8.update(group)
    return int8


def _keep_mask_ops_float(model: ModelFile, decisions: list, ranges: dict[int, dict[int, tuple[float, float]]]
                         ) -> dict[int, list[str]]:
    """Keeps float (in `decisions`) the int8 ops that read or write an attention mask's values (float's lowest,
    -3.4e38, which calibration saw in the tensor), other than a SOFTMAX or a max reading it and an op whose
    every reader is one: int8 would give the whole tensor a scale of 1e36. Returns the notes, per subgraph."""
    notes: dict[int, list[str]] = {}
    allowed = MAX_OF_WINDOW | {"SOFTMAX"}
    for k, (quantized, kept, _) in enumerate(decisions):
        sg = model.subgraphs[k]
        masked = {i for i, (lo, _) in ranges.get(k, {}).items() if -np.inf < lo <= VERY_NEGATIVE}
        for j, op in enumerate(sg.operators):
            if not quantized[j] or model.op_name(op) in allowed:
                continue
            reads = [i for i in op.inputs or [] if i in masked]
            writes = [o for o in op.outputs or [] if o in masked and not _read_only_by(model, k, o, allowed)]
            if reads or writes:
                quantized[j] = False
                kept.append(_op_label(model, j, k))
                name = sg.tensors[(reads or writes)[0]].name
                notes.setdefault(k, []).append(
                    f"{_op_label(model, j, k)} kept float: it {'reads' if reads else 'writes'} {name!r}, which holds "
                    f"an attention mask's {ranges[k][(reads or writes)[0]][0]:.3g} (int8 would give it a scale of "
                    f"1e36); a SOFTMAX or a max after it runs int8")
    return notes


def _read_only_by(model: ModelFile, k: int, i: int, names: set[str]) -> bool:
    """Whether every op of subgraph k that reads tensor i is one of `names` (and some op does)."""
    readers = [model.op_name(op) for op in model.subgraphs[k].operators if i in (op.inputs or [])]
    return bool(readers) and set(readers) <= names and i not in model.subgraphs[k].outputs


def _assign(model: ModelFile, c: _Constraints, ranges: dict[int, dict[int, tuple[float, float]]],
            finite_ranges: dict[int, dict[int, tuple[float, float]]] | None = None) -> dict[Key, QParams]:
    """Parameters for every needed tensor: fixed by an op's spec, else from its group's values (constants'
    data, calibration ranges of the rest)."""
    members: dict[Key, list[Key]] = {}
    for key in sorted(c.needed):
        members.setdefault(c.groups.find(key), []).append(key)
    params: dict[Key, QParams] = {}
    for _, group in sorted(members.items()):
        fixes = sorted({c.fixed[key] for key in group if key in c.fixed}, key=lambda p: p.scale)
        if len(fixes) > 1:
            names = [model.subgraphs[k].tensors[i].name for k, i in group]
            raise QuantizationError(f"tensors {names} must share int8 parameters but two ops fix them differently")
        if fixes:
            chosen = fixes[0]
        else:
            lo, hi, unseen = np.inf, -np.inf, []
            for k, i in group:
                data = _constant(model, i, k)
                if (k, i) in c.no_op_bounds:
                    continue
                if data is not None:
                    r = (float(data.min()), float(data.max())) if data.size else (0.0, 0.0)
                elif i in ranges.get(k, {}):
                    r = ranges[k][i]
                    finite = (finite_ranges or {}).get(k, {}).get(i)
                    if r[0] <= VERY_NEGATIVE and np.isfinite(r[1]) and finite and finite[0] <= finite[1] and \
                            _read_only_by(model, k, i, MAX_OF_WINDOW):
                        r = finite  # -inf saturates to -128, which a max takes for what it is
                    elif r[0] <= VERY_NEGATIVE and np.isfinite(r[1]) and finite and finite[0] <= finite[1] and \
                            _read_only_by(model, k, i, {"SOFTMAX"}):
                        # a masked score saturates to -128: MASK_DEPTH below the largest score, its weight is
                        # e^-MASK_DEPTH of the largest's at most
                        r = (min(finite[0], finite[1] - MASK_DEPTH), finite[1])
                else:  # a boundary tensor on a path calibration never took: its group's range serves
                    unseen.append((k, i))
                    continue
                if not (np.isfinite(r[0]) and np.isfinite(r[1])):
                    raise QuantizationError(_infinite_range(model, i, r, k, c.float_ops))
                lo, hi = min(lo, r[0]), max(hi, r[1])
            if unseen and lo > hi:
                k, i = unseen[0]
                raise QuantizationError(f"tensor {model.subgraphs[k].tensors[i].name!r}: calibration never saw a "
                                        f"value of it (no range to quantize it with)")
            chosen = activation_params(lo, hi) if c.activation == INT8 else int16_activation_params(lo, hi)
            if c.activation == INT8 and any(key in c.zero_centred for key in group):
                peak = max(-min(lo, 0.0), max(hi, 0.0))
                chosen = QParams((float(np.float32(peak / 127)) if peak > 0 else 1.0,), (0,))
        for key in group:
            params[key] = chosen
    for k, i in c.symmetric:
        data = _constant(model, i, k)
        params[(k, i)] = QParams((float(weight_scales(data, None)[0]),), (0,)) if c.activation == INT8 else \
            int16_activation_params(float(data.min(initial=0.0)), float(data.max(initial=0.0)))
    return params


def plan_int8_subgraphs(model: ModelFile, ranges: dict[int, dict[int, tuple[float, float]]],
                        keep_float: list[str] | None, int8_inputs: bool, int8_outputs: bool,
                        finite_ranges: dict[int, dict[int, tuple[float, float]]] | None = None,
                        activation: int = INT8, int16_ops: frozenset[str] | None = None) -> list[Plan]:
    """One plan per subgraph (ranges: per subgraph, per tensor). keep_float names op types, output tensors
    and op indices ("12" in subgraph 0, "2:12" in subgraph 2). Only subgraph 0's graph inputs and outputs
    follow int8_inputs / int8_outputs; the values an IF or WHILE passes between subgraphs are int8 with one
    scale on every side where they are float32 data calibration saw (float32 otherwise: QUANTIZE and
    DEQUANTIZE inside), and resource variables stay float32.

    activation=INT16 plans TFLite's 16x8 scheme over the op types of `int16_ops` (default: those of INT16_OPS
    rillet's runtime runs on int16); the other ops stay float, summed up in the first plan's notes."""
    keep = set(keep_float or [])
    allowed = None
    if activation == INT16:
        allowed = rillet_int16_ops() if int16_ops is None else frozenset(int16_ops)
    decisions = [_decide_ops(model, k, keep, allowed) for k in range(len(model.subgraphs))]
    unknown = sorted(keep - set().union(*(matched for _, _, matched in decisions)))
    if unknown:
        raise QuantizationError(f"keep_float: {unknown} name no op type, op index or output tensor of the model")
    notes = _constant_op_notes(model)
    for k, more in _keep_mask_ops_float(model, decisions, ranges).items():
        notes.setdefault(k, []).extend(more)
    if allowed is not None:
        for k, (quantized, kept, _) in enumerate(decisions):
            for j in _variance_ops(model, k):
                if quantized[j]:
                    quantized[j] = False
                    kept.append(_op_label(model, j, k))
        floats = sorted({model.op_name(op) for sg in model.subgraphs for op in sg.operators
                         if model.op_name(op) not in allowed | keep | BOUNDARY | {"QUANTIZE", "DEQUANTIZE"}
                         and any(sg.tensors[i].type == FLOAT32 for i in (op.inputs or []) + (op.outputs or [])
                                 if i >= 0)})
        if floats:
            unrun = [name for name in floats if name in INT16_OPS]
            why = [FLOAT_IN_INT16.get(name, f"LiteRT has no int16 {name}") for name in floats
                   if name not in INT16_OPS]
            if unrun:
                why.append("rillet's runtime has no int16 QUANTIZE or DEQUANTIZE yet" if not allowed else
                           f"rillet's runtime has no int16 {', '.join(unrun)} yet")
            notes.setdefault(0, []).append(f"int16x8: {', '.join(floats)} kept float (between DEQUANTIZE and "
                                           f"QUANTIZE): {'; '.join(why)}")
    for k, (quantized, _, _) in enumerate(decisions):
        _moves_follow_float(model, k, quantized)
    c = _Constraints(activation=activation)
    c.float_ops = {(k, j) for k, (quantized, _, _) in enumerate(decisions) for j, q in enumerate(quantized) if not q}
    for k, (quantized, _, _) in enumerate(decisions):
        _constrain(model, k, quantized, c, int8_inputs and k == 0, int8_outputs and k == 0)
    boundaries = _int8_boundaries(model, c, ranges)
    params = _assign(model, c, ranges, finite_ranges)
    if c.negated:  # a NEG's output is its input's parameters negated; one more pass places them in its group
        for source, negation in c.negated:
            c.fixed[negation] = negated_params(negation_input_params(params[source]))
        params = _assign(model, c, ranges, finite_ranges)
    if activation == INT16:
        _int16_addends(model, [quantized for quantized, _, _ in decisions], params, c, ranges)
    plans = []
    for k, (quantized, kept, matched) in enumerate(decisions):
        mine = {i: p for (kk, i), p in params.items() if kk == k}
        typed: dict[int, int] = {}
        for j, op in enumerate(model.subgraphs[k].operators):
            if quantized[j] and model.op_name(op) == "DIV":
                _check_divisor(model, k, j, op.inputs[1], mine[op.inputs[1]], ranges.get(k, {}))
            if quantized[j] and model.op_name(op) == LSTM:
                try:
                    extra, types = internal_params(model, k, j, ranges.get(k, {}), mine[op.outputs[0]])
                except ValueError as e:
                    raise QuantizationError(f"{_op_label(model, j, k)}: {e}") from None
                mine.update(extra)
                typed.update(types)
        plans.append(Plan(quantized, mine, kept, matched, {i for kk, i in boundaries if kk == k}, typed,
                          notes.get(k, []), activation))
    return plans


# Ops that only move values (no arithmetic): quantizing before or after one gives the same integers.
MOVES = {"RESHAPE", "SQUEEZE", "EXPAND_DIMS", "TRANSPOSE", "STRIDED_SLICE", "SLICE", "GATHER", "SPLIT",
         "SPLIT_V", "UNPACK", "PACK", "CONCATENATION", "TILE", "BROADCAST_TO", "REVERSE_V2", "GATHER_ND",
         "SPACE_TO_DEPTH", "DEPTH_TO_SPACE", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND"}


def _moves_follow_float(model: ModelFile, k: int, quantized: list[bool]) -> None:
    """Keeps float (in `quantized`) an op of MOVES whose float inputs all come from ops that stay float: a
    QUANTIZE before it would round values the ops after it may read as float (a float GELU's output moved
    by TRANSPOSE into a float residual ADD: the Whisper stem's output at 8 bits, PT2E keeps it float);
    where an int8 op reads it, the QUANTIZE after it gives the same integers."""
    sg = model.subgraphs[k]
    producer = {o: j for j, op in enumerate(sg.operators) for o in op.outputs or [] if o >= 0}
    for j, op in enumerate(sg.operators):
        if not quantized[j] or model.op_name(op) not in MOVES:
            continue
        data = [i for i in op.inputs or [] if i >= 0 and sg.tensors[i].type == FLOAT32
                and _constant(model, i, k) is None]
        if data and all(i in producer and not quantized[producer[i]] for i in data):
            quantized[j] = False


def _variance_ops(model: ModelFile, k: int) -> list[int]:
    """The ops of subgraph k that compute a layer norm's variance before its RSQRT: the ADD of epsilon and the
    MEAN it reads (of a SQUARED_DIFFERENCE, or of a MUL of a value by itself). In int16 a variance spans a few
    thousand steps at most: its smallest rows (a hundredth of the largest) keep 1% of their value, which
    RSQRT carries into every value of the row (ViT's last layer norm: 37 dB); float costs one value a row."""
    sg = model.subgraphs[k]
    producer = {o: j for j, op in enumerate(sg.operators) for o in op.outputs or [] if o >= 0}
    found = []
    for op in sg.operators:
        if model.op_name(op) != "RSQRT" or op.inputs[0] not in producer:
            continue
        j = producer[op.inputs[0]]
        if model.op_name(sg.operators[j]) == "ADD":
            found.append(j)
            operands = [i for i in sg.operators[j].inputs if _constant(model, i, k) is None]
            j = producer.get(operands[0], -1) if len(operands) == 1 else -1
        if j >= 0 and model.op_name(sg.operators[j]) == "MEAN":
            found.append(j)
    return found


def _int16_addends(model: ModelFile, quantized: list[list[bool]], params: dict[Key, QParams], c: _Constraints,
                   ranges: dict[int, dict[int, tuple[float, float]]]) -> None:
    """An operand of an int16 ADD or SUB that holds only zeros (an attention mask that masks nothing: it
    and the tensors sharing its parameters), or a constant whose own scale is finer than the other
    operand's (a layer norm's epsilon, 1e-12 / 32767), takes the other operand's scale. LiteRT's int16 ADD
    rescales both operands to twice the larger scale with 15 bits to spare, and aborts (SIGABRT) where the
    scales are that far apart; an epsilon below the other's step is 0 there either way."""
    def zeros(k: int, i: int) -> bool:
        data = _constant(model, i, k)
        return not np.any(data) if data is not None else tuple(ranges.get(k, {}).get(i, (1, 1))) == (0.0, 0.0)

    for k, sg in enumerate(model.subgraphs):
        for j, op in enumerate(sg.operators):
            if not quantized[k][j] or model.op_name(op) not in ("ADD", "SUB") or len(op.inputs) != 2:
                continue
            a, b = op.inputs
            for x, other in ((a, b), (b, a)):
                if (k, x) not in params or (k, other) not in params or zeros(k, other):
                    continue
                wider = params[(k, other)].scale[0]
                if zeros(k, x):
                    group = c.groups.find((k, x))
                    for key in [key for key in params if c.groups.find(key) == group]:
                        params[key] = QParams((wider,), (0,))
                elif _constant(model, x, k) is not None and params[(k, x)].scale[0] < wider:
                    params[(k, x)] = QParams((wider,), (0,))


def _check_divisor(model: ModelFile, k: int, j: int, i: int, p: QParams, ranges: dict) -> None:
    """TFLite's int8 DIV fails at invoke on a divisor equal to its zero point: refuse a divisor whose values
    (a constant's, or the range calibration saw) come within half a step of zero."""
    data = _constant(model, i, k)
    half_step = p.scale[0] / 2
    near_zero = (np.abs(data) < half_step).any() if data is not None else \
        ranges[i][0] < half_step and ranges[i][1] > -half_step
    if near_zero:
        what = "holds values" if data is not None else "took values (in calibration)"
        raise QuantizationError(f"{_op_label(model, j, k)}: its divisor {model.subgraphs[k].tensors[i].name!r} {what} "
                                f"within half an int8 step ({half_step:g}) of zero, where TFLite's int8 DIV fails; "
                                f"keep it float with keep_float=['DIV'] (or --keep-float DIV)")


# TFLite's int8 SOFTMAX writes its output in steps of 1/256: over more values than that, the average weight
# (1/n) rounds to at most one step, and most weights to 0 (Whisper's 1500-frame attention: 13.7 dB).
WIDE_SOFTMAX = 256


def wide_softmaxes(model: ModelFile) -> list[tuple[str, str]]:
    """The SOFTMAX ops over more than WIDE_SOFTMAX values, as (keep_float entry, why), which stay float: a
    float softmax's output quantized with the range calibration saw resolves small weights where 1/256 cannot."""
    found = []
    for k, sg in enumerate(model.subgraphs):
        for j, op in enumerate(sg.operators):
            if model.op_name(op) != "SOFTMAX" or not op.inputs:
                continue
            shape = sg.tensors[op.inputs[0]].shape_signature or sg.tensors[op.inputs[0]].shape
            n = shape[-1] if shape is not None and len(shape) else -1
            if n > WIDE_SOFTMAX:
                found.append((f"{k}:{j}" if k else str(j),
                              (f"{_op_label(model, j, k)} kept float: it weighs {n} values, and int8 SOFTMAX's fixed "
                              f"output step of 1/256 rounds their average weight 1/{n} to nothing")))
    return found


def no_int8_reason(name: str) -> str:
    """Why the quantizer has no int8 rule for `name`: LiteRT has no int8 kernel for it (probed with LiteRT
    2.3's builtin kernels), or rillet lacks one, or rillet has one and the quantizer no rule yet."""
    if name in LITERT_FLOAT_ONLY:
        return f"LiteRT has no int8 kernel for {name} (LiteRT 2.3 runs {name} on float32 only)"
    if name == "CAST":
        return "a CAST of int8 converts the raw integers, not the values they stand for, so CAST stays float"
    if runs_int8(name):
        return f"rillet runs int8 {name}, but its quantizer has no rule for it yet"
    return f"rillet has no int8 kernel for {name} yet"


# Float ops LiteRT 2.3's builtin kernels refuse on int8 (probed: a one-op int8 model fails to prepare).
LITERT_FLOAT_ONLY = {"SIN", "COS", "SQUARE", "POW", "FLOOR", "CEIL", "ROUND", "SIGN", "RFFT2D"}


def _infinite_range(model: ModelFile, i: int, r: tuple[float, float], k: int = 0,
                    float_ops: set[Key] | None = None) -> str:
    """What to say about a tensor with infinite or NaN values: a constant (an inf bound of a clip), or an
    activation calibration saw them in (a LOG of 0); it names the op to keep float, or where that op is float
    already, the int8 ops that read the tensor (or float outputs, for a graph output)."""
    sg = model.subgraphs[k]
    if _constant(model, i, k) is not None:
        j = next(j for j, op in enumerate(sg.operators) if i in (op.inputs or []))
        what = "is a constant holding values in"
    else:
        j = next((j for j, op in enumerate(sg.operators) if i in (op.outputs or [])), None)
        what = "holds values in" if j is None else f"(output of {_op_label(model, j, k)}): calibration saw values in"
    text = f"tensor {sg.tensors[i].name!r} {what} [{r[0]:g}, {r[1]:g}]; int8 needs a finite range"
    if j is None:  # a graph input: the calibration data itself
        return text
    if (k, j) in (float_ops or set()):
        readers = [n for n, op in enumerate(sg.operators) if i in (op.inputs or []) and (k, n) not in float_ops]
        if not readers:
            return f"{text}: keep the outputs float (io='float', or --io float)"
        labels = [f"{k}:{n}" if k else str(n) for n in readers]
        return (f"{text}: keep {', '.join(_op_label(model, n, k) for n in readers)} float too with "
                f"keep_float={labels!r} (or {' '.join(f'--keep-float {x}' for x in labels)})")
    name = model.op_name(sg.operators[j])
    return f"{text}: keep {_op_label(model, j, k)} float with keep_float=[{name!r}] (or --keep-float {name})"


class _Writer:
    """Builds one new subgraph: tensors and operators appended in a fixed order, constants into a buffer
    list the model's subgraphs share."""

    def __init__(self, model: ModelFile, sg_index: int = 0, buffers: list[Buffer] | None = None) -> None:
        self.model = model
        self.sg_index = sg_index
        self.sg = model.subgraphs[sg_index]
        self.tensors: list[Tensor] = []
        self.buffers: list[Buffer] = [Buffer()] if buffers is None else buffers
        self.operators: list[tuple[str, Operator, int]] = []  # (builtin name, op, version)
        self.cache: dict[tuple, int] = {}

    def buffer(self, array: np.ndarray) -> int:
        data = np.ascontiguousarray(array)
        self.buffers.append(Buffer(data=np.frombuffer(data.tobytes(), np.uint8)))
        return len(self.buffers) - 1

    def tensor(self, template: Tensor, **changes) -> int:
        self.tensors.append(dataclasses.replace(template, **changes))
        return len(self.tensors) - 1

    def copy(self, i: int) -> int:
        """The original tensor unchanged (its constant data copied into the new buffer list)."""
        key = ("copy", i)
        if key not in self.cache:
            t = self.sg.tensors[i]
            data = self.model.buffers[t.buffer].data if t.buffer < len(self.model.buffers) else None
            buffer = self.buffer(data) if data is not None and data.size else 0
            self.cache[key] = self.tensor(t, buffer=buffer)
        return self.cache[key]

    def op(self, name: str, inputs: list[int], outputs: list[int], template: Operator | None = None,
           version: int = 1, **changes) -> None:
        if template is None:
            template = Operator()
        self.operators.append((name, dataclasses.replace(template, inputs=list(inputs), outputs=list(outputs),
                                                         **changes), version))


@dataclass
class _Part:
    """A rewritten subgraph: its writer, its inputs and outputs, and where its original tensors went."""

    writer: _Writer
    inputs: list[int]
    outputs: list[int]
    renames: dict[int, int]  # original tensor -> new, for the signatures


def _assemble(model: ModelFile, parts: list[_Part]) -> ModelFile:
    """The new model: its subgraphs in the original order (IF, WHILE and CALL_ONCE name them by index), one
    operator code per (op, version), the signatures and metadata of `model`."""
    codes: list[OperatorCode] = []
    index: dict[tuple, int] = {}
    originals = {c.name: c for c in model.operator_codes}
    subgraphs = []
    for part in parts:
        operators = []
        for name, op, version in part.writer.operators:
            original = originals.get(name)
            code = BUILTIN_CODES[name] if original is None else original.code
            version = max(version, original.version if original is not None else 1)
            custom = original.custom_code if original is not None else None
            key = (code, custom, version)
            if key not in index:
                index[key] = len(codes)
                codes.append(OperatorCode(deprecated_builtin_code=min(code, PLACEHOLDER_FOR_GREATER_OP_CODES),
                                          custom_code=custom, version=version, builtin_code=code))
            operators.append(dataclasses.replace(op, opcode_index=index[key]))
        subgraphs.append(SubGraph(tensors=part.writer.tensors, inputs=part.inputs, outputs=part.outputs,
                                  operators=operators, name=part.writer.sg.name))
    signatures = None
    if model.signature_defs:
        def moved(sd: SignatureDef, maps: list[TensorMap]) -> list[TensorMap]:
            renames = parts[sd.subgraph_index].renames
            return [TensorMap(name=m.name, tensor_index=renames[m.tensor_index]) for m in maps]

        signatures = [SignatureDef(inputs=moved(sd, sd.inputs), outputs=moved(sd, sd.outputs),
                                   signature_key=sd.signature_key, subgraph_index=sd.subgraph_index)
                      for sd in model.signature_defs]
    buffers = parts[0].writer.buffers
    metadata, metadata_buffer = _metadata(model, buffers)
    return ModelFile(version=model.version, operator_codes=codes, subgraphs=subgraphs,
                     description=model.description, buffers=buffers, signature_defs=signatures,
                     metadata=metadata, metadata_buffer=metadata_buffer)


def _metadata(model: ModelFile, buffers: list[Buffer]) -> tuple[list[Metadata] | None, list[int] | None]:
    """The model's metadata entries (MediaPipe's TFLITE_METADATA, vendors' parameters) and its
    metadata_buffer list, their buffers copied unchanged onto the end of `buffers`."""
    moved: dict[int, int] = {}

    def move(b: int) -> int:
        if b not in moved:
            buffers.append(Buffer(data=model.buffers[b].data))
            moved[b] = len(buffers) - 1
        return moved[b]

    metadata = None
    if model.metadata is not None:
        metadata = [Metadata(name=m.name, buffer=move(m.buffer)) for m in model.metadata]
    metadata_buffer = None
    if model.metadata_buffer is not None:
        metadata_buffer = [move(b) for b in model.metadata_buffer]
    return metadata, metadata_buffer


def _types(writer: _Writer, indices: list[int]) -> list[int]:
    return [writer.tensors[i].type if i >= 0 else -1 for i in indices]


def rewrite_int8(model: ModelFile, plan: Plan | list[Plan], *, int8_inputs: bool, int8_outputs: bool,
                 per_channel: bool) -> ModelFile:
    """The int8 model of `plan` (one Plan per subgraph; a single Plan for a one-subgraph model). Subgraphs
    after the first keep float inputs and outputs (see plan_int8_subgraphs)."""
    plans = [plan] if isinstance(plan, Plan) else plan
    if len(plans) != len(model.subgraphs):
        raise QuantizationError(f"{len(plans)} plans for a model of {len(model.subgraphs)} subgraphs")
    buffers = [Buffer()]
    return _assemble(model, [_int8_subgraph(_Writer(model, k, buffers), p, int8_inputs=int8_inputs and k == 0,
                                            int8_outputs=int8_outputs and k == 0, per_channel=per_channel)
                             for k, p in enumerate(plans)])


def _int8_subgraph(w: _Writer, plan: Plan, *, int8_inputs: bool, int8_outputs: bool, per_channel: bool) -> _Part:
    model, sg, k = w.model, w.sg, w.sg_index
    producer = {o: j for j, op in enumerate(sg.operators) for o in op.outputs or [] if o >= 0}
    is_float = [t.type == FLOAT32 for t in sg.tensors]

    crossing = plan.int8_boundary  # int8 values an IF or WHILE passes across (its operands, results, and a
    # callee's inputs and outputs)
    act = plan.activation  # INT8, or INT16 (16x8: int16 activations and constant operands, int64 biases)
    act_name, act_dtype = ("int16", np.int16) if act == INT16 else ("int8", np.int8)

    def native_int8(i: int) -> bool:
        if i in producer:
            name = model.op_name(sg.operators[producer[i]])
            return (plan.quantized_ops[producer[i]] and name not in ANY_INPUT) or (name in BOUNDARY and i in crossing)
        return i in sg.inputs and (int8_inputs or (k > 0 and i in crossing))  # subgraph 0's: as io says

    base: dict[int, int] = {}
    for i, t in enumerate(sg.tensors):  # activations and integer constants, in their original order
        if is_float[i] and _constant(model, i, k) is not None:
            continue
        if i in plan.typed:
            base[i] = w.tensor(t, type=plan.typed[i], quantization=plan.params[i].parameters(), buffer=0)
        elif is_float[i] and native_int8(i):
            base[i] = w.tensor(t, type=act, quantization=plan.params[i].parameters(), buffer=0)
        else:
            base[i] = w.copy(i)

    def int8_view(i: int) -> int:
        if native_int8(i):
            return base[i]
        key = ("int8", i)
        if key not in w.cache:
            t = sg.tensors[i]
            q = w.tensor(t, name=f"{t.name}/{act_name}", type=act, quantization=plan.params[i].parameters(),
                         buffer=0, shape_signature=t.shape_signature)
            w.op("QUANTIZE", [base[i]], [q], version=2 if act == INT16 else 1)
            w.cache[key] = q
        return w.cache[key]

    def negation_view(i: int) -> int:
        """i requantized to negation_input_params, for a NEG to read."""
        key = ("negation", i)
        if key not in w.cache:
            t = sg.tensors[i]
            params = negation_input_params(plan.params[i])
            v = w.tensor(t, name=f"{t.name}/negatable", type=INT8, quantization=params.parameters(), buffer=0,
                         shape_signature=t.shape_signature)
            w.op("QUANTIZE", [int8_view(i)], [v], version=1)
            w.cache[key] = v
        return w.cache[key]

    def float_view(i: int) -> int:
        if _constant(model, i, k) is not None:
            return w.copy(i)
        if not native_int8(i):
            return base[i]
        key = ("float", i)
        if key not in w.cache:
            t = sg.tensors[i]
            f = w.tensor(t, name=f"{t.name}/float", type=FLOAT32, quantization=None, buffer=0)
            w.op("DEQUANTIZE", [base[i]], [f], version=2)
            w.cache[key] = f
        return w.cache[key]

    def const_int8(i: int) -> int:
        key = ("const", i)
        if key not in w.cache:
            t = sg.tensors[i]
            data = quantize_values(_constant(model, i, k), plan.params[i], act_dtype)
            w.cache[key] = w.tensor(t, type=act, buffer=w.buffer(data),
                                    quantization=plan.params[i].parameters())
        return w.cache[key]

    def weights(i: int, axis: int | None) -> tuple[int, QParams]:
        key = ("weights", i, axis)
        if key not in w.cache:
            data, params = quantize_weights(_constant(model, i, k), axis)
            w.cache[key] = (w.tensor(sg.tensors[i], type=INT8, buffer=w.buffer(data),
                                     quantization=params.parameters()), params)
        return w.cache[key]

    def bias(i: int, input_params: QParams, weight_params: QParams) -> int:
        key = ("bias", i, input_params, weight_params)
        if key not in w.cache:
            data, params = quantize_bias(_constant(model, i, k), input_params.scale[0], weight_params,
                                         np.int64 if act == INT16 else np.int32)
            w.cache[key] = w.tensor(sg.tensors[i], type=INT64 if act == INT16 else INT32,
                                    buffer=w.buffer(data), quantization=params.parameters())
        return w.cache[key]

    for j, op in enumerate(sg.operators):
        name = model.op_name(op)
        inputs = list(op.inputs or [])
        if not plan.quantized_ops[j]:
            new_in = [-1 if i < 0 else (int8_view(i) if name in BOUNDARY and i in crossing else float_view(i))
                      if is_float[i] else base[i] for i in inputs]
            new_out = [base[o] for o in op.outputs or []]
            w.op(name, new_in, new_out, op, version=1, intermediates=_moved(op.intermediates, base))
            continue
        if name == LSTM:
            def add_constant(i: int, values: np.ndarray, dtype: int, params: QParams) -> int:
                return w.tensor(sg.tensors[i], type=dtype, buffer=w.buffer(values), quantization=params.parameters())

            new_in = quantized_inputs(model, k, op, plan.params, add_constant, int8_view, base.__getitem__)
            w.op(name, new_in, [base[o] for o in op.outputs], op, version=1,
                 intermediates=[base[i] for i in op.intermediates])
            continue
        new_in = []
        weight_params = None
        activation_slot, filter_slot, bias_slot = WEIGHT_SLOTS.get(name, DEFAULT_WEIGHT_SLOTS)
        for slot, i in enumerate(inputs):
            if i < 0 or not is_float[i]:
                new_in.append(i if i < 0 else base[i])
            elif name in WEIGHT_AXIS and slot == filter_slot:
                index, weight_params = weights(i, WEIGHT_AXIS[name] if per_channel else None)
                new_in.append(index)
            elif name in WEIGHT_AXIS and slot == bias_slot:
                new_in.append(bias(i, plan.params[inputs[activation_slot]], weight_params))
            elif name in ANY_INPUT:
                new_in.append(base[i] if _constant(model, i, k) is None else w.copy(i))
            elif _constant(model, i, k) is not None:
                new_in.append(const_int8(i))
            elif name in NEGATES:
                new_in.append(negation_view(i))
            else:
                new_in.append(int8_view(i))
        new_out = [base[o] for o in op.outputs or []]
        if name == "EMBEDDING_LOOKUP":
            w.op("GATHER", [new_in[1], new_in[0]], new_out, op, builtin_options=GATHER_OPTIONS,
                 version=quantized_version("GATHER", _types(w, new_in[1:]), _types(w, new_out), per_channel=False))
            continue
        if act == INT16 and name == "FULLY_CONNECTED" and (len(new_in) < 3 or new_in[2] < 0):
            # a zero int64 bias: LiteRT runs a bias-less int16 FULLY_CONNECTED on ruy's int32 path (two
            # roundings) and one with an int64 bias on its reference kernel (one), which rillet matches
            channels = w.tensors[new_in[1]].shape[0]
            scales = np.float32(w.tensors[new_in[0]].quantization.scale[0]) * \
                np.asarray(w.tensors[new_in[1]].quantization.scale, np.float32)
            zero = Tensor(shape=[channels], type=INT64, name=f"{sg.tensors[op.outputs[0]].name}/zero_bias",
                          quantization=QParams(tuple(float(x) for x in scales), (0,) * channels).parameters())
            new_in = new_in[:2] + [w.tensor(zero, buffer=w.buffer(np.zeros(channels, np.int64)))]
        if act == INT16:
            w.op(name, new_in, new_out, op, version=INT16_VERSIONS.get(name, 2),
                 builtin_options=_int16_options(op.builtin_options))
            continue
        scales = None
        if name == "MUL":
            scales = tuple(float(w.tensors[t].quantization.scale[0]) for t in (new_in[0], new_in[1], new_out[0]))
        version = quantized_version(name, _types(w, new_in), _types(w, new_out),
                                    per_channel=per_channel, options=op.builtin_options, scales=scales)
        w.op(name, new_in, new_out, op, version=version)

    renames = {}
    graph_inputs = []
    for i in sg.inputs:
        renames[i] = base[i]
        graph_inputs.append(base[i])
    graph_outputs = []
    for o in sg.outputs:
        if is_float[o]:
            new = int8_view(o) if int8_outputs or (k > 0 and o in crossing) else float_view(o)
        else:
            new = base[o]
        renames[o] = new
        graph_outputs.append(new)
    return _Part(w, graph_inputs, graph_outputs, renames)


def _int16_options(options: Options | None) -> Options | None:
    """An op's options in the 16x8 file, as TensorFlow's converter writes them: an ADD or SUB of any scales
    (pot_scale_int16 false; its default, true, asks for power-of-two scales), int64 biases named on the ops
    with weights (quantized_bias_type INT64)."""
    if options is None:
        return None
    fields = options.fields()
    if "pot_scale_int16" in fields:
        fields["pot_scale_int16"] = False
    if "quantized_bias_type" in fields:
        fields["quantized_bias_type"] = INT64
    return Options(options.type_name, **fields)


def rewrite_dynamic_range(model: ModelFile, *, per_channel: bool, keep_float: list[str] | None = None) -> ModelFile:
    """int8 weights on CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and UNIDIRECTIONAL_SEQUENCE_LSTM
    (quant/lstm_dynamic.py), run as TFLite's hybrid kernels (activations quantized on the fly); everything
    else stays float, and so do the ops keep_float names (op
    types, op indices "12" or "2:12", output tensors, as in int8 mode). Every subgraph is rewritten."""
    buffers, keep, matched = [Buffer()], set(keep_float or []), set()
    parts = [_dynamic_range_subgraph(_Writer(model, k, buffers), per_channel, keep, matched)
             for k in range(len(model.subgraphs))]
    unknown = sorted(keep - matched)
    if unknown:
        raise QuantizationError(f"keep_float: {unknown} name no op type, op index or output tensor of the model")
    return _assemble(model, parts)


def _dynamic_range_subgraph(w: _Writer, per_channel: bool, keep: set[str], matched: set[str]) -> _Part:
    model, sg, k = w.model, w.sg, w.sg_index
    base = _LazyCopies(w)
    quantized: dict[tuple[int, int | None], int] = {}
    for j, op in enumerate(sg.operators):
        name = model.op_name(op)
        inputs = list(op.inputs or [])
        options = op.builtin_options
        weight = inputs[1] if len(inputs) > 1 else -1
        intermediates = _moved(op.intermediates, base)
        hits = ({name, f"{k}:{j}" if k else str(j)} | {sg.tensors[o].name for o in op.outputs or [] if o >= 0}) & keep
        matched |= hits
        lstm_slots = dynamic_weight_slots(model, k, op) if name == LSTM and not hits else []
        if lstm_slots:  # int8 weights per tensor, x and h quantized asymmetrically by the hybrid kernel
            for i in dict.fromkeys(inputs[slot] for slot in lstm_slots):
                if (i, None) not in quantized:
                    data, params = quantize_weights(_constant(model, i, k), None)
                    quantized[(i, None)] = w.tensor(sg.tensors[i], type=INT8, buffer=w.buffer(data),
                                                    quantization=params.parameters())
            new_in = [quantized[(i, None)] if slot in lstm_slots else base[i] if i >= 0 else -1
                      for slot, i in enumerate(inputs)]
            options = Options(options.type_name, **{**options.fields(), "asymmetric_quantize_inputs": True})
            outs = [base[o] for o in op.outputs or []]
            version = quantized_version(name, _types(w, new_in), _types(w, outs), per_channel=False, options=options)
            w.op(name, new_in, outs, op, version=version, builtin_options=options, intermediates=intermediates)
        elif name in HYBRID and not hits and weight >= 0 and sg.tensors[weight].type == FLOAT32 and \
                _constant(model, weight, k) is not None:
            axis = WEIGHT_AXIS[name] if per_channel else None
            if (weight, axis) not in quantized:
                data, params = quantize_weights(_constant(model, weight, k), axis)
                if name == "DEPTHWISE_CONV_2D" and axis is None:
                    # LiteRT's hybrid depthwise kernel reads one scale per channel whatever the file says (with
                    # a single scale it reads past it): the per-tensor scale is written once per channel.
                    channels = data.shape[WEIGHT_AXIS[name]]
                    params = QParams(params.scale * channels, params.zero_point * channels, WEIGHT_AXIS[name])
                quantized[(weight, axis)] = w.tensor(sg.tensors[weight], type=INT8, buffer=w.buffer(data),
                                                     quantization=params.parameters())
            new_in = [quantized[(weight, axis)] if slot == 1 else base[i] if i >= 0 else -1
                      for slot, i in enumerate(inputs)]
            if name == "FULLY_CONNECTED":
                options = Options(options.type_name, **{**options.fields(), "asymmetric_quantize_inputs": True})
            outs = [base[o] for o in op.outputs or []]
            version = quantized_version(name, _types(w, new_in), _types(w, outs),
                                        per_channel=per_channel or name == "DEPTHWISE_CONV_2D", options=options)
            w.op(name, new_in, outs, op, version=version, builtin_options=options, intermediates=intermediates)
        else:
            w.op(name, _moved(inputs, base), _moved(op.outputs or [], base), op, intermediates=intermediates)
    renames = {i: base[i] for i in list(sg.inputs) + list(sg.outputs)}
    return _Part(w, [base[i] for i in sg.inputs], [base[o] for o in sg.outputs], renames)


def rewrite_float16(model: ModelFile) -> ModelFile:
    """Float constants stored as float16, each widened once by a DEQUANTIZE at the start of its subgraph;
    every subgraph is rewritten."""
    buffers = [Buffer()]
    return _assemble(model, [_float16_subgraph(_Writer(model, k, buffers)) for k in range(len(model.subgraphs))])


def _float16_subgraph(w: _Writer) -> _Part:
    model, sg = w.model, w.sg
    base = {}
    for i, t in enumerate(sg.tensors):
        dense_float = t.type == FLOAT32 and t.sparsity is None  # a sparse constant stays sparse
        data = _constant(model, i, w.sg_index) if dense_float else None
        if data is not None:
            half = w.tensor(t, name=f"{t.name}/float16", type=FLOAT16, buffer=w.buffer(data.astype(np.float16)))
            base[i] = w.tensor(t, buffer=0)
            w.op("DEQUANTIZE", [half], [base[i]], version=quantized_version("DEQUANTIZE", [FLOAT16], [FLOAT32],
                                                                             per_channel=False))
        else:
            base[i] = w.copy(i)
    for op in sg.operators:
        w.op(model.op_name(op), _moved(op.inputs or [], base), _moved(op.outputs or [], base), op,
             intermediates=_moved(op.intermediates, base))
    renames = {i: base[i] for i in list(sg.inputs) + list(sg.outputs)}
    return _Part(w, [base[i] for i in sg.inputs], [base[o] for o in sg.outputs], renames)


def _moved(indices: list[int] | None, base: Mapping[int, int] | _LazyCopies) -> list[int] | None:
    """Original tensor indices in the new subgraph (-1, an omitted optional input, stays)."""
    return None if indices is None else [base[i] if i >= 0 else -1 for i in indices]


class _LazyCopies:
    """Original tensors copied on first use, so that float weights replaced by int8 ones are not kept."""

    def __init__(self, writer: _Writer) -> None:
        self.writer = writer

    def __getitem__(self, i: int) -> int:
        return self.writer.copy(i)
