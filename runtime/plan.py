"""The bridge from a decoded .tflite subgraph to librillet's plan: tensors, typed op parameters, errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rillet.converter.format import ModelError, ModelView, Options, SubGraphView, tensor_type_name
from rillet.converter.format.codec import SLOTS
from rillet.converter.format.columns import Vectors, gather
from rillet.converter.format.schema import CUSTOM_CODE, UNIONS
from rillet.converter.format.view import OperatorColumns, TensorColumns
from rillet.native import STATUS_NAMES, ffi, lib

from .program import Program

MAX_DIMS = 8


class InterpreterError(RuntimeError):
    """librillet refused or failed: the message names the op, its index and the problem."""


class UnsupportedOpsError(InterpreterError, ValueError):
    """The model holds ops (or op/dtype pairs) rillet has no kernel for; the message lists every one."""


class OptionsRefused(InterpreterError):
    """Op `op`'s options ask for something rillet does not do."""

    def __init__(self, op: int, problem: str) -> None:
        super().__init__(f"op {op}: {problem}")
        self.op, self.problem = op, problem


def _get(options: Options | None, name: str, default: Any) -> Any:
    value = getattr(options, name, None) if options is not None else None
    return default if value is None else value


def _conv(p: Any, o: Options | None) -> None:
    c = p.conv
    c.padding = _get(o, "padding", 0)
    c.stride_w, c.stride_h = _get(o, "stride_w", 1), _get(o, "stride_h", 1)
    c.dilation_w, c.dilation_h = _get(o, "dilation_w_factor", 1), _get(o, "dilation_h_factor", 1)
    c.depth_multiplier = _get(o, "depth_multiplier", 1)
    c.activation = _get(o, "fused_activation_function", 0)


def _pool(p: Any, o: Options | None) -> None:
    q = p.pool
    q.padding = _get(o, "padding", 0)
    q.stride_w, q.stride_h = _get(o, "stride_w", 1), _get(o, "stride_h", 1)
    q.filter_w, q.filter_h = _get(o, "filter_width", 1), _get(o, "filter_height", 1)
    q.activation = _get(o, "fused_activation_function", 0)


def _fully_connected(p: Any, o: Options | None) -> None:
    if _get(o, "weights_format", 0) != 0:
        raise InterpreterError("shuffled weights are not supported")
    p.fully_connected.activation = _get(o, "fused_activation_function", 0)
    p.fully_connected.keep_num_dims = int(bool(_get(o, "keep_num_dims", False)))


def _batch_matmul(p: Any, o: Options | None) -> None:
    p.batch_matmul.adj_x = int(bool(_get(o, "adj_x", False)))
    p.batch_matmul.adj_y = int(bool(_get(o, "adj_y", False)))


def _arithmetic(p: Any, o: Options | None) -> None:
    p.arithmetic.activation = _get(o, "fused_activation_function", 0)


def _reducer(p: Any, o: Options | None) -> None:
    p.reducer.keep_dims = int(bool(_get(o, "keep_dims", False)))


def _softmax(p: Any, o: Options | None) -> None:
    p.softmax.beta = _get(o, "beta", 1.0)


def _leaky_relu(p: Any, o: Options | None) -> None:
    p.leaky_relu.alpha = _get(o, "alpha", 0.0)


def _concatenation(p: Any, o: Options | None) -> None:
    p.concatenation.axis = _get(o, "axis", 0)
    p.concatenation.activation = _get(o, "fused_activation_function", 0)


def _reshape(p: Any, o: Options | None) -> None:
    shape = _get(o, "new_shape", None)
    if shape is None or len(shape) > MAX_DIMS:
        p.reshape.count = -1
        return
    p.reshape.count = len(shape)
    for i, d in enumerate(shape):
        p.reshape.shape[i] = int(d)


def _squeeze(p: Any, o: Options | None) -> None:
    dims = list(_get(o, "squeeze_dims", []))[:MAX_DIMS]
    p.squeeze.count = len(dims)
    for i, d in enumerate(dims):
        p.squeeze.dims[i] = int(d)


def _strided_slice(p: Any, o: Options | None) -> None:
    s = p.strided_slice
    for name in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"):
        setattr(s, name, _get(o, name, 0))
    s.offset = int(bool(_get(o, "offset", False)))


def _gather(p: Any, o: Options | None) -> None:
    p.gather.axis = _get(o, "axis", 0)
    p.gather.batch_dims = _get(o, "batch_dims", 0)


def _pack(p: Any, o: Options | None) -> None:
    p.pack.axis = _get(o, "axis", 0)
    p.pack.values_count = _get(o, "values_count", 0)


def _shape(p: Any, o: Options | None) -> None:
    p.shape.out_type = _get(o, "out_type", 2)


def _resize(p: Any, o: Options | None) -> None:
    p.resize.align_corners = int(bool(_get(o, "align_corners", False)))
    p.resize.half_pixel_centers = int(bool(_get(o, "half_pixel_centers", False)))


def _none(p: Any, o: Options | None) -> None:
    return None


def _call_once(p: Any, o: Options | None) -> None:
    p.call_once.init_subgraph_index = _get(o, "init_subgraph_index", 0)


# Builtin name -> how its options fill the op's parameter struct (every op rillet runs has an entry).
PARAMETER_FILLERS: dict[str, Callable[[Any, Options | None], None]] = {
    "CONV_2D": _conv, "DEPTHWISE_CONV_2D": _conv, "MAX_POOL_2D": _pool, "AVERAGE_POOL_2D": _pool,
    "FULLY_CONNECTED": _fully_connected, "BATCH_MATMUL": _batch_matmul,
    "ADD": _arithmetic, "SUB": _arithmetic, "MUL": _arithmetic, "DIV": _arithmetic,
    "MEAN": _reducer, "SUM": _reducer, "SOFTMAX": _softmax, "LEAKY_RELU": _leaky_relu,
    "CONCATENATION": _concatenation, "RESHAPE": _reshape, "SQUEEZE": _squeeze,
    "STRIDED_SLICE": _strided_slice, "GATHER": _gather, "PACK": _pack, "SHAPE": _shape,
    "RESIZE_BILINEAR": _resize, "RESIZE_NEAREST_NEIGHBOR": _resize,
    "CALL_ONCE": _call_once, "VAR_HANDLE": _none, "READ_VARIABLE": _none, "ASSIGN_VARIABLE": _none,
}


# The usual case of each op's parameters, read for all the ops of a kind at once (`fill_parameters`):
# the options type the op comes with, and per parameter its options field and its value when the op has
# no options table. An op with options of another type goes through PARAMETER_FILLERS, which mean the
# same (a test holds the two equal).
_ACTIVATION = ("activation", "fused_activation_function", 0)
_CONV = ("conv", (("padding", "padding", 0), ("stride_w", "stride_w", 1), ("stride_h", "stride_h", 1),
                  ("dilation_w", "dilation_w_factor", 1), ("dilation_h", "dilation_h_factor", 1),
                  ("depth_multiplier", "depth_multiplier", 1), _ACTIVATION))
_POOL = ("pool", (("padding", "padding", 0), ("stride_w", "stride_w", 1), ("stride_h", "stride_h", 1),
                  ("filter_w", "filter_width", 1), ("filter_h", "filter_height", 1), _ACTIVATION))
_ARITHMETIC = ("arithmetic", (_ACTIVATION,))
_REDUCER = ("reducer", (("keep_dims", "keep_dims", False),))
_RESIZE = ("resize", (("align_corners", "align_corners", False), ("half_pixel_centers", "half_pixel_centers", False)))
PARAMETER_COLUMNS: dict[str, tuple[str, str, tuple[tuple[str, str, float], ...]]] = {
    "CONV_2D": ("Conv2DOptions", *_CONV), "DEPTHWISE_CONV_2D": ("DepthwiseConv2DOptions", *_CONV),
    "MAX_POOL_2D": ("Pool2DOptions", *_POOL), "AVERAGE_POOL_2D": ("Pool2DOptions", *_POOL),
    "FULLY_CONNECTED": ("FullyConnectedOptions", "fully_connected",
                        (_ACTIVATION, ("keep_num_dims", "keep_num_dims", False))),
    "BATCH_MATMUL": ("BatchMatMulOptions", "batch_matmul", (("adj_x", "adj_x", False), ("adj_y", "adj_y", False))),
    "ADD": ("AddOptions", *_ARITHMETIC), "SUB": ("SubOptions", *_ARITHMETIC), "MUL": ("MulOptions", *_ARITHMETIC),
    "DIV": ("DivOptions", *_ARITHMETIC), "MEAN": ("ReducerOptions", *_REDUCER), "SUM": ("ReducerOptions", *_REDUCER),
    "SOFTMAX": ("SoftmaxOptions", "softmax", (("beta", "beta", 1.0),)),
    "LEAKY_RELU": ("LeakyReluOptions", "leaky_relu", (("alpha", "alpha", 0.0),)),
    "CONCATENATION": ("ConcatenationOptions", "concatenation", (("axis", "axis", 0), _ACTIVATION)),
    "STRIDED_SLICE": ("StridedSliceOptions", "strided_slice", tuple(
        (m, m, 0) for m in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"))
        + (("offset", "offset", False),)),
    "GATHER": ("GatherOptions", "gather", (("axis", "axis", 0), ("batch_dims", "batch_dims", 0))),
    "PACK": ("PackOptions", "pack", (("axis", "axis", 0), ("values_count", "values_count", 0))),
    "SHAPE": ("ShapeOptions", "shape", (("out_type", "out_type", 2),)),
    "RESIZE_BILINEAR": ("ResizeBilinearOptions", *_RESIZE),
    "RESIZE_NEAREST_NEIGHBOR": ("ResizeNearestNeighborOptions", *_RESIZE),
}
_OPTIONS_CODES = {name: code for code, name in enumerate(UNIONS["BuiltinOptions"]) if name}


def _parameter_words() -> tuple[int, dict[tuple[str, str], tuple[int, bool]]]:
    """rl_op_params as 32-bit words: how many, and per (member, field) its word and whether a float."""
    union = ffi.typeof("rl_op_params")
    words: dict[tuple[str, str], tuple[int, bool]] = {}
    for member, m in union.fields:
        for name, f in m.type.fields:
            if f.type.kind == "primitive":
                if ffi.sizeof(f.type) != 4 or (m.offset + f.offset) % 4:
                    raise ImportError(f"rl_op_params.{member}.{name} is not a 32-bit word")
                words[(member, name)] = ((m.offset + f.offset) // 4, f.type.cname == "float")
    return ffi.sizeof(union) // 4, words


PARAMETER_WORDS, _PARAMETER_WORD = _parameter_words()


# Every parameter of every op kind of PARAMETER_COLUMNS, one row each: its options field's vtable slot in
# the kind's options type (-1: the type has no such field, the default stands), the field's type, its
# 32-bit word in rl_op_params (-1: FULLY_CONNECTED's weights_format, which must be 0), its value without
# an options table, its value when the table leaves the field out (the schema's default), float?
_FIELD_TYPES = ("byte", "int", "float", "bool", "ubyte", "short", "ushort", "uint")
_PARAMETER_ROWS: dict[str, np.ndarray] = {}  # kind -> its rows in the table below
_slots, _types, _words, _defaults, _schema_defaults, _floats = [], [], [], [], [], []
for _kind, (_options, _member, _fields) in PARAMETER_COLUMNS.items():
    _slot_of = {name: (slot, ftype, d) for slot, name, ftype, d in SLOTS[_options] if name is not None}
    _entries = [(_slot_of.get(option, (-1, "int", default)), *_PARAMETER_WORD[(_member, field)], default)
                for field, option, default in _fields]
    if _kind == "FULLY_CONNECTED":
        _entries.append((_slot_of["weights_format"], -1, False, 0))
    _PARAMETER_ROWS[_kind] = np.arange(len(_slots), len(_slots) + len(_entries))
    for (_slot, _ftype, _schema_default), _word, _is_float, _default in _entries:
        _slots.append(_slot)
        _types.append(_FIELD_TYPES.index(_ftype))
        _words.append(_word)
        _floats.append(_is_float)
        _defaults.append(float(_default))
        _schema_defaults.append(float(_schema_default))
PARAMETER_SLOT, PARAMETER_TYPE, PARAMETER_WORD = (np.array(v, dtype=np.intp) for v in (_slots, _types, _words))
PARAMETER_DEFAULT, PARAMETER_SCHEMA_DEFAULT = np.array(_defaults), np.array(_schema_defaults)
PARAMETER_FLOAT = np.array(_floats, dtype=bool)
_PARAMETER_CODE = {kind: _OPTIONS_CODES[options] for kind, (options, _, _) in PARAMETER_COLUMNS.items()}


def fill_parameters(subgraph: SubGraphView, names: list[str], vectorized: bool = True) -> np.ndarray:
    """Every op's rl_op_params (row j: op j's, as 32-bit words) from its builtin options. `vectorized`
    reads every parameter of every op whose options are of its kind's usual type (or absent) at once;
    otherwise (and for the rest) PARAMETER_FILLERS fill one op at a time. Raises OptionsRefused for
    options rillet refuses."""
    words = np.zeros((max(1, len(names)), PARAMETER_WORDS), dtype=np.int32)
    ops = subgraph.operator_columns()
    one_by_one: list[int] = []
    kinds: dict[str, list[int]] = {}
    for j, name in enumerate(names):
        kinds.setdefault(name, []).append(j)
    pair_ops: list[np.ndarray] = []
    pair_parameters: list[np.ndarray] = []
    for kind, rows_list in kinds.items():
        if not vectorized or kind not in _PARAMETER_ROWS:
            if kind in PARAMETER_FILLERS:
                one_by_one += rows_list
            continue
        rows = np.array(rows_list, dtype=np.intp)
        types = ops.options_type[rows]
        plain = (types == _PARAMETER_CODE[kind]) | (types == 0)
        if np.count_nonzero(plain) != plain.size:
            one_by_one += rows[~plain].tolist()
            rows = rows[plain]
        parameters = _PARAMETER_ROWS[kind]
        pair_ops.append(np.repeat(rows, parameters.size))
        pair_parameters.append(parameters[None, :].repeat(rows.size, axis=0).ravel())
    if pair_ops:
        _fill_columns(subgraph, words, np.concatenate(pair_ops), np.concatenate(pair_parameters))
    if one_by_one:
        params = ffi.from_buffer("rl_op_params[]", words)
        for j in sorted(one_by_one):
            try:
                PARAMETER_FILLERS[names[j]](params[j], subgraph.operators[j].builtin_options)
            except InterpreterError as e:
                raise OptionsRefused(j, str(e)) from None
    return words


def _fill_columns(subgraph: SubGraphView, words: np.ndarray, op: np.ndarray, parameter: np.ndarray) -> None:
    """Writes parameter `parameter[k]` of op `op[k]`, for every k, read from the op's options table."""
    subgraph.columns()
    slot = PARAMETER_SLOT[parameter]
    row = subgraph.options_rows[op]
    # As `_get`: no options table, the op's default; a table without the field, the schema's default.
    values = np.where((row >= 0) & (slot >= 0), PARAMETER_SCHEMA_DEFAULT[parameter], PARAMETER_DEFAULT[parameter])
    if subgraph.options_matrix is not None:
        positions, offsets = subgraph.options_matrix
        table = np.maximum(row, 0)
        offset = np.where((row >= 0) & (slot >= 0), offsets[table, np.maximum(slot, 0)], 0)
        at = positions[table] + offset
        field_type = np.where(offset != 0, PARAMETER_TYPE[parameter], -1)
        for code in np.flatnonzero(np.bincount(field_type + 1, minlength=1)[1:]).tolist():
            ftype = _FIELD_TYPES[code]
            read = np.flatnonzero(field_type == code)
            got = subgraph.model.fb.take(ftype, at[read], f"{subgraph.where}.operators.builtin_options")
            values[read] = got != 0 if ftype == "bool" else got
    word = PARAMETER_WORD[parameter]
    check = word < 0
    if np.count_nonzero(values[check]):
        raise OptionsRefused(int(op[check][values[check] != 0].min()), "shuffled weights are not supported")
    is_float = PARAMETER_FLOAT[parameter]
    ints = ~is_float & ~check
    words[op[ints], word[ints]] = values[ints]
    words.view(np.float32)[op[is_float], word[is_float]] = values[is_float]


def unsupported_ops(model: ModelView) -> str:
    """Every op of every subgraph that librillet has no kernel for, as one line; empty when none."""
    found: dict[str, dict[int, list[int]]] = {}
    known: dict[int, bool] = {}
    for s, sg in enumerate(model.subgraphs):
        opcode_index = sg.operator_columns().opcode_index
        for index, (k, code) in enumerate(zip(opcode_index.tolist(), model.opcode_codes[opcode_index].tolist())):
            if code not in known:
                known[code] = code != CUSTOM_CODE and bool(lib.rl_op_is_known(code))
            if not known[code]:
                found.setdefault(model.opcode_name(k), {}).setdefault(s, []).append(index)
    parts = []
    for name, by_subgraph in found.items():
        places = [f"ops {', '.join(map(str, ix))}" if len(ix) > 1 else f"op {ix[0]}" for ix in by_subgraph.values()]
        if len(model.subgraphs) > 1:
            places = [f"subgraph {s} {p}" for s, p in zip(by_subgraph, places)]
        parts.append(f"{name} ({'; '.join(places)})")
    return ", ".join(parts)


def _int32_pointer(values: np.ndarray, keep: list[Any]) -> Any:
    """A C int32_t* to a copy of `values` (never empty), kept alive in `keep`."""
    array = np.ascontiguousarray(values, dtype=np.int32) if values.size else np.zeros(1, dtype=np.int32)
    keep.append(array)
    return ffi.from_buffer("int32_t[]", array)


class _PlanMemory:
    """The owner of a numpy view of a plan's memory (an arena slot, or a constant in the model's bytes):
    it keeps the plan, and so the bytes it points into (an mmap'd file), alive while the view lives."""

    def __init__(self, plan: NativePlan, pointer: Any, nbytes: int, readonly: bool) -> None:
        self.plan = plan
        self.__array_interface__ = {"data": (int(ffi.cast("uintptr_t", pointer)), readonly), "shape": (nbytes,),
                                    "typestr": "|u1", "version": 3}


class NativePlan:
    """One subgraph as a librillet plan. Holds the model's bytes alive: constants are used in place."""

    def __init__(self, model: ModelView, subgraph: int = 0, num_threads: int = 1,
                 preserve_all_tensors: bool = False, program: Program | None = None) -> None:
        self.model = model
        self.program = program  # kept alive while the plan is: its variables and sibling subgraphs
        self.subgraph = model.subgraphs[subgraph]
        tensors, ops = self.subgraph.columns()  # checks the subgraph as `validate` does
        model.check_calls()
        out = ffi.new("rl_plan **")
        status = lib.rl_plan_create(out, max(1, int(num_threads or 1)))
        if out[0] == ffi.NULL:
            raise MemoryError("librillet could not create a plan")
        self._plan = ffi.gc(out[0], lib.rl_plan_destroy)
        if status != lib.RL_OK:  # e.g. RILLET_ISA names a path this CPU lacks
            raise RuntimeError(ffi.string(lib.rl_plan_message(self._plan)).decode(errors="replace"))
        if program is not None:
            self._check(lib.rl_program_add_plan(program.pointer, subgraph, self._plan))
        self._bytes = ffi.from_buffer("uint8_t[]", model.data)  # the constants point into it
        self._keep: list[Any] = []  # arrays the plan's inputs were passed from
        lib.rl_plan_set_preserve_all_tensors(self._plan, int(bool(preserve_all_tensors)))
        names = {k: model.opcode_name(k) for k in set(ops.opcode_index.tolist())}
        self.op_names = [names[k] for k in ops.opcode_index.tolist()]
        self._add_tensors(tensors)
        self._add_ops(ops)
        sg = self.subgraph
        ins, outs = list(sg.inputs), list(sg.outputs)
        self._check(lib.rl_plan_set_io(self._plan, len(ins), ffi.new("int32_t[]", ins or [0]), len(outs),
                                       ffi.new("int32_t[]", outs or [0])))
        self._op_seconds = ffi.new("double[]", max(1, len(self.op_names)))

    def _add_tensors(self, t: TensorColumns) -> None:
        model, plan, keep = self.model, self._plan, self._keep
        shapes = _int32_pointer(t.shape.values, keep)
        buffer = t.buffer
        size = model.buffer_size[buffer]
        constant = (buffer > 0) & model.buffer_present[buffer] & (size > 0) & ~t.is_variable
        data_at = np.where(constant, model.buffer_start[buffer], -1).tolist()
        data_bytes = np.where(constant, size, 0).tolist()
        add, base, null = lib.rl_plan_add_tensor, self._bytes, ffi.NULL
        for i, (dtype, rank, shape_at, at, nbytes, variable) in enumerate(zip(
                t.type.tolist(), t.shape.counts.tolist(), t.shape.offsets.tolist(), data_at, data_bytes,
                t.is_variable.tolist())):
            status = add(plan, dtype, rank, shapes + shape_at, base + at if at >= 0 else null, nbytes, variable)
            if status:
                self._check(status, what=f"tensor {i} {self.subgraph.tensors[i].name!r}")

        if not t.quantized.size:
            return
        scales, zero_points = t.scale_vectors, t.zero_point_vectors
        counts, zero_counts = scales.count.tolist(), zero_points.count.tolist()
        pointers = (self._in_place(scales, "float", 4), self._in_place(zero_points, "int64_t", 8))
        if None not in pointers:  # the file's own vectors, aligned as flatbuffers align them
            scale_at, zero_at = (scales.start // 4).tolist(), (zero_points.start // 8).tolist()
        else:  # a file with unaligned vectors: copies
            (scale_values, scale_offsets), = gather(model.fb, [scales])
            (zero_values, zero_offsets), = gather(model.fb, [zero_points])
            scale_at, zero_at = scale_offsets.tolist(), zero_offsets.tolist()
            pointers = (self._pointer(scale_values, "float"), self._pointer(zero_values, "int64_t"))
        scale_base, zero_base = pointers
        zeros = np.zeros(max(counts, default=1) or 1, dtype=np.int64)
        zeros_base = self._pointer(zeros, "int64_t")
        set_quantization = lib.rl_plan_set_quantization
        for index, count, zero_count, s_at, z_at, axis in zip(
                t.quantized.tolist(), counts, zero_counts, scale_at, zero_at, t.quantized_dimension.tolist()):
            if not count:
                continue
            if zero_count and zero_count < count:
                raise ModelError(f"tensor {index} {self.subgraph.tensors[index].name!r}: quantization has {count} "
                                 f"scales but {zero_count} zero points")
            status = set_quantization(plan, index, count, scale_base + s_at,
                                      zero_base + z_at if zero_count else zeros_base, axis)
            if status:
                self._check(status)

    def _in_place(self, vectors: Vectors, ctype: str, width: int) -> Any:
        """A `ctype *` to the model's bytes when every vector in `vectors` is `width`-aligned there."""
        address = int(ffi.cast("uintptr_t", self._bytes))
        if address % width or np.count_nonzero(vectors.start % width):
            return None
        return ffi.cast(f"{ctype} *", self._bytes)

    def _pointer(self, values: np.ndarray, ctype: str) -> Any:
        array = np.ascontiguousarray(values, dtype=np.float32 if ctype == "float" else np.int64)
        if not array.size:
            array = np.zeros(1, dtype=array.dtype)
        self._keep.append(array)
        return ffi.from_buffer(f"{ctype}[]", array)

    def _add_ops(self, ops: OperatorColumns) -> None:
        listing = unsupported_ops(self.model)
        if listing:
            raise UnsupportedOpsError(f"the model has ops rillet cannot run: {listing}")
        try:
            words = fill_parameters(self.subgraph, self.op_names)
        except OptionsRefused as e:
            raise InterpreterError(self.describe_op(e.op, e.problem)) from None
        self._name_variables(words)
        self._keep.append(words)
        params = ffi.from_buffer("rl_op_params[]", words)
        inputs, outputs = _int32_pointer(ops.inputs.values, self._keep), _int32_pointer(ops.outputs.values, self._keep)
        codes = self.model.opcode_codes[ops.opcode_index].tolist()
        add, plan = lib.rl_plan_add_op, self._plan
        for j, (code, n_in, in_at, n_out, out_at) in enumerate(zip(
                codes, ops.inputs.counts.tolist(), ops.inputs.offsets.tolist(), ops.outputs.counts.tolist(),
                ops.outputs.offsets.tolist())):
            status = add(plan, code, n_in, inputs + in_at, n_out, outputs + out_at, params + j)
            if status:
                self._check(status)
        if lib.rl_plan_check_support(self._plan) != 0:
            raise UnsupportedOpsError("the model has ops rillet has no kernel for at these types: "
                                      + self._typed_support_listing())

    def _name_variables(self, words: np.ndarray) -> None:
        """VAR_HANDLE's parameter is its variable's id in the program, the same in every subgraph."""
        for j, name in enumerate(self.op_names):
            if name != "VAR_HANDLE":
                continue
            if self.program is None:
                raise InterpreterError(self.describe_op(j, "resource variables need the model's program"))
            o = self.subgraph.operators[j].builtin_options
            words[j, 0] = self.program.variable_id(_get(o, "container", "") or "", _get(o, "shared_name", "") or "")

    def _typed_support_listing(self) -> str:
        items = []
        for index, op in enumerate(self.subgraph.operators):
            if lib.rl_plan_op_supported(self._plan, index):
                continue
            first = next((i for i in (op.inputs or []) if i >= 0), None)
            dtype = self.subgraph.tensors[first].type if first is not None else None
            dtype = tensor_type_name(dtype) if dtype is not None else "no input"
            items.append(f"{self.op_names[index]} op {index} on {dtype}")
        return "; ".join(items)

    def describe_op(self, index: int, problem: str) -> str:
        op = self.subgraph.operators[index]
        outs = [o for o in (op.outputs or []) if o >= 0]
        named = f" ({self.subgraph.tensors[outs[0]].name!r})" if outs else ""
        return f"{self.op_names[index]} op {index}{named}: {problem}"

    def _check(self, status: int, what: str = "") -> None:
        if status == 0:
            return
        message = ffi.string(lib.rl_plan_message(self._plan)).decode(errors="replace")
        failed = lib.rl_plan_failed_op(self._plan)
        if failed >= 0:
            text = self.describe_op(failed, message)
        else:
            text = f"{what}: {message}" if what else message
        text = f"{text} [{STATUS_NAMES.get(status, status)}]"
        raise (UnsupportedOpsError if status == 2 else InterpreterError)(text)

    # ---- the plan's life ----

    def set_shape(self, tensor: int, shape: list[int]) -> None:
        shape = [int(d) for d in shape]
        self._check(lib.rl_plan_set_tensor_shape(self._plan, tensor, len(shape), ffi.new("int32_t[]", shape or [0])))

    def prepare(self) -> None:
        self._check(lib.rl_plan_prepare(self._plan))

    def invoke(self) -> None:
        self._check(lib.rl_plan_invoke(self._plan))  # cffi releases the GIL for the call

    def invoke_profiled(self) -> list[float]:
        self._check(lib.rl_plan_invoke_profiled(self._plan, self._op_seconds))
        return [float(self._op_seconds[i]) for i in range(len(self.op_names))]

    # ---- tensors ----

    def shape(self, tensor: int) -> list[int]:
        return [lib.rl_plan_tensor_dim(self._plan, tensor, d) for d in range(lib.rl_plan_tensor_rank(self._plan, tensor))]

    def storage(self, tensor: int) -> int:
        return lib.rl_plan_tensor_storage(self._plan, tensor)

    def view(self, tensor: int, dtype: np.dtype) -> np.ndarray | None:
        """The tensor's bytes as a numpy array (no copy); None when the tensor has no memory."""
        pointer = lib.rl_plan_tensor_data(self._plan, tensor)
        shape = self.shape(tensor)
        if pointer == ffi.NULL:
            return None
        nbytes = lib.rl_plan_tensor_bytes(self._plan, tensor)
        if nbytes == 0:
            return np.empty(shape, dtype)
        readonly = self.storage(tensor) == lib.RL_STORAGE_CONSTANT
        return np.asarray(_PlanMemory(self, pointer, nbytes, readonly)).view(dtype).reshape(shape)

    def op_folded(self, op: int) -> bool:
        return bool(lib.rl_plan_op_is_folded(self._plan, op))

    def memory(self) -> dict[str, int]:
        return {
            "arena_bytes": int(lib.rl_plan_arena_bytes(self._plan)),
            "weight_bytes": int(lib.rl_plan_constant_bytes(self._plan)),
            "folded_bytes": int(lib.rl_plan_folded_bytes(self._plan)),
            "packed_weight_bytes": int(lib.rl_plan_packed_weight_bytes(self._plan)),
            "op_state_bytes": int(lib.rl_plan_op_state_bytes(self._plan)),
        }

    def kernel_path(self) -> str:
        return ffi.string(lib.rl_plan_isa(self._plan)).decode()

    def threads(self) -> int:
        return int(lib.rl_plan_threads(self._plan))
