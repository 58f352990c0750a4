"""Feature-aware mutations for what issue 25 names beyond shapes and types: subgraph calls (IF, WHILE,
CALL_ONCE), resource variables, the LSTMs, DENSIFY's sparsity parameters, custom ops and signature defs. Each
breaks one thing a hostile or broken converter could write, where the generic mutations
(structure_mutations.py) would seldom land; the file is written unchecked, so an index out of range reaches
the runtime's own reader too. FAMILIES maps a family to its mutations (seed_models.py to its seeds)."""

from __future__ import annotations

import random
import struct
from collections.abc import Callable

import numpy as np

from rillet.converter.format import BUILTIN_CODES, ModelFile, Operator, Options, SignatureDef, Tensor, TensorMap

Mutation = Callable[[random.Random, ModelFile], None]

EDGE_INDICES = [-1, -(2**31), 2**31 - 1, 1 << 20]
EDGE_UINTS = [2**32 - 1, 2**31, 2**31 - 1, 1 << 20]  # uint fields: read back as negative int32 by a careless reader
TYPES = [0, 1, 2, 3, 4, 6, 7, 9, 13, 16]  # ... bool, int16, int8, resource, uint16
SHAPES = [[], [0], [1], [2], [3, 1], [1, 2, 3, 4, 5, 6, 7], [65536, 65536], [-1], [2**31 - 1]]
RESOURCE = 13


def _ops(model: ModelFile, *names: str) -> list[tuple[int, Operator]]:
    return [(s, op) for s, sg in enumerate(model.subgraphs) for op in sg.operators if model.op_name(op) in names]


def _tensor(model: ModelFile, s: int, index: int) -> Tensor | None:
    tensors = model.subgraphs[s].tensors
    return tensors[index] if 0 <= index < len(tensors) else None


def _as_list(values) -> list[int]:
    """A vector field as a list: the reader gives lists or (byte-sized elements) numpy arrays."""
    return [] if values is None else [int(v) for v in values]


def _edge_shape(rng: random.Random, shape: list[int] | None) -> list[int]:
    shape = list(shape or [])
    if shape and rng.randrange(2):
        shape[rng.randrange(len(shape))] = rng.choice([0, 1, shape[0] + 1, 65536, -1])
        return shape
    return list(rng.choice(SHAPES))


def _edit_list(rng: random.Random, values: list[int], pool: list[int]) -> list[int]:
    """One change to an index list: an entry replaced, one added, one dropped, or two swapped."""
    values = list(values)
    choice = rng.randrange(4)
    if choice == 0 and values:
        values[rng.randrange(len(values))] = rng.choice(pool)
    elif choice == 1:
        values.insert(rng.randrange(len(values) + 1), rng.choice(pool))
    elif choice == 2 and values:
        values.pop(rng.randrange(len(values)))
    elif len(values) > 1:
        i, j = rng.sample(range(len(values)), 2)
        values[i], values[j] = values[j], values[i]
    return values


# ---- IF, WHILE, CALL_ONCE ----

CALL_FIELDS = {"IfOptions": ("then_subgraph_index", "else_subgraph_index"),
               "WhileOptions": ("cond_subgraph_index", "body_subgraph_index"), "CallOnceOptions": ("init_subgraph_index",)}


def _calls(model: ModelFile) -> list[tuple[int, Operator, str]]:
    return [(s, op, field) for s, sg in enumerate(model.subgraphs) for op in sg.operators
            if op.builtin_options is not None for field in CALL_FIELDS.get(op.builtin_options.type_name, ())]


def mutate_called_subgraph(rng: random.Random, model: ModelFile) -> None:
    """A call to nowhere, to the caller itself (self-recursion), to subgraph 0 (mutual recursion with main), to
    another callee (a cond as a body), or to a callee's caller."""
    calls = _calls(model)
    if not calls:
        return
    s, op, field = rng.choice(calls)
    n = len(model.subgraphs)
    callers = [c for c, o, f in calls if getattr(o.builtin_options, f) == s]
    setattr(op.builtin_options, field, rng.choice([*EDGE_INDICES, n, s, s, 0, rng.randrange(n), *callers]))


def mutate_callee_interface(rng: random.Random, model: ModelFile) -> None:
    """A callee whose inputs or outputs disagree with its caller: a cond with two outputs or a float one, a body
    that changes a carried value's shape or dtype, or returns its carries in another order; or the caller's own
    lists of another length."""
    calls = [(s, op, f) for s, op, f in _calls(model) if 0 <= getattr(op.builtin_options, f) < len(model.subgraphs)]
    if not calls:
        return
    s, op, field = rng.choice(calls)
    target = getattr(op.builtin_options, field)
    callee = model.subgraphs[target]
    choice = rng.randrange(7)
    pool = list(range(len(callee.tensors))) or [0]
    if choice == 0:
        callee.outputs = _edit_list(rng, callee.outputs, pool)
    elif choice == 1:
        callee.inputs = _edit_list(rng, callee.inputs, pool)
    elif choice in (2, 3) and callee.outputs:
        t = _tensor(model, target, rng.choice(callee.outputs))
        if t is not None:
            if choice == 2:
                t.type = rng.choice(TYPES)
            else:
                t.shape = _edge_shape(rng, t.shape)
    elif choice == 4 and callee.inputs:  # the callee expects another type of value than it is given
        t = _tensor(model, target, rng.choice(callee.inputs))
        if t is not None:
            t.type, t.shape = rng.choice(TYPES), _edge_shape(rng, t.shape) if rng.randrange(2) else t.shape
    elif choice == 5:
        pool = list(range(len(model.subgraphs[s].tensors))) or [0]
        if rng.randrange(2):
            op.inputs = _edit_list(rng, op.inputs or [], pool)
        else:
            op.outputs = _edit_list(rng, op.outputs or [], pool)
    elif callee.inputs:  # an output that is an input: a cond that passes its int carry through, a body that changes nothing
        callee.outputs = [rng.choice(callee.inputs) for _ in callee.outputs]


def mutate_caller_values(rng: random.Random, model: ModelFile) -> None:
    """The caller's values: an IF whose condition is float or has four elements, a WHILE's carry that is a
    constant, or a CALL_ONCE with inputs."""
    calls = [(s, op) for s, op, _ in _calls(model)]
    if not calls:
        return
    s, op = rng.choice(calls)
    tensors = model.subgraphs[s].tensors
    if op.inputs and rng.randrange(3):
        t = _tensor(model, s, rng.choice(op.inputs))
        if t is not None:
            if rng.randrange(2):
                t.type = rng.choice(TYPES)
            else:
                t.shape = _edge_shape(rng, t.shape)
    elif op.outputs and rng.randrange(2):
        t = _tensor(model, s, rng.choice(op.outputs))
        if t is not None:
            t.is_variable, t.type = not t.is_variable, rng.choice(TYPES)
    elif tensors:
        op.inputs = (op.inputs or []) + [rng.randrange(len(tensors))]


# ---- resource variables ----

def mutate_var_handle(rng: random.Random, model: ModelFile) -> None:
    """Handles that clash (one name for variables of different shapes), are empty or unnamed, or have no options."""
    handles = [op for _, op in _ops(model, "VAR_HANDLE")]
    if not handles:
        return
    op = rng.choice(handles)
    choice = rng.randrange(5)
    if choice == 0:
        name = rng.choice(handles).builtin_options
        if name is not None:
            for other in handles:
                if other.builtin_options is not None:
                    other.builtin_options.shared_name = name.shared_name
    elif choice == 1 and op.builtin_options is not None:
        op.builtin_options.shared_name = rng.choice(["", None, "x" * 300, "v\x00w"])
    elif choice == 2 and op.builtin_options is not None:
        op.builtin_options.container = rng.choice(["", "other", None])
    elif choice == 3:
        op.builtin_options = None
    else:
        op.inputs = [0]  # a handle with an input


def mutate_variable_order(rng: random.Random, model: ModelFile) -> None:
    """READ_VARIABLE before anything assigned (no CALL_ONCE, or the read moved first), an ASSIGN moved ahead of
    the value it stores, or a second ASSIGN of another shape or dtype to the same variable."""
    choice = rng.randrange(4)
    if choice == 0:
        for sg in model.subgraphs:
            sg.operators = [op for op in sg.operators if model.op_name(op) != "CALL_ONCE"]
        return
    ops = _ops(model, "READ_VARIABLE", "ASSIGN_VARIABLE")
    if not ops:
        return
    s, op = rng.choice(ops)
    sg = model.subgraphs[s]
    if choice == 1:
        sg.operators.remove(op)
        sg.operators.insert(rng.randrange(len(sg.operators) + 1), op)
    elif choice == 2 and sg.tensors and op.inputs:
        twin = Operator(opcode_index=op.opcode_index, inputs=[op.inputs[0], rng.randrange(len(sg.tensors))],
                        outputs=[], builtin_options=op.builtin_options)
        if model.op_name(op) == "READ_VARIABLE":  # make the twin an ASSIGN through the same handle
            assigns = [o for _, o in _ops(model, "ASSIGN_VARIABLE")]
            if not assigns:
                return
            twin.opcode_index = assigns[0].opcode_index
        sg.operators.insert(rng.randrange(len(sg.operators) + 1), twin)
    else:  # the same resource read and assigned from two subgraphs' differently shaped tensors
        t = _tensor(model, s, (op.inputs or [-1])[-1] if model.op_name(op) == "ASSIGN_VARIABLE" else (op.outputs or [-1])[0])
        if t is not None:
            t.shape, t.type = _edge_shape(rng, t.shape), rng.choice([t.type, *TYPES])


def mutate_resource_tensors(rng: random.Random, model: ModelFile) -> None:
    """A resource operand that is not a resource (a float tensor, a constant, an omitted -1), or a resource
    tensor used as a plain value."""
    ops = _ops(model, "READ_VARIABLE", "ASSIGN_VARIABLE", "VAR_HANDLE")
    if not ops:
        return
    s, op = rng.choice(ops)
    sg = model.subgraphs[s]
    lists = [x for x in (op.inputs, op.outputs) if x]
    if not lists:
        return
    indices = rng.choice(lists)
    k = rng.randrange(len(indices))
    if rng.randrange(2) and sg.tensors:
        indices[k] = rng.choice([-1, rng.randrange(len(sg.tensors))])
    else:
        t = _tensor(model, s, indices[k])
        if t is not None:
            t.type = RESOURCE if t.type != RESOURCE else rng.choice(TYPES)


# ---- LSTMs ----

LSTM_OPS = ("UNIDIRECTIONAL_SEQUENCE_LSTM", "LSTM", "BIDIRECTIONAL_SEQUENCE_LSTM")


def mutate_lstm_inputs(rng: random.Random, model: ModelFile) -> None:
    """Optional tensors left out (and required ones), the input list cut short or grown, two slots swapped."""
    ops = _ops(model, *LSTM_OPS)
    if not ops:
        return
    s, op = rng.choice(ops)
    inputs = list(op.inputs or [])
    choice = rng.randrange(4)
    if choice == 0 and inputs:
        for _ in range(rng.randint(1, 3)):
            inputs[rng.randrange(len(inputs))] = -1
    elif choice == 1:
        inputs = inputs[: rng.choice([0, 1, 9, 18, 20, 23])]
    elif choice == 2:
        inputs += [rng.choice([-1, 0, len(model.subgraphs[s].tensors)]) for _ in range(rng.randint(1, 4))]
    elif len(inputs) > 1:
        i, j = rng.sample(range(len(inputs)), 2)
        inputs[i], inputs[j] = inputs[j], inputs[i]
    op.inputs = inputs


def mutate_lstm_gate_shapes(rng: random.Random, model: ModelFile) -> None:
    """A weight, bias, peephole, state or norm tensor of the wrong shape or type; a state that is not a variable."""
    ops = _ops(model, *LSTM_OPS)
    if not ops:
        return
    s, op = rng.choice(ops)
    present = [i for i in (op.inputs or []) if i >= 0]
    if not present:
        return
    t = _tensor(model, s, rng.choice(present))
    if t is None:
        return
    choice = rng.randrange(4)
    if choice == 0:
        t.shape = list(reversed(t.shape or [])) if rng.randrange(2) else _edge_shape(rng, t.shape)
    elif choice == 1:
        t.shape = list(t.shape or []) + [1] if rng.randrange(2) else list(t.shape or [])[1:]
    elif choice == 2:
        t.type = rng.choice(TYPES)
    else:
        t.is_variable = not t.is_variable


def mutate_lstm_intermediates(rng: random.Random, model: ModelFile) -> None:
    """The int8 LSTM's intermediates (gate and hidden scales): fewer or more, out of range, unquantized, or with
    scales and zero points at the edges."""
    ops = _ops(model, *LSTM_OPS)
    if not ops:
        return
    s, op = rng.choice(ops)
    n = len(model.subgraphs[s].tensors)
    inter = list(op.intermediates or [])
    choice = rng.randrange(4)
    if choice == 0:
        op.intermediates = _edit_list(rng, inter, [-1, n, 0, *range(max(0, n - 6), n)]) or None
        return
    if not inter:
        return
    t = _tensor(model, s, rng.choice(inter))
    if t is None:
        return
    q = t.quantization
    if choice == 1 or q is None:
        t.quantization = None
    elif choice == 2:
        q.scale = [rng.choice([0.0, -1.0, 1e-30, 1e30, float("inf"), float("nan"), 1.0, 2.0**-40])]
    else:
        q.zero_point = [rng.choice([1, -1, 127, -32768, 2**31 - 1])] if rng.randrange(2) else [0, 0]
        t.type = rng.choice([t.type, 9, 7, 2, 0])


def mutate_lstm_options(rng: random.Random, model: ModelFile) -> None:
    """The op as plain LSTM or bidirectional (their input layouts differ), options missing or of another op."""
    ops = _ops(model, *LSTM_OPS)
    if not ops:
        return
    _, op = rng.choice(ops)
    choice = rng.randrange(4)
    if choice == 0:
        code = model.operator_codes[op.opcode_index]
        code.builtin_code = BUILTIN_CODES[rng.choice(LSTM_OPS)]
        code.deprecated_builtin_code = min(code.builtin_code, 127)
    elif choice == 1:
        op.builtin_options = None
    elif choice == 2:
        op.builtin_options = Options("FullyConnectedOptions", fused_activation_function=1, keep_num_dims=True)
    elif op.builtin_options is not None:
        fields = op.builtin_options.fields()
        name = rng.choice(sorted(fields))
        value = fields[name]
        if isinstance(value, bool):
            setattr(op.builtin_options, name, not value)
        elif isinstance(value, int):
            setattr(op.builtin_options, name, rng.choice([0, 1, 2, 5, 6, 7, 127, -1]))
        elif isinstance(value, float):
            setattr(op.builtin_options, name, rng.choice([-1.0, float("nan"), float("inf"), 1e-30]))


# ---- DENSIFY ----

VECTOR_TYPES = ["Int32Vector", "Uint16Vector", "Uint8Vector"]


def _sparse(model: ModelFile) -> list[tuple[int, Tensor]]:
    return [(s, t) for s, sg in enumerate(model.subgraphs) for t in sg.tensors if t.sparsity is not None]


def mutate_sparsity_order(rng: random.Random, model: ModelFile) -> None:
    """traversal_order and block_map: shuffled, repeated, out of range, longer or shorter than the levels."""
    tensors = _sparse(model)
    if not tensors:
        return
    sp = rng.choice(tensors)[1].sparsity
    name = rng.choice(["traversal_order", "block_map"])
    values = _as_list(getattr(sp, name, None))
    pool = [0, 1, 2, 3, -1, 2**31 - 1, len(values), len(values) + 1]
    setattr(sp, name, rng.choice([_edit_list(rng, values, pool), None, [rng.choice(pool)] * rng.randint(1, 4)]))


def mutate_sparsity_levels(rng: random.Random, model: ModelFile) -> None:
    """dim_metadata: a level dropped or repeated, DENSE made SPARSE_CSR or an unknown format, dense_size at the
    edges, a sparse level without its segments or indices."""
    tensors = _sparse(model)
    if not tensors:
        return
    sp = rng.choice(tensors)[1].sparsity
    levels = list(sp.dim_metadata or [])
    choice = rng.randrange(5)
    if choice == 0 and levels:
        if rng.randrange(2):
            levels.pop(rng.randrange(len(levels)))
        else:
            levels.insert(rng.randrange(len(levels) + 1), rng.choice(levels))
        sp.dim_metadata = levels
        return
    if not levels:
        return
    level = rng.choice(levels)
    if choice == 1:
        level.format = rng.choice([0, 1, 2, 127])
    elif choice == 2:
        level.dense_size = rng.choice([0, -1, 1, 3, 65536, 2**31 - 1])
    elif choice == 3:
        setattr(level, rng.choice(["array_segments", "array_indices"]), None)
    else:
        level.array_segments, level.array_indices = getattr(level, "array_indices", None), getattr(level, "array_segments", None)


def mutate_sparse_index_values(rng: random.Random, model: ModelFile) -> None:
    """Segments and indices out of range: past the values, past the dense size, negative, decreasing,
    cut short, or in another index width."""
    vectors = [v for _, t in _sparse(model) for level in (t.sparsity.dim_metadata or [])
               for v in (getattr(level, "array_segments", None), getattr(level, "array_indices", None)) if v is not None]
    if not vectors:
        return
    vector = rng.choice(vectors)
    values = _as_list(vector.values)
    choice = rng.randrange(4)
    limit = {"Int32Vector": 2**31 - 1, "Uint16Vector": 65535, "Uint8Vector": 255}.get(vector.type_name, 255)
    if choice == 0 and values:
        values[rng.randrange(len(values))] = rng.choice([limit, max(values) + 1, 0, 255, -1 if limit > 65535 else 0])
    elif choice == 1:
        values = values[::-1]
    elif choice == 2:
        values = values[: rng.randrange(len(values) + 1)] if values else [limit]
    else:
        vector.type_name = rng.choice(VECTOR_TYPES)
        values = [min(v, 255) for v in values]
    vector.values = values


def mutate_sparse_tensor(rng: random.Random, model: ModelFile) -> None:
    """The sparse constant itself: another dense shape, fewer stored values, another type, or its sparsity copied
    onto a tensor that DENSIFY does not read."""
    tensors = _sparse(model)
    if not tensors:
        return
    s, t = rng.choice(tensors)
    choice = rng.randrange(4)
    if choice == 0:
        t.shape = _edge_shape(rng, t.shape)
    elif choice == 1:
        data = model.buffers[t.buffer].data if 0 <= t.buffer < len(model.buffers) else None
        if data is not None and len(data):
            model.buffers[t.buffer].data = data[: rng.randrange(len(data))]
    elif choice == 2:
        t.type = rng.choice([0, 1, 9, 2, 6, 7])
    else:
        other = rng.choice(model.subgraphs[s].tensors)
        other.sparsity = t.sparsity


# ---- custom ops ----

CUSTOM_NAMES = ["Convolution2DTransposeBias", "MaxPoolingWithArgmax2D", "MaxUnpooling2D", "", "NoSuchOp",
                "Convolution2DTransposeBia", "maxunpooling2d", "TFLite_Detection_PostProcess", "x" * 300,
                "MaxUnpooling2D\x00"]


def mutate_custom_code(rng: random.Random, model: ModelFile) -> None:
    """An unknown custom name, a known one on another op's inputs, no name at all, or a builtin code with one."""
    if not model.operator_codes:
        return
    code = rng.choice(model.operator_codes)
    choice = rng.randrange(3)
    if choice == 0:
        code.builtin_code = code.deprecated_builtin_code = 32
        code.custom_code = rng.choice(CUSTOM_NAMES)
    elif choice == 1:
        code.custom_code = None
    else:
        code.custom_code = rng.choice(CUSTOM_NAMES)  # a name on a builtin: which one wins?


def mutate_custom_options(rng: random.Random, model: ModelFile) -> None:
    """custom_options bytes: none, cut, grown, random, or an int32 field (padding, stride, filter) at the edges."""
    ops = [op for sg in model.subgraphs for op in sg.operators
           if 0 <= op.opcode_index < len(model.operator_codes) and model.operator_codes[op.opcode_index].custom_code]
    if not ops:
        return
    op = rng.choice(ops)
    raw = bytearray(op.custom_options.tobytes() if op.custom_options is not None else b"")
    choice = rng.randrange(5)
    if choice == 0:
        raw = None
    elif choice == 1:
        raw = raw[: rng.randrange(len(raw) + 1)]
    elif choice == 2:
        raw += bytes(rng.randrange(256) for _ in range(rng.choice([1, 4, 40])))
    elif choice == 3:
        raw = bytearray(rng.randrange(256) for _ in range(rng.choice([0, 1, 12, 40, 64])))
    elif len(raw) >= 4:
        at = rng.randrange(len(raw) // 4) * 4
        raw[at : at + 4] = struct.pack("<i", rng.choice([0, -1, 2, 3, 65536, 2**31 - 1, -(2**31)]))
    op.custom_options = None if raw is None else np.frombuffer(bytes(raw), np.uint8).copy()
    if rng.randrange(8) == 0:
        op.custom_options_format = rng.choice([1, 127])


# ---- signature defs ----

def mutate_signature(rng: random.Random, model: ModelFile) -> None:
    """A signature over a subgraph out of range, a tensor index out of range, two inputs with one name, an input
    that is also an output, two signatures with one key, a missing name or key."""
    sigs = model.signature_defs
    if not sigs:
        sg = model.subgraphs[0]
        model.signature_defs = sigs = [SignatureDef(
            inputs=[TensorMap(name=f"in{k}", tensor_index=t) for k, t in enumerate(sg.inputs)],
            outputs=[TensorMap(name=f"out{k}", tensor_index=t) for k, t in enumerate(sg.outputs)],
            signature_key="serving_default", subgraph_index=0)]
    sig = rng.choice(sigs)
    n = len(model.subgraphs[sig.subgraph_index].tensors) if 0 <= sig.subgraph_index < len(model.subgraphs) else 1
    maps = [m for m in (sig.inputs or []) + (sig.outputs or [])]
    choice = rng.randrange(8)
    if choice == 0:
        sig.subgraph_index = rng.choice([*EDGE_UINTS, len(model.subgraphs), rng.randrange(len(model.subgraphs))])
    elif choice == 1 and maps:
        rng.choice(maps).tensor_index = rng.choice([*EDGE_UINTS, n, rng.randrange(n)])
    elif choice == 2 and len(maps) > 1:
        a, b = rng.sample(maps, 2)
        a.name = b.name
    elif choice == 3 and sig.inputs and sig.outputs:
        rng.choice(sig.inputs).tensor_index = rng.choice(sig.outputs).tensor_index
    elif choice == 4 and maps:
        rng.choice(maps).name = rng.choice([None, "", "x" * 300])
    elif choice == 5:
        sig.signature_key = rng.choice([None, "", sigs[0].signature_key])
    elif choice == 6:
        model.signature_defs = sigs + [SignatureDef(inputs=list(sig.inputs or []), outputs=list(sig.outputs or []),
                                                 signature_key=sig.signature_key,
                                                 subgraph_index=rng.randrange(len(model.subgraphs)))]
    else:
        target = rng.choice(["inputs", "outputs"])
        entries = list(getattr(sig, target) or [])
        if entries and rng.randrange(2):
            entries.append(TensorMap(name=entries[0].name, tensor_index=entries[-1].tensor_index))
        else:
            entries = []
        setattr(sig, target, entries)


FAMILIES: dict[str, list[Mutation]] = {
    "control_flow": [mutate_called_subgraph, mutate_callee_interface, mutate_caller_values],
    "variables": [mutate_var_handle, mutate_variable_order, mutate_resource_tensors],
    "lstm": [mutate_lstm_inputs, mutate_lstm_gate_shapes, mutate_lstm_intermediates, mutate_lstm_options],
    "densify": [mutate_sparsity_order, mutate_sparsity_levels, mutate_sparse_index_values, mutate_sparse_tensor],
    "custom": [mutate_custom_code, mutate_custom_options],
    "signatures": [mutate_signature],
}
