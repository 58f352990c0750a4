"""Structure-aware mutations of .tflite models: the fields a hostile or broken converter gets wrong (shapes,
types, quantization parameters, op inputs and outputs, option values, subgraph and buffer indices), changed
through the format layer so the file stays a well-formed flatbuffer and the damage reaches the planner and
the ops rather than stopping at the reader. Byte-level damage is libFuzzer's job (native/tests/fuzz_plan.c);
this module seeds it and runs in the test suite."""

from __future__ import annotations

import copy
import random
import struct
from collections.abc import Callable, Iterator

import numpy as np

from rillet.converter.format import ModelError, ModelFile, load
from rillet.converter.format.codec import Writer
from rillet.converter.format.schema import FILE_IDENTIFIER

# Values that sit on the edges of what a field may hold.
EDGE_INTS = [0, 1, -1, 2, 3, 7, 255, 256, 65535, 65536, 2**31 - 1, -(2**31), 1 << 20]
EDGE_FLOATS = [0.0, -1.0, 1e-30, 1e30, float("inf"), float("nan"), -0.0, 1e-45]
TENSOR_TYPES = [0, 1, 2, 3, 4, 6, 7, 9, 10, 16, 17]  # float32 ... int8, complex64, uint32, ...


def _pick_tensor(rng: random.Random, model: ModelFile):
    sg = rng.choice(model.subgraphs)
    return sg, (rng.choice(sg.tensors) if sg.tensors else None)


def mutate_shape(rng: random.Random, model: ModelFile) -> None:
    _, t = _pick_tensor(rng, model)
    if t is None:
        return
    shape = list(t.shape or [])
    choice = rng.randrange(4)
    if choice == 0 and shape:
        shape[rng.randrange(len(shape))] = rng.choice(EDGE_INTS)
    elif choice == 1:
        shape.insert(rng.randrange(len(shape) + 1), rng.choice([1, 2, 0]))
    elif choice == 2 and shape:
        shape.pop(rng.randrange(len(shape)))
    else:
        shape = [rng.choice(EDGE_INTS) for _ in range(rng.randrange(7))]
    t.shape = shape


def mutate_type(rng: random.Random, model: ModelFile) -> None:
    _, t = _pick_tensor(rng, model)
    if t is not None:
        t.type = rng.choice(TENSOR_TYPES)


def mutate_quantization(rng: random.Random, model: ModelFile) -> None:
    _, t = _pick_tensor(rng, model)
    if t is None or t.quantization is None:
        return
    q = t.quantization
    choice = rng.randrange(4)
    if choice == 0 and q.scale:
        q.scale[rng.randrange(len(q.scale))] = rng.choice(EDGE_FLOATS)
    elif choice == 1 and q.zero_point:
        q.zero_point[rng.randrange(len(q.zero_point))] = rng.choice(EDGE_INTS)
    elif choice == 2:
        q.quantized_dimension = rng.choice(EDGE_INTS[:8])
    elif q.scale:
        q.scale = q.scale[: rng.randrange(len(q.scale) + 1)] or None  # fewer scales than channels


def mutate_op_tensors(rng: random.Random, model: ModelFile) -> None:
    sg = rng.choice(model.subgraphs)
    if not sg.operators:
        return
    op = rng.choice(sg.operators)
    lists = [x for x in (op.inputs, op.outputs) if x]
    if not lists:
        return
    indices = rng.choice(lists)
    k = rng.randrange(len(indices))
    choice = rng.randrange(4)
    if choice == 0:
        indices[k] = rng.randrange(len(sg.tensors)) if sg.tensors else 0
    elif choice == 1:
        indices[k] = rng.choice([-1, len(sg.tensors), 2**31 - 1, -7])
    elif choice == 2:
        indices.append(rng.randrange(len(sg.tensors)) if sg.tensors else 0)
    else:
        indices.pop(k)


def mutate_options(rng: random.Random, model: ModelFile) -> None:
    sg = rng.choice(model.subgraphs)
    with_options = [op for op in sg.operators if op.builtin_options is not None and op.builtin_options.fields()]
    if not with_options:
        return
    options = rng.choice(with_options).builtin_options
    name = rng.choice(sorted(options.fields()))
    value = getattr(options, name)
    if isinstance(value, bool):
        setattr(options, name, not value)
    elif isinstance(value, int):
        setattr(options, name, rng.choice(EDGE_INTS[:11]))
    elif isinstance(value, float):
        setattr(options, name, rng.choice(EDGE_FLOATS))
    elif isinstance(value, list) and value:
        value[rng.randrange(len(value))] = rng.choice(EDGE_INTS[:11])


def mutate_indices(rng: random.Random, model: ModelFile) -> None:
    """Subgraph, buffer and opcode indices: signatures, CALL_ONCE's init subgraph, a tensor's buffer."""
    choice = rng.randrange(4)
    if choice == 0 and model.signature_defs:
        rng.choice(model.signature_defs).subgraph_index = rng.choice([-1, len(model.subgraphs), 0, 1])
    elif choice == 1:
        _, t = _pick_tensor(rng, model)
        if t is not None:
            t.buffer = rng.choice([0, len(model.buffers) - 1, len(model.buffers), 2**31 - 1])
    elif choice == 2:
        sg = rng.choice(model.subgraphs)
        if sg.operators:
            rng.choice(sg.operators).opcode_index = rng.choice([len(model.operator_codes), -1, 0])
    else:
        for sg in model.subgraphs:
            for op in sg.operators:
                fields = op.builtin_options.fields() if op.builtin_options is not None else {}
                if "init_subgraph_index" in fields:
                    op.builtin_options.init_subgraph_index = rng.choice([-1, 0, len(model.subgraphs), 2**31 - 1])
                    return


def mutate_buffer(rng: random.Random, model: ModelFile) -> None:
    with_data = [b for b in model.buffers if b.data is not None and len(b.data)]
    if not with_data:
        return
    b = rng.choice(with_data)
    if rng.randrange(2):
        b.data = b.data[: rng.randrange(len(b.data))]
    else:  # weights that are NaN, huge or denormal when read as float
        data = b.data.copy()
        at = rng.randrange(max(1, len(data) - 3)) & ~3
        data[at : at + 4] = np.frombuffer(np.float32(rng.choice(EDGE_FLOATS)).tobytes(), np.uint8)[: len(data) - at]
        b.data = data


def mutate_graph_io(rng: random.Random, model: ModelFile) -> None:
    sg = rng.choice(model.subgraphs)
    target = sg.inputs if rng.randrange(2) else sg.outputs
    if target and rng.randrange(2):
        target[rng.randrange(len(target))] = rng.choice([-1, len(sg.tensors), rng.randrange(max(1, len(sg.tensors)))])
    else:
        target.append(rng.randrange(max(1, len(sg.tensors))))


MUTATIONS: list[Callable[[random.Random, ModelFile], None]] = [
    mutate_shape, mutate_type, mutate_quantization, mutate_op_tensors, mutate_options, mutate_indices,
    mutate_buffer, mutate_graph_io,
]


def write_unchecked(model: ModelFile) -> bytes:
    """The model's bytes without `save`'s checks: an index out of range or a call cycle reaches the runtime's
    reader, as it would in a hostile file."""
    return bytes(Writer().finish(model, "Model", FILE_IDENTIFIER))


def mutants(model_bytes: bytes, seed: int, count: int, max_changes: int = 3,
            mutations: list[Callable[[random.Random, ModelFile], None]] | None = None) -> Iterator[bytes]:
    """`count` mutated copies of the model (those the writer can encode), each with 1..max_changes changes drawn
    from `mutations` (the generic ones by default)."""
    mutations = mutations or MUTATIONS
    base = load(model_bytes)
    rng = random.Random(seed)
    made = 0
    attempts = 0
    while made < count and attempts < count * 4:
        attempts += 1
        model = copy.deepcopy(base)
        for _ in range(rng.randint(1, max_changes)):
            rng.choice(mutations)(rng, model)
        try:
            data = write_unchecked(model)
        except (ModelError, ValueError, OverflowError, TypeError, IndexError, KeyError, AttributeError, struct.error):
            continue  # a value the flatbuffer cannot hold (a negative uint, a string that is not one)
        made += 1
        yield data
