"""The bridge from a decoded .tflite subgraph to librillet's plan: tensors, typed op parameters, errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rillet.converter.format import ModelFile, Options, tensor_type_name
from rillet.native import STATUS_NAMES, ffi, lib

MAX_DIMS = 8


class InterpreterError(RuntimeError):
    """librillet refused or failed: the message names the op, its index and the problem."""


class UnsupportedOpsError(InterpreterError, ValueError):
    """The model holds ops (or op/dtype pairs) rillet has no kernel for; the message lists every one."""


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
    p.leaky_relu.alpha = _get(o, "alpha", 0.2)


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


# Builtin name -> how its options fill the op's parameter struct (every op rillet runs has an entry).
PARAMETER_FILLERS: dict[str, Callable[[Any, Options | None], None]] = {
    "CONV_2D": _conv, "DEPTHWISE_CONV_2D": _conv, "MAX_POOL_2D": _pool, "AVERAGE_POOL_2D": _pool,
    "FULLY_CONNECTED": _fully_connected, "BATCH_MATMUL": _batch_matmul,
    "ADD": _arithmetic, "SUB": _arithmetic, "MUL": _arithmetic, "DIV": _arithmetic,
    "MEAN": _reducer, "SUM": _reducer, "SOFTMAX": _softmax, "LEAKY_RELU": _leaky_relu,
    "CONCATENATION": _concatenation, "RESHAPE": _reshape, "SQUEEZE": _squeeze,
    "STRIDED_SLICE": _strided_slice, "GATHER": _gather, "PACK": _pack, "SHAPE": _shape,
    "RESIZE_BILINEAR": _resize, "RESIZE_NEAREST_NEIGHBOR": _resize,
}


def unsupported_ops(model: ModelFile) -> str:
    """Every op of every subgraph that librillet has no kernel for, as one line; empty when none."""
    found: dict[str, dict[int, list[int]]] = {}
    for s, sg in enumerate(model.subgraphs):
        for index, op in enumerate(sg.operators):
            code = model.operator_codes[op.opcode_index]
            if code.is_custom or not lib.rl_op_is_known(code.code):
                found.setdefault(code.name, {}).setdefault(s, []).append(index)
    parts = []
    for name, by_subgraph in found.items():
        places = [f"ops {', '.join(map(str, ix))}" if len(ix) > 1 else f"op {ix[0]}" for ix in by_subgraph.values()]
        if len(model.subgraphs) > 1:
            places = [f"subgraph {s} {p}" for s, p in zip(by_subgraph, places)]
        parts.append(f"{name} ({'; '.join(places)})")
    return ", ".join(parts)


class NativePlan:
    """One subgraph as a librillet plan. Holds the model (whose bytes the constants point into) alive."""

    def __init__(self, model: ModelFile, subgraph: int = 0, num_threads: int = 1,
                 preserve_all_tensors: bool = False) -> None:
        self.model = model
        self.subgraph = model.subgraphs[subgraph]
        out = ffi.new("rl_plan **")
        if lib.rl_plan_create(out, max(1, int(num_threads or 1))) != 0:
            raise MemoryError("librillet could not create a plan")
        self._plan = ffi.gc(out[0], lib.rl_plan_destroy)
        self._keep: list[Any] = []  # cdata views of the file's constant bytes
        lib.rl_plan_set_preserve_all_tensors(self._plan, int(bool(preserve_all_tensors)))
        self.op_names = [model.op_name(op) for op in self.subgraph.operators]
        self._add_tensors()
        self._add_ops()
        sg = self.subgraph
        ins, outs = list(sg.inputs), list(sg.outputs)
        self._check(lib.rl_plan_set_io(self._plan, len(ins), ffi.new("int32_t[]", ins or [0]), len(outs),
                                       ffi.new("int32_t[]", outs or [0])))
        self._op_seconds = ffi.new("double[]", max(1, len(sg.operators)))

    def _add_tensors(self) -> None:
        for index, t in enumerate(self.subgraph.tensors):
            shape = list(t.shape or [])
            data = None
            raw = self.model.buffers[t.buffer].data if 0 < t.buffer < len(self.model.buffers) else None
            if raw is not None and raw.size and not t.is_variable:
                data = ffi.from_buffer(raw)
                self._keep.append(data)
            self._check(lib.rl_plan_add_tensor(
                self._plan, t.type, len(shape), ffi.new("int32_t[]", shape or [0]),
                data if data is not None else ffi.NULL, raw.size if data is not None else 0, int(t.is_variable)),
                what=f"tensor {index} {t.name!r}")
            q = t.quantization
            if q is not None and q.scale:
                zero_points = list(q.zero_point or [0] * len(q.scale))
                self._check(lib.rl_plan_set_quantization(
                    self._plan, index, len(q.scale), ffi.new("float[]", list(q.scale)),
                    ffi.new("int64_t[]", zero_points), q.quantized_dimension))

    def _add_ops(self) -> None:
        listing = unsupported_ops(self.model)
        if listing:
            raise UnsupportedOpsError(f"the model has ops rillet cannot run: {listing}")
        for index, (op, name) in enumerate(zip(self.subgraph.operators, self.op_names)):
            code = self.model.operator_codes[op.opcode_index].code
            filler = PARAMETER_FILLERS.get(name, _none)
            params = ffi.new("rl_op_params *")
            try:
                filler(params, op.builtin_options)
            except InterpreterError as e:
                raise InterpreterError(self.describe_op(index, str(e))) from None
            ins, outs = list(op.inputs or []), list(op.outputs or [])
            self._check(lib.rl_plan_add_op(self._plan, code, len(ins), ffi.new("int32_t[]", ins or [0]),
                                           len(outs), ffi.new("int32_t[]", outs or [0]), params))
        if lib.rl_plan_check_support(self._plan) != 0:
            raise UnsupportedOpsError("the model has ops rillet has no kernel for at these types: "
                                      + self._typed_support_listing())

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
        array = np.frombuffer(ffi.buffer(pointer, nbytes), dtype=dtype).reshape(shape)
        if self.storage(tensor) == lib.RL_STORAGE_CONSTANT:
            array.flags.writeable = False
        return array

    def op_folded(self, op: int) -> bool:
        return bool(lib.rl_plan_op_is_folded(self._plan, op))

    def memory(self) -> dict[str, int]:
        return {
            "arena_bytes": int(lib.rl_plan_arena_bytes(self._plan)),
            "weight_bytes": int(lib.rl_plan_constant_bytes(self._plan)),
            "folded_bytes": int(lib.rl_plan_folded_bytes(self._plan)),
        }
