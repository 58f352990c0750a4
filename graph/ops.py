"""The ops: each one registered with its shape rule, numpy reference, JAX lowering and TFLite mapping,
and a builder function that adds it to a graph."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .core import Graph, Tensor, Variable, canonical_dtype, get_default_graph
from .registry import REQUIRED, OpDef, register

# ----------------------------------------------------------------------------------------------- helpers


def _jnp():
    import jax.numpy as jnp
    return jnp


def _lax():
    from jax import lax
    return lax


def _tfl(builtin: str, options: str | None = None, option_map: dict | None = None,
         attr_inputs: Sequence[str] = (), notes: str = "") -> dict:
    return {"builtin": builtin, "options": options, "option_map": dict(option_map or {}),
            "attr_inputs": list(attr_inputs), "notes": notes}


def as_tensor(x: Any, dtype: Any = None, graph: Graph | None = None) -> Tensor:
    """A Tensor for x: itself, a Variable's value, or a new constant."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, Variable):
        return x.value
    return constant(x, dtype=dtype, graph=graph)


def _apply(op: str, inputs: Sequence[Tensor], attrs: dict | None = None, name: str | None = None,
           graph: Graph | None = None):
    graph = inputs[0].graph if inputs else (graph or get_default_graph())
    node = graph.add_node(op, list(inputs), attrs, name)
    if len(node.outputs) == 1:
        return node.outputs[0]
    return node.outputs if node.outputs else node


def _operands(*xs: Any) -> list[Tensor]:
    """Tensors for a mixed list of tensors and python/numpy values; values take the tensors' dtype."""
    ref = next((x for x in xs if isinstance(x, (Tensor, Variable))), None)
    if ref is None:
        return [as_tensor(x) for x in xs]
    graph, dtype = ref.graph, ref.dtype
    return [as_tensor(x, dtype=dtype, graph=graph) for x in xs]


def broadcast_shapes(a: tuple, b: tuple) -> tuple:
    """The shape numpy broadcasting gives `a` and `b` (None, a dynamic dimension, broadcasts with anything).
    ValueError naming both shapes when they do not broadcast."""
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for da, db in zip(a, b):
        if da == 1:
            out.append(db)
        elif db == 1:
            out.append(da)
        elif da is None or db is None:
            out.append(da if db is None else db)
        elif da == db:
            out.append(da)
        else:
            raise ValueError(f"shapes {a} and {b} do not broadcast")
    return tuple(out)


def conv_geometry(size: int | None, kernel: int, stride: int, dilation: int, padding: str):
    """(output size, pad before, pad after) along one spatial axis, with TFLite's SAME offsets."""
    if size is None:
        return None, None, None
    effective = (kernel - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + effective - size, 0)
        return out, total // 2, total - total // 2
    if padding == "VALID":
        out = (size - effective) // stride + 1
        if out <= 0:
            raise ValueError(f"window {effective} is larger than input {size}")
        return out, 0, 0
    raise ValueError(f'padding must be "SAME" or "VALID", got {padding!r}')


def _axis(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} out of range for rank {rank}")
    return axis % rank


def _same_as_first(attrs, specs):
    return [specs[0]]


def _float_same(attrs, specs):
    _shape, dtype = specs[0]
    if not np.issubdtype(np.dtype(dtype), np.floating):
        raise ValueError(f"expects a float tensor, got {dtype}")
    return [specs[0]]


# ------------------------------------------------------------------------------------- graph structure


def _placeholder_np(attrs):
    raise ValueError(f'no value fed for input "{attrs["name"]}"')


register(OpDef("PLACEHOLDER", attrs={"name": REQUIRED, "shape": REQUIRED, "dtype": "float32"},
               infer=lambda a, s: [(a["shape"], a["dtype"])], numpy=_placeholder_np))
register(OpDef("CONST", attrs={"value": REQUIRED},
               infer=lambda a, s: [(a["value"].shape, a["value"].dtype.name)],
               numpy=lambda a: a["value"], jax=lambda a: _jnp().asarray(a["value"])))
register(OpDef("NO_OP", infer=lambda a, s: [], numpy=lambda a: (), jax=lambda a: ()))


def placeholder(shape: Sequence[int | None], dtype: Any = "float32", name: str = "input",
                graph: Graph | None = None) -> Tensor:
    """A named graph input; None dimensions (usually the batch) are set by the feed."""
    graph = graph or get_default_graph()
    if name in graph.placeholders:
        raise ValueError(f'an input named "{name}" already exists')
    shape = tuple(None if d is None or d == -1 else int(d) for d in shape)
    t = _apply("PLACEHOLDER", [], {"name": name, "shape": shape, "dtype": canonical_dtype(dtype)},
               name=name, graph=graph)
    graph.placeholders[name] = t
    return t


def constant(value: Any, dtype: Any = None, name: str = "const", graph: Graph | None = None) -> Tensor:
    """CONST: a constant tensor holding `value` (converted to `dtype` when given; Python floats become
    float32, as in TensorFlow), in `graph` or the default graph."""
    given = value
    value = np.asarray(value, dtype=dtype)
    if dtype is None and value.dtype == np.float64 and not isinstance(given, (np.ndarray, np.generic)):
        value = value.astype(np.float32)  # python floats make float32 constants, as in TensorFlow
    return _apply("CONST", [], {"value": value}, name=name, graph=graph)


register(OpDef("IDENTITY", infer=_same_as_first, numpy=lambda a, x: x, jax=lambda a, x: x,
               tflite=None))


def identity(x, name: str = "identity") -> Tensor:
    """A new tensor equal to x. Not a TFLite builtin: the converter aliases it to its input."""
    return _apply("IDENTITY", [as_tensor(x)], name=name)


def group(*ops: Any, name: str = "group") -> Any:
    """A NO_OP that runs after all of `ops` (Nodes or Tensors): fetch it to run them all."""
    nodes = [o.node if isinstance(o, Tensor) else o for o in ops]
    graph = nodes[0].graph if nodes else get_default_graph()
    return graph.add_node("NO_OP", [], {}, name=name, control_inputs=nodes)


# ------------------------------------------------------------------------------------------- variables


def _read_np(attrs, handle, state):
    return state.store[handle]


def _assign_np(attrs, handle, value, state):
    current = state.store[handle]
    if value.shape != current.shape:
        raise ValueError(f'assigning shape {value.shape} to variable "{handle}" of shape {current.shape}')
    state.store[handle] = np.array(value, dtype=current.dtype)
    return ()


def _assign_infer(attrs, specs):
    if specs[0][1] != "resource":
        raise ValueError("first input must be a variable handle")
    return []


register(OpDef("VAR_HANDLE", attrs={"shared_name": REQUIRED, "shape": REQUIRED, "dtype": REQUIRED},
               infer=lambda a, s: [((), "resource")], numpy=lambda a: a["shared_name"],
               tflite=_tfl("VAR_HANDLE", "VarHandleOptions", {"shared_name": "shared_name"},
                           notes="shape/dtype are the variable's; the converter initialises it in CALL_ONCE")))
register(OpDef("READ_VARIABLE", attrs={"shape": REQUIRED, "dtype": REQUIRED},
               infer=lambda a, s: [(a["shape"], a["dtype"])], numpy=_read_np, stateful=True,
               tflite=_tfl("READ_VARIABLE")))
register(OpDef("ASSIGN_VARIABLE", infer=_assign_infer, numpy=_assign_np, stateful=True,
               tflite=_tfl("ASSIGN_VARIABLE")))


def var_handle(name: str, shape: tuple, dtype: str, graph: Graph) -> Tensor:
    """A VAR_HANDLE: the handle of resource variable `name` (of `shape` and `dtype`) in `graph`, as TFLite
    models hold variables. `Variable` makes one; use this only to lower variables by hand."""
    return _apply("VAR_HANDLE", [], {"shared_name": name, "shape": tuple(shape), "dtype": dtype},
                  name=name, graph=graph)


def read_variable(handle: Tensor, shape: tuple, dtype: str) -> Tensor:
    """READ_VARIABLE: the current value of the variable behind `handle`, of `shape` and `dtype`."""
    return _apply("READ_VARIABLE", [handle], {"shape": tuple(shape), "dtype": dtype},
                  name=handle.node.name + "/read")


def assign_variable(handle: Tensor, value: Any):
    """ASSIGN_VARIABLE: stores `value` into the variable behind `handle` when the node runs (fetch it, or
    `group` it with the step). ValueError when the value's dtype differs from the variable's or its shape does
    not broadcast to the variable's."""
    var = handle.graph.variables[handle.node.attrs["shared_name"]]
    value = as_tensor(value, dtype=var.dtype, graph=handle.graph)
    if value.dtype != var.dtype:
        raise ValueError(f'assign to "{var.name}": value is {value.dtype}, variable is {var.dtype}')
    if broadcast_shapes(value.shape, var.shape) != var.shape or len(value.shape) != len(var.shape):
        raise ValueError(f'assign to "{var.name}": value has shape {value.shape}, variable {var.shape}')
    return _apply("ASSIGN_VARIABLE", [handle, value], name=var.name + "/assign")


# ---------------------------------------------------------------------------------------- elementwise


def _binary_infer(attrs, specs):
    (sa, da), (sb, db) = specs
    if da != db:
        raise ValueError(f"operands have different dtypes {da} and {db}")
    return [(broadcast_shapes(sa, sb), da)]


def _compare_infer(attrs, specs):
    return [(_binary_infer(attrs, specs)[0][0], "bool")]


def _ignore_attrs(fn):
    def apply(attrs, *xs):
        return fn(*xs)
    return apply


def _reducer(fn):
    def apply(attrs, x):
        return fn(x, axis=tuple(attrs["axes"]), keepdims=attrs["keepdims"])
    return apply


def _jax_reducer(name):
    def apply(attrs, x):
        return getattr(_jnp(), name)(x, axis=tuple(attrs["axes"]), keepdims=attrs["keepdims"])
    return apply


_BINARY = {
    "ADD": (np.add, lambda a, b: a + b, "AddOptions"),
    "SUB": (np.subtract, lambda a, b: a - b, "SubOptions"),
    "MUL": (np.multiply, lambda a, b: a * b, "MulOptions"),
    "DIV": (np.divide, lambda a, b: a / b, "DivOptions"),
    "SQUARED_DIFFERENCE": (lambda a, b: np.square(a - b), lambda a, b: (a - b) ** 2,
                           "SquaredDifferenceOptions"),
}
for _name, (_np_fn, _jax_fn, _options) in _BINARY.items():
    register(OpDef(_name, infer=_binary_infer,
                   numpy=_ignore_attrs(_np_fn), jax=_ignore_attrs(_jax_fn),
                   tflite=_tfl(_name, _options, notes="fused_activation_function NONE (the converter fuses)")))
register(OpDef("GREATER", infer=_compare_infer, numpy=lambda a, x, y: np.greater(x, y),
               jax=lambda a, x, y: x > y, tflite=_tfl("GREATER", "GreaterOptions")))


def add(a, b, name: str | None = None) -> Tensor:
    """ADD: a + b, element-wise. `a` and `b` are tensors or Python / numpy values (a value takes the tensor's
    dtype); they broadcast as numpy's do."""
    return _apply("ADD", _operands(a, b), name=name)


def sub(a, b, name: str | None = None) -> Tensor:
    """SUB: a - b, element-wise. `a` and `b` are tensors or Python / numpy values (a value takes the tensor's
    dtype); they broadcast as numpy's do."""
    return _apply("SUB", _operands(a, b), name=name)


def mul(a, b, name: str | None = None) -> Tensor:
    """MUL: a * b, element-wise. `a` and `b` are tensors or Python / numpy values (a value takes the tensor's
    dtype); they broadcast as numpy's do."""
    return _apply("MUL", _operands(a, b), name=name)


def div(a, b, name: str | None = None) -> Tensor:
    """DIV: a / b, element-wise. `a` and `b` are tensors or Python / numpy values (a value takes the tensor's
    dtype); they broadcast as numpy's do."""
    return _apply("DIV", _operands(a, b), name=name)


def squared_difference(a, b, name: str | None = None) -> Tensor:
    """SQUARED_DIFFERENCE: (a - b)^2, element-wise. `a` and `b` are tensors or Python / numpy values (a value
    takes the tensor's dtype); they broadcast as numpy's do."""
    return _apply("SQUARED_DIFFERENCE", _operands(a, b), name=name)


def greater(a, b, name: str | None = None) -> Tensor:
    """GREATER: a > b, element-wise, as a bool tensor. `a` and `b` are tensors or Python / numpy values (a
    value takes the tensor's dtype); they broadcast as numpy's do."""
    return _apply("GREATER", _operands(a, b), name=name)


def _sigmoid_np(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def _softmax_np(a, x):
    z = a["beta"] * x
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _log_softmax_np(a, x):
    z = x - x.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def _rsqrt_np(a, x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / np.sqrt(x)


def _log_np(a, x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x)


_UNARY = {
    # name: (numpy, jax, attrs, tflite options, option_map)
    "RSQRT": (_rsqrt_np, lambda a, x: _lax().rsqrt(x), {}, None, None),
    "SQRT": (lambda a, x: np.sqrt(x), lambda a, x: _jnp().sqrt(x), {}, None, None),
    "EXP": (lambda a, x: np.exp(x), lambda a, x: _jnp().exp(x), {}, "ExpOptions", None),
    "LOG": (_log_np, lambda a, x: _jnp().log(x), {}, None, None),
    "NEG": (lambda a, x: -x, lambda a, x: -x, {}, "NegOptions", None),
    "RELU": (lambda a, x: np.maximum(x, 0), lambda a, x: _jnp().maximum(x, 0), {}, None, None),
    "RELU6": (lambda a, x: np.minimum(np.maximum(x, 0), 6), lambda a, x: _jnp().clip(x, 0, 6), {}, None, None),
    "LEAKY_RELU": (lambda a, x: np.where(x > 0, x, a["alpha"] * x),
                   lambda a, x: _jnp().where(x > 0, x, a["alpha"] * x), {"alpha": 0.2},
                   "LeakyReluOptions", {"alpha": "alpha"}),
    "LOGISTIC": (lambda a, x: _sigmoid_np(x), lambda a, x: 1 / (1 + _jnp().exp(-x)), {}, None, None),
    "TANH": (lambda a, x: np.tanh(x), lambda a, x: _jnp().tanh(x), {}, None, None),
    "HARD_SWISH": (lambda a, x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6,
                   lambda a, x: x * _jnp().clip(x + 3, 0, 6) / 6, {}, "HardSwishOptions", None),
    "SOFTMAX": (_softmax_np, lambda a, x: __import__("jax").nn.softmax(a["beta"] * x, axis=-1),
                {"beta": 1.0}, "SoftmaxOptions", {"beta": "beta"}),
    "LOG_SOFTMAX": (_log_softmax_np, lambda a, x: __import__("jax").nn.log_softmax(x, axis=-1), {},
                    "LogSoftmaxOptions", None),
}
for _name, (_np_fn, _jax_fn, _attrs, _options, _map) in _UNARY.items():
    register(OpDef(_name, infer=_float_same, numpy=_np_fn, jax=_jax_fn, attrs=_attrs,
                   tflite=_tfl(_name, _options, _map)))


def _unary_builder(op: str):
    def build(x, name: str | None = None, **attrs) -> Tensor:
        return _apply(op, [as_tensor(x)], attrs, name=name)
    build.__name__ = op.lower()
    build.__doc__ = f"The {op} op, elementwise."
    return build


rsqrt = _unary_builder("RSQRT")
exp = _unary_builder("EXP")
log = _unary_builder("LOG")
neg = _unary_builder("NEG")
relu = _unary_builder("RELU")
relu6 = _unary_builder("RELU6")
leaky_relu = _unary_builder("LEAKY_RELU")
sigmoid = _unary_builder("LOGISTIC")
tanh = _unary_builder("TANH")
hard_swish = _unary_builder("HARD_SWISH")
softmax = _unary_builder("SOFTMAX")
log_softmax = _unary_builder("LOG_SOFTMAX")


sqrt = _unary_builder("SQRT")  # not 1 / RSQRT(x): XNNPACK's rsqrt of 0 is NaN, not inf


def _cast_np(a, x):
    return x.astype(a["to"])


register(OpDef("CAST", attrs={"to": REQUIRED}, infer=lambda a, s: [(s[0][0], a["to"])], numpy=_cast_np,
               jax=lambda a, x: x.astype(a["to"]),
               tflite=_tfl("CAST", "CastOptions", notes="in/out_data_type from the tensors' dtypes")))


def cast(x, dtype: Any, name: str | None = None) -> Tensor:
    """CAST: x converted to `dtype` (a numpy dtype or its name); x itself when it has that dtype already."""
    x = as_tensor(x)
    dtype = canonical_dtype(dtype)
    if x.dtype == dtype:
        return x
    return _apply("CAST", [x], {"to": dtype}, name=name)


# ------------------------------------------------------------------------------------------ reductions


def _reduce_infer(attrs, specs):
    shape, dtype = specs[0]
    axes = sorted({_axis(a, len(shape)) for a in attrs["axes"]})
    if attrs["keepdims"]:
        out = tuple(1 if i in axes else d for i, d in enumerate(shape))
    else:
        out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return [(out, dtype)]


for _name, _np_fn, _jax_name in (("MEAN", np.mean, "mean"), ("SUM", np.sum, "sum")):
    register(OpDef(_name, attrs={"axes": REQUIRED, "keepdims": False}, infer=_reduce_infer,
                   numpy=_reducer(_np_fn), jax=_jax_reducer(_jax_name),
                   tflite=_tfl(_name, "ReducerOptions", {"keepdims": "keep_dims"}, ["axes"])))


def _reduce(op, x, axes, keepdims, name):
    x = as_tensor(x)
    if axes is None:
        axes = range(x.rank)
    elif isinstance(axes, int):
        axes = [axes]
    axes = tuple(sorted({_axis(a, x.rank) for a in axes}))
    return _apply(op, [x], {"axes": axes, "keepdims": bool(keepdims)}, name=name)


def reduce_mean(x, axes=None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """MEAN: the mean of x over `axes` (an int or a sequence; None: every axis), keeping them as size 1 with
    `keepdims`. ValueError for an axis outside x's rank."""
    return _reduce("MEAN", x, axes, keepdims, name)


def reduce_sum(x, axes=None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """SUM: the sum of x over `axes` (an int or a sequence; None: every axis), keeping them as size 1 with
    `keepdims`. ValueError for an axis outside x's rank."""
    return _reduce("SUM", x, axes, keepdims, name)


# ------------------------------------------------------------------------------------------- matmuls


def _fc_infer(attrs, specs):
    (xs, xd), (ws, _wd) = specs[:2]
    if len(xs) != 2 or len(ws) != 2:
        raise ValueError(f"input must be [batch, in] and weights [out, in], got {xs} and {ws}")
    if None not in (xs[1], ws[1]) and xs[1] != ws[1]:
        raise ValueError(f"input has {xs[1]} features, weights expect {ws[1]}")
    if len(specs) == 3 and specs[2][0] != (ws[0],):
        raise ValueError(f"bias has shape {specs[2][0]}, expected ({ws[0]},)")
    return [((xs[0], ws[0]), xd)]


def _fc_np(a, x, w, b=None):
    y = x @ w.T
    return y if b is None else y + b


def _fc_jax(a, x, w, b=None):
    y = _jnp().matmul(x, w.T, precision="highest")
    return y if b is None else y + b


register(OpDef("FULLY_CONNECTED", infer=_fc_infer, numpy=_fc_np, jax=_fc_jax,
               tflite=_tfl("FULLY_CONNECTED", "FullyConnectedOptions",
                           notes="weights [out, in] (DEFAULT format), keep_num_dims false; bias optional (-1)")))


def fully_connected(x, weights, bias=None, name: str | None = None) -> Tensor:
    """x [batch, in] @ weights[out, in]^T + bias[out]."""
    inputs = _operands(x, weights) + ([as_tensor(bias)] if bias is not None else [])
    return _apply("FULLY_CONNECTED", inputs, name=name)


def _bmm_infer(attrs, specs):
    (xs, xd), (ys, yd) = specs
    if len(xs) < 2 or len(ys) < 2:
        raise ValueError(f"operands need rank >= 2, got {xs} and {ys}")
    if xd != yd:
        raise ValueError(f"operands have different dtypes {xd} and {yd}")
    m, kx = (xs[-1], xs[-2]) if attrs["adj_x"] else (xs[-2], xs[-1])
    ky, n = (ys[-1], ys[-2]) if attrs["adj_y"] else (ys[-2], ys[-1])
    if None not in (kx, ky) and kx != ky:
        raise ValueError(f"inner dimensions differ: {xs} and {ys}")
    return [(broadcast_shapes(xs[:-2], ys[:-2]) + (m, n), xd)]


def _bmm_np(a, x, y):
    if a["adj_x"]:
        x = np.swapaxes(x, -1, -2)
    if a["adj_y"]:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


def _bmm_jax(a, x, y):
    jnp = _jnp()
    if a["adj_x"]:
        x = jnp.swapaxes(x, -1, -2)
    if a["adj_y"]:
        y = jnp.swapaxes(y, -1, -2)
    return jnp.matmul(x, y, precision="highest")


register(OpDef("BATCH_MATMUL", attrs={"adj_x": False, "adj_y": False}, infer=_bmm_infer, numpy=_bmm_np,
               jax=_bmm_jax, tflite=_tfl("BATCH_MATMUL", "BatchMatMulOptions",
                                         {"adj_x": "adj_x", "adj_y": "adj_y"})))


def batch_matmul(x, y, adj_x: bool = False, adj_y: bool = False, name: str | None = None) -> Tensor:
    """BATCH_MATMUL: x @ y over the last two axes, the leading ones broadcast; `adj_x` / `adj_y` transpose the
    last two axes of x / y first. ValueError when the inner dimensions differ."""
    return _apply("BATCH_MATMUL", _operands(x, y), {"adj_x": adj_x, "adj_y": adj_y}, name=name)


# -------------------------------------------------------------------------------------- convolutions

_CONV_ATTRS = {"padding": "VALID", "stride_h": 1, "stride_w": 1, "dilation_h": 1, "dilation_w": 1}
_CONV_OPTION_MAP = {"padding": "padding", "stride_h": "stride_h", "stride_w": "stride_w",
                    "dilation_h": "dilation_h_factor", "dilation_w": "dilation_w_factor"}


def conv_windows(attrs: dict, in_h: int | None, in_w: int | None, kh: int, kw: int):
    """((out_h, pad_top, pad_bottom), (out_w, pad_left, pad_right)) for a conv or pool node's attrs."""
    return (conv_geometry(in_h, kh, attrs["stride_h"], attrs.get("dilation_h", 1), attrs["padding"]),
            conv_geometry(in_w, kw, attrs["stride_w"], attrs.get("dilation_w", 1), attrs["padding"]))


def _conv_infer(attrs, specs, depthwise=False):
    (xs, xd), (fs, fd) = specs[:2]
    if len(xs) != 4 or len(fs) != 4:
        raise ValueError(f"input must be NHWC and filter rank 4, got {xs} and {fs}")
    if xd != fd:
        raise ValueError(f"input is {xd}, filter is {fd}")
    if depthwise:
        if fs[0] != 1:
            raise ValueError(f"depthwise filter must be [1, kh, kw, channels*multiplier], got {fs}")
        out_c = fs[3]
        if None not in (xs[3], out_c) and xs[3] * attrs["depth_multiplier"] != out_c:
            raise ValueError(f"input has {xs[3]} channels, filter has {out_c} = channels * "
                             f"depth_multiplier {attrs['depth_multiplier']} expected")
    else:
        out_c = fs[0]
        if None not in (xs[3], fs[3]) and xs[3] != fs[3]:
            raise ValueError(f"input has {xs[3]} channels, filter expects {fs[3]}")
    if len(specs) == 3 and specs[2][0] != (out_c,):
        raise ValueError(f"bias has shape {specs[2][0]}, expected ({out_c},)")
    (oh, _, _), (ow, _, _) = conv_windows(attrs, xs[1], xs[2], fs[1], fs[2])
    return [((xs[0], oh, ow, out_c), xd)]


def _windows_np(attrs, x, kh, kw, pad_value=0.0):
    """Yield (i, j, x window slice [N, OH, OW, C]) for every filter tap, over the padded input."""
    (oh, pt, pb), (ow, pl, pr) = conv_windows(attrs, x.shape[1], x.shape[2], kh, kw)
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=pad_value)
    sh, sw = attrs["stride_h"], attrs["stride_w"]
    dh, dw = attrs.get("dilation_h", 1), attrs.get("dilation_w", 1)
    for i in range(kh):
        for j in range(kw):
            yield i, j, xp[:, i * dh: i * dh + (oh - 1) * sh + 1: sh, j * dw: j * dw + (ow - 1) * sw + 1: sw, :]


def _conv_np(a, x, f, b=None):
    out = 0
    for i, j, xs in _windows_np(a, x, f.shape[1], f.shape[2]):
        out = out + xs @ f[:, i, j, :].T
    return out if b is None else out + b


def _depthwise_np(a, x, f, b=None):
    out = 0
    for i, j, xs in _windows_np(a, x, f.shape[1], f.shape[2]):
        out = out + np.repeat(xs, a["depth_multiplier"], axis=-1) * f[0, i, j, :]
    return out if b is None else out + b


def _conv_jax(a, x, f, b=None, depthwise=False):
    lax = _lax()
    (_, pt, pb), (_, pl, pr) = conv_windows(a, x.shape[1], x.shape[2], f.shape[1], f.shape[2])
    common = {"window_strides": (a["stride_h"], a["stride_w"]), "padding": [(pt, pb), (pl, pr)],
                  "rhs_dilation": (a["dilation_h"], a["dilation_w"]), "precision": lax.Precision.HIGHEST}
    if depthwise:
        y = lax.conv_general_dilated(x, f.reshape(f.shape[1], f.shape[2], 1, f.shape[3]),
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                     feature_group_count=x.shape[3], **common)
    else:
        y = lax.conv_general_dilated(x, f, dimension_numbers=("NHWC", "OHWI", "NHWC"), **common)
    return y if b is None else y + b


register(OpDef("CONV_2D", attrs=dict(_CONV_ATTRS), infer=_conv_infer, numpy=_conv_np, jax=_conv_jax,
               tflite=_tfl("CONV_2D", "Conv2DOptions", _CONV_OPTION_MAP,
                           notes="filter OHWI; bias optional (-1); fused_activation_function NONE")))
register(OpDef("DEPTHWISE_CONV_2D", attrs={**_CONV_ATTRS, "depth_multiplier": 1},
               infer=lambda a, s: _conv_infer(a, s, depthwise=True), numpy=_depthwise_np,
               jax=lambda a, *xs: _conv_jax(a, *xs, depthwise=True),
               tflite=_tfl("DEPTHWISE_CONV_2D", "DepthwiseConv2DOptions",
                           {**_CONV_OPTION_MAP, "depth_multiplier": "depth_multiplier"},
                           notes="filter [1, kh, kw, channels*multiplier]; bias optional (-1)")))


def _conv_attrs(strides, padding, dilations):
    sh, sw = (strides, strides) if isinstance(strides, int) else strides
    dh, dw = (dilations, dilations) if isinstance(dilations, int) else dilations
    return {"padding": padding.upper(), "stride_h": sh, "stride_w": sw, "dilation_h": dh, "dilation_w": dw}


def conv2d(x, filters, bias=None, strides=1, padding: str = "VALID", dilations=1,
           name: str | None = None) -> Tensor:
    """NHWC convolution with an OHWI filter."""
    inputs = _operands(x, filters) + ([as_tensor(bias)] if bias is not None else [])
    return _apply("CONV_2D", inputs, _conv_attrs(strides, padding, dilations), name=name)


def depthwise_conv2d(x, filters, bias=None, strides=1, padding: str = "VALID", dilations=1,
                     depth_multiplier: int = 1, name: str | None = None) -> Tensor:
    """NHWC depthwise convolution with a [1, kh, kw, channels*multiplier] filter."""
    inputs = _operands(x, filters) + ([as_tensor(bias)] if bias is not None else [])
    attrs = {**_conv_attrs(strides, padding, dilations), "depth_multiplier": depth_multiplier}
    return _apply("DEPTHWISE_CONV_2D", inputs, attrs, name=name)


def _transpose_conv_infer(attrs, specs):
    (ss, sd), (fs, fd), (xs, xd) = specs[:3]
    if ss != (4,) or not np.issubdtype(np.dtype(sd), np.integer):
        raise ValueError(f"output_shape must be an int [4], got {sd} {ss}")
    if len(xs) != 4 or len(fs) != 4 or xd != fd:
        raise ValueError(f"input must be NHWC and the filter [out, kh, kw, in] of its dtype, got {xs} and {fs}")
    if None not in (xs[3], fs[3]) and xs[3] != fs[3]:
        raise ValueError(f"input has {xs[3]} channels, filter expects {fs[3]}")
    shape = tuple(attrs["shape"])
    if len(shape) != 4 or shape[3] != fs[0]:
        raise ValueError(f"output shape {shape} must be 4-D with the filter's {fs[0]} output channels")
    return [(shape, xd)]


def _transpose_conv_np(a, shape, f, x):
    """Each input pixel scattered through the filter: out[y*s - pad + i, x*s - pad + j] += x[y, x] @ f[:, i, j]^T."""
    n, h, w, c = (int(d) for d in shape)
    kh, kw = f.shape[1], f.shape[2]
    (_, pt, _), (_, pl, _) = conv_windows(a, h, w, kh, kw)
    sh, sw = a["stride_h"], a["stride_w"]
    span_h, span_w = (x.shape[1] - 1) * sh + 1, (x.shape[2] - 1) * sw + 1
    buf = np.zeros((n, max(span_h + kh - 1, pt + h), max(span_w + kw - 1, pl + w), c), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            buf[:, i:i + span_h:sh, j:j + span_w:sw, :] += x @ f[:, i, j, :].T
    return buf[:, pt:pt + h, pl:pl + w, :]


def _transpose_conv_jax(a, shape, f, x):
    lax = _lax()
    h, w = int(shape[1]), int(shape[2])
    kh, kw = f.shape[1], f.shape[2]
    (_, pt, _), (_, pl, _) = conv_windows(a, h, w, kh, kw)
    sh, sw = a["stride_h"], a["stride_w"]
    padding = [(kh - 1 - pt, h + pt - (x.shape[1] - 1) * sh - 1), (kw - 1 - pl, w + pl - (x.shape[2] - 1) * sw - 1)]
    return lax.conv_general_dilated(x, f[:, ::-1, ::-1, :], window_strides=(1, 1), padding=padding,
                                    lhs_dilation=(sh, sw), dimension_numbers=("NHWC", "OHWI", "NHWC"),
                                    precision=lax.Precision.HIGHEST)


register(OpDef("TRANSPOSE_CONV", attrs={"padding": "VALID", "stride_h": 1, "stride_w": 1, "shape": REQUIRED},
               infer=_transpose_conv_infer, numpy=_transpose_conv_np, jax=_transpose_conv_jax,
               tflite=_tfl("TRANSPOSE_CONV", "TransposeConvOptions",
                           {"padding": "padding", "stride_h": "stride_h", "stride_w": "stride_w"},
                           notes="inputs (output_shape, filter [out, kh, kw, in], x); `shape` attr is the "
                                 "static output shape; padding as the convolution it transposes")))


def transpose_conv2d(x, filters, output_shape, strides=1, padding: str = "VALID", name: str | None = None) -> Tensor:
    """The transposed (adjoint) NHWC convolution, filters [out_channels, kh, kw, in_channels]. `output_shape`
    is a 4-tuple, or a tensor whose shape the output takes (its SHAPE at run time when a dimension is dynamic,
    as for a convolution's input gradient over a dynamic batch)."""
    x = as_tensor(x)
    if isinstance(output_shape, (Tensor, Variable)):
        like = as_tensor(output_shape)
        static = like.shape
        shape_tensor = shape(like) if None in static else constant(np.array(static, np.int32), graph=x.graph)
    else:
        static = tuple(int(d) for d in output_shape)
        shape_tensor = constant(np.array(static, np.int32), graph=x.graph)
    sh, sw = (strides, strides) if isinstance(strides, int) else strides
    attrs = {"padding": padding.upper(), "stride_h": sh, "stride_w": sw, "shape": static}
    return _apply("TRANSPOSE_CONV", [shape_tensor, as_tensor(filters), x], attrs, name=name)


# ------------------------------------------------------------------------------------------- pooling

_POOL_ATTRS = {"padding": "VALID", "stride_h": 1, "stride_w": 1, "filter_h": REQUIRED, "filter_w": REQUIRED}
_POOL_TFLITE = {"padding": "padding", "stride_h": "stride_h", "stride_w": "stride_w",
                "filter_h": "filter_height", "filter_w": "filter_width"}


def _pool_infer(attrs, specs):
    xs, xd = specs[0]
    if len(xs) != 4:
        raise ValueError(f"input must be NHWC, got {xs}")
    (oh, _, _), (ow, _, _) = conv_windows(attrs, xs[1], xs[2], attrs["filter_h"], attrs["filter_w"])
    return [((xs[0], oh, ow, xs[3]), xd)]


def _max_pool_np(a, x):
    out = None
    for _, _, xs in _windows_np(a, x, a["filter_h"], a["filter_w"], pad_value=-np.inf):
        out = xs if out is None else np.maximum(out, xs)
    return out


def pool_counts(attrs: dict, h: int, w: int) -> np.ndarray:
    """How many real (unpadded) inputs each average-pool window covers, [1, OH, OW, 1]: TFLite divides by it."""
    ones = np.ones((1, h, w, 1))
    return sum(xs for _, _, xs in _windows_np(attrs, ones, attrs["filter_h"], attrs["filter_w"]))


def _avg_pool_np(a, x):
    total = sum(xs for _, _, xs in _windows_np(a, x, a["filter_h"], a["filter_w"]))
    return total / pool_counts(a, x.shape[1], x.shape[2]).astype(x.dtype)


def _pool_jax(a, x, average):
    lax, jnp = _lax(), _jnp()
    (_, pt, pb), (_, pl, pr) = conv_windows(a, x.shape[1], x.shape[2], a["filter_h"], a["filter_w"])
    window = {"window_dimensions": (1, a["filter_h"], a["filter_w"], 1),
                  "window_strides": (1, a["stride_h"], a["stride_w"], 1),
                  "padding": ((0, 0), (pt, pb), (pl, pr), (0, 0))}
    if not average:
        return lax.reduce_window(x, jnp.array(-jnp.inf, x.dtype), lax.max, **window)
    total = lax.reduce_window(x, jnp.array(0, x.dtype), lax.add, **window)
    return total / jnp.asarray(pool_counts(a, x.shape[1], x.shape[2]), x.dtype)


register(OpDef("MAX_POOL_2D", attrs=dict(_POOL_ATTRS), infer=_pool_infer, numpy=_max_pool_np,
               jax=lambda a, x: _pool_jax(a, x, False), tflite=_tfl("MAX_POOL_2D", "Pool2DOptions", _POOL_TFLITE)))
register(OpDef("AVERAGE_POOL_2D", attrs=dict(_POOL_ATTRS), infer=_pool_infer, numpy=_avg_pool_np,
               jax=lambda a, x: _pool_jax(a, x, True),
               tflite=_tfl("AVERAGE_POOL_2D", "Pool2DOptions", _POOL_TFLITE,
                           notes="SAME windows divide by the count of real inputs, as TFLite does")))


def _pool_attrs(pool_size, strides, padding):
    kh, kw = (pool_size, pool_size) if isinstance(pool_size, int) else pool_size
    strides = (kh, kw) if strides is None else strides
    sh, sw = (strides, strides) if isinstance(strides, int) else strides
    return {"padding": padding.upper(), "stride_h": sh, "stride_w": sw, "filter_h": kh, "filter_w": kw}


def max_pool2d(x, pool_size=2, strides=None, padding: str = "VALID", name: str | None = None) -> Tensor:
    """MAX_POOL_2D over an NHWC x: the maximum of each `pool_size` window (an int or (h, w)), moved by
    `strides` (default: pool_size), `padding` "VALID" or "SAME" (TFLite's offsets)."""
    return _apply("MAX_POOL_2D", [as_tensor(x)], _pool_attrs(pool_size, strides, padding), name=name)


def avg_pool2d(x, pool_size=2, strides=None, padding: str = "VALID", name: str | None = None) -> Tensor:
    """AVERAGE_POOL_2D over an NHWC x: the mean of each `pool_size` window (an int or (h, w)), moved by
    `strides` (default: pool_size), `padding` "VALID" or "SAME"; a SAME window divides by the real inputs it
    covers, as TFLite's does."""
    return _apply("AVERAGE_POOL_2D", [as_tensor(x)], _pool_attrs(pool_size, strides, padding), name=name)


# --------------------------------------------------------------------------------------------- shapes


def _concat_infer(attrs, specs):
    rank = len(specs[0][0])
    axis = _axis(attrs["axis"], rank)
    dtype = specs[0][1]
    out = list(specs[0][0])
    for shape, d in specs[1:]:
        if d != dtype or len(shape) != rank:
            raise ValueError(f"inputs differ in dtype or rank: {specs}")
        for i, dim in enumerate(shape):
            if i == axis:
                out[i] = None if None in (out[i], dim) else out[i] + dim
            elif out[i] is None:
                out[i] = dim
            elif dim is not None and dim != out[i]:
                raise ValueError(f"inputs differ in dimension {i}: {[s for s, _ in specs]}")
    return [(tuple(out), dtype)]


register(OpDef("CONCATENATION", attrs={"axis": REQUIRED}, infer=_concat_infer,
               numpy=lambda a, *xs: np.concatenate(xs, axis=a["axis"]),
               jax=lambda a, *xs: _jnp().concatenate(xs, axis=a["axis"]),
               tflite=_tfl("CONCATENATION", "ConcatenationOptions", {"axis": "axis"})))


def concat(values: Sequence, axis: int, name: str | None = None) -> Tensor:
    """CONCATENATION: `values` (tensors or values) joined along `axis` (negative counts from the end).
    ValueError when their other dimensions or dtypes differ."""
    values = _operands(*values)
    return _apply("CONCATENATION", values, {"axis": _axis(axis, values[0].rank)}, name=name)


def _pad_infer(attrs, specs):
    shape, dtype = specs[0]
    pads = attrs["paddings"]
    if len(pads) != len(shape):
        raise ValueError(f"paddings {pads} do not match rank {len(shape)}")
    return [(tuple(None if d is None else d + b + e for d, (b, e) in zip(shape, pads)), dtype)]


register(OpDef("PAD", attrs={"paddings": REQUIRED}, infer=_pad_infer,
               numpy=lambda a, x: np.pad(x, a["paddings"]),
               jax=lambda a, x: _jnp().pad(x, a["paddings"]),
               tflite=_tfl("PAD", "PadOptions", attr_inputs=["paddings"], notes="paddings int32 [rank, 2]")))


def pad(x, paddings, name: str | None = None) -> Tensor:
    """PAD: x with zeros added, `paddings` a (before, after) pair per axis."""
    paddings = tuple((int(b), int(e)) for b, e in paddings)
    return _apply("PAD", [as_tensor(x)], {"paddings": paddings}, name=name)


def _reshape_infer(attrs, specs):
    shape, dtype = specs[0]
    new = list(attrs["new_shape"])
    if new.count(-1) > 1:
        raise ValueError(f"new shape {new} has more than one -1")
    if None in shape:
        return [(tuple(None if d == -1 else d for d in new), dtype)]
    total = int(np.prod(shape))
    known = int(np.prod([d for d in new if d != -1]))
    if -1 in new:
        if known == 0 or total % known:
            raise ValueError(f"cannot reshape {shape} to {new}")
        new[new.index(-1)] = total // known
    elif known != total:
        raise ValueError(f"cannot reshape {shape} ({total} elements) to {new}")
    return [(tuple(new), dtype)]


register(OpDef("RESHAPE", attrs={"new_shape": REQUIRED}, infer=_reshape_infer,
               numpy=lambda a, x: x.reshape(a["new_shape"]), jax=lambda a, x: x.reshape(a["new_shape"]),
               tflite=_tfl("RESHAPE", "ReshapeOptions", {"new_shape": "new_shape"}, ["new_shape"],
                           notes="-1 marks the dynamic dimension")))


def reshape(x, shape: Sequence[int | None], name: str | None = None) -> Tensor:
    """RESHAPE: x's values in `shape`; one dimension may be -1 or None (inferred, e.g. the batch). ValueError
    when the sizes cannot match."""
    shape = tuple(-1 if d is None else int(d) for d in shape)
    return _apply("RESHAPE", [as_tensor(x)], {"new_shape": shape}, name=name)


def _squeeze_infer(attrs, specs):
    shape, dtype = specs[0]
    dims = {_axis(d, len(shape)) for d in attrs["squeeze_dims"]} or {i for i, d in enumerate(shape) if d == 1}
    for d in dims:
        if shape[d] not in (1, None):
            raise ValueError(f"cannot squeeze dimension {d} of size {shape[d]}")
    return [(tuple(d for i, d in enumerate(shape) if i not in dims), dtype)]


def _squeeze_np(a, x):
    dims = tuple(a["squeeze_dims"]) or tuple(i for i, d in enumerate(x.shape) if d == 1)
    return np.squeeze(x, axis=dims)


register(OpDef("SQUEEZE", attrs={"squeeze_dims": ()}, infer=_squeeze_infer, numpy=_squeeze_np,
               jax=lambda a, x: _jnp().squeeze(x, axis=tuple(a["squeeze_dims"]) or None),
               tflite=_tfl("SQUEEZE", "SqueezeOptions", {"squeeze_dims": "squeeze_dims"})))


def squeeze(x, axes: Sequence[int] = (), name: str | None = None) -> Tensor:
    """SQUEEZE: x without the size-1 axes `axes` (every size-1 axis when empty). ValueError for an axis whose
    size is not 1."""
    x = as_tensor(x)
    return _apply("SQUEEZE", [x], {"squeeze_dims": tuple(_axis(a, x.rank) for a in axes)}, name=name)


def _expand_infer(attrs, specs):
    shape, dtype = specs[0]
    axis = _axis(attrs["axis"], len(shape) + 1)
    return [(shape[:axis] + (1,) + shape[axis:], dtype)]


register(OpDef("EXPAND_DIMS", attrs={"axis": REQUIRED}, infer=_expand_infer,
               numpy=lambda a, x: np.expand_dims(x, a["axis"]),
               jax=lambda a, x: _jnp().expand_dims(x, a["axis"]),
               tflite=_tfl("EXPAND_DIMS", "ExpandDimsOptions", attr_inputs=["axis"])))


def expand_dims(x, axis: int, name: str | None = None) -> Tensor:
    """EXPAND_DIMS: x with a new size-1 axis at `axis` (negative counts from the end of the result)."""
    x = as_tensor(x)
    return _apply("EXPAND_DIMS", [x], {"axis": _axis(axis, x.rank + 1)}, name=name)


def _transpose_infer(attrs, specs):
    shape, dtype = specs[0]
    perm = attrs["perm"]
    if sorted(perm) != list(range(len(shape))):
        raise ValueError(f"perm {perm} is not a permutation of rank {len(shape)}")
    return [(tuple(shape[p] for p in perm), dtype)]


register(OpDef("TRANSPOSE", attrs={"perm": REQUIRED}, infer=_transpose_infer,
               numpy=lambda a, x: np.transpose(x, a["perm"]), jax=lambda a, x: _jnp().transpose(x, a["perm"]),
               tflite=_tfl("TRANSPOSE", "TransposeOptions", attr_inputs=["perm"])))


def transpose(x, perm: Sequence[int], name: str | None = None) -> Tensor:
    """TRANSPOSE: x's axes reordered: axis i of the result is axis `perm[i]` of x."""
    return _apply("TRANSPOSE", [as_tensor(x)], {"perm": tuple(int(p) for p in perm)}, name=name)


def strided_slice_index(attrs: dict, rank: int) -> tuple:
    """The python index (slices and integers) that a STRIDED_SLICE node's attrs describe."""
    index = []
    for a in range(rank):
        if attrs["shrink_axis_mask"] >> a & 1:
            index.append(attrs["begin"][a])
            continue
        b = None if attrs["begin_mask"] >> a & 1 else attrs["begin"][a]
        e = None if attrs["end_mask"] >> a & 1 else attrs["end"][a]
        index.append(slice(b, e, attrs["strides"][a]))
    return tuple(index)


def _strided_slice_infer(attrs, specs):
    shape, dtype = specs[0]
    if not len(attrs["begin"]) == len(attrs["end"]) == len(attrs["strides"]) == len(shape):
        raise ValueError(f"begin/end/strides must each have {len(shape)} entries")
    out = []
    for dim, idx in zip(shape, strided_slice_index(attrs, len(shape))):
        if isinstance(idx, int):
            continue
        if dim is not None:
            out.append(len(range(dim)[idx]))
        elif idx == slice(None, None, 1):
            out.append(None)
        elif idx.step > 0 and idx.start is not None and idx.stop is not None and 0 <= idx.start <= idx.stop:
            out.append(len(range(idx.stop)[idx.start::idx.step]))
        else:
            out.append(None)
    return [(tuple(out), dtype)]


register(OpDef("STRIDED_SLICE",
               attrs={"begin": REQUIRED, "end": REQUIRED, "strides": REQUIRED, "begin_mask": 0, "end_mask": 0,
                      "shrink_axis_mask": 0},
               infer=_strided_slice_infer,
               numpy=lambda a, x: x[strided_slice_index(a, x.ndim)],
               jax=lambda a, x: x[strided_slice_index(a, x.ndim)],
               tflite=_tfl("STRIDED_SLICE", "StridedSliceOptions",
                           {"begin_mask": "begin_mask", "end_mask": "end_mask",
                            "shrink_axis_mask": "shrink_axis_mask"}, ["begin", "end", "strides"])))


def strided_slice(x, begin, end, strides=None, begin_mask: int = 0, end_mask: int = 0,
                  shrink_axis_mask: int = 0, name: str | None = None) -> Tensor:
    """STRIDED_SLICE: x[begin:end:strides] per axis, with TFLite's masks: bit i of `begin_mask` / `end_mask`
    ignores begin[i] / end[i] (the whole axis), bit i of `shrink_axis_mask` takes element begin[i] and drops
    the axis. `strides` defaults to 1 on every axis."""
    x = as_tensor(x)
    strides = tuple(strides) if strides is not None else (1,) * x.rank
    attrs = {"begin": tuple(int(b) for b in begin), "end": tuple(int(e) for e in end),
             "strides": tuple(int(s) for s in strides), "begin_mask": begin_mask, "end_mask": end_mask,
             "shrink_axis_mask": shrink_axis_mask}
    return _apply("STRIDED_SLICE", [x], attrs, name=name)


def _slice_index(attrs, shape):
    return tuple(slice(b, None if s == -1 else b + s) for b, s in zip(attrs["begin"], attrs["size"]))


def _slice_infer(attrs, specs):
    shape, dtype = specs[0]
    if not len(attrs["begin"]) == len(attrs["size"]) == len(shape):
        raise ValueError(f"begin/size must each have {len(shape)} entries")
    out = []
    for d, b, s in zip(shape, attrs["begin"], attrs["size"]):
        if s == -1:
            out.append(None if d is None else d - b)
        else:
            if d is not None and b + s > d:
                raise ValueError(f"slice [{b}, {b + s}) exceeds dimension {d}")
            out.append(s)
    return [(tuple(out), dtype)]


register(OpDef("SLICE", attrs={"begin": REQUIRED, "size": REQUIRED}, infer=_slice_infer,
               numpy=lambda a, x: x[_slice_index(a, x.shape)], jax=lambda a, x: x[_slice_index(a, x.shape)],
               tflite=_tfl("SLICE", "SliceOptions", attr_inputs=["begin", "size"], notes="size -1: to the end")))


def slice_(x, begin: Sequence[int], size: Sequence[int], name: str | None = None) -> Tensor:
    """SLICE: the block of x starting at `begin` with `size` per axis (-1: to the end of the axis)."""
    attrs = {"begin": tuple(int(b) for b in begin), "size": tuple(int(s) for s in size)}
    return _apply("SLICE", [as_tensor(x)], attrs, name=name)


def _gather_infer(attrs, specs):
    (ps, pd), (ixs, ixd) = specs
    if not np.issubdtype(np.dtype(ixd), np.integer):
        raise ValueError(f"indices must be integers, got {ixd}")
    axis = _axis(attrs["axis"], len(ps))
    return [(ps[:axis] + ixs + ps[axis + 1:], pd)]


register(OpDef("GATHER", attrs={"axis": 0}, infer=_gather_infer,
               numpy=lambda a, p, i: np.take(p, i, axis=a["axis"]),
               jax=lambda a, p, i: _jnp().take(p, i, axis=a["axis"]),
               tflite=_tfl("GATHER", "GatherOptions", {"axis": "axis"}, notes="batch_dims 0")))


def gather(params, indices, axis: int = 0, name: str | None = None) -> Tensor:
    """GATHER: the slices of `params` along `axis` at the int32 `indices` (any shape; the result's shape is
    params' with that axis replaced by indices')."""
    params = as_tensor(params)
    indices = as_tensor(indices, dtype="int32", graph=params.graph)
    return _apply("GATHER", [params, indices], {"axis": _axis(axis, params.rank)}, name=name)


register(OpDef("SHAPE", attrs={"out_type": "int32"}, infer=lambda a, s: [((len(s[0][0]),), a["out_type"])],
               numpy=lambda a, x: np.array(x.shape, dtype=a["out_type"]),
               jax=lambda a, x: np.array(x.shape, dtype=a["out_type"]),  # static under jit
               tflite=_tfl("SHAPE", "ShapeOptions", {"out_type": "out_type"})))


def shape(x, out_type: Any = "int32", name: str | None = None) -> Tensor:
    """SHAPE: x's shape at run time as a 1-D tensor of `out_type` (int32 or int64); dynamic dimensions are
    filled in by the feed."""
    return _apply("SHAPE", [as_tensor(x)], {"out_type": canonical_dtype(out_type)}, name=name)


def _pack_infer(attrs, specs):
    rank, dtype = len(specs[0][0]), specs[0][1]
    if any(len(s) != rank or d != dtype for s, d in specs):
        raise ValueError(f"inputs differ in rank or dtype: {specs}")
    shape = []
    for i in range(rank):
        dims = {s[i] for s, _ in specs} - {None}
        if len(dims) > 1:
            raise ValueError(f"inputs differ in dimension {i}: {[s for s, _ in specs]}")
        shape.append(dims.pop() if dims else None)
    axis = _axis(attrs["axis"], rank + 1)
    return [(tuple(shape[:axis]) + (len(specs),) + tuple(shape[axis:]), dtype)]


register(OpDef("PACK", attrs={"axis": 0}, infer=_pack_infer,
               numpy=lambda a, *xs: np.stack(xs, axis=a["axis"]),
               jax=lambda a, *xs: _jnp().stack(xs, axis=a["axis"]),
               tflite=_tfl("PACK", "PackOptions", {"axis": "axis"}, notes="values_count = number of inputs")))


def pack(values: Sequence, axis: int = 0, name: str | None = None) -> Tensor:
    """PACK: `values` (of one shape and dtype) stacked along a new axis `axis`. ValueError when their shapes
    or dtypes differ."""
    values = _operands(*values)
    return _apply("PACK", values, {"axis": _axis(axis, values[0].rank + 1)}, name=name)


def _depth_space_np(a, x, to_space):
    n, h, w, c = x.shape
    b = a["block_size"]
    if to_space:  # [n, h, w, b*b*c'] -> [n, h*b, w*b, c'], the channel block read as (row, column, channel)
        return x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5).reshape(n, h * b, w * b, -1)
    return x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // b, w // b, -1)


def _depth_space_infer(attrs, specs, to_space):
    (n, h, w, c), dtype = specs[0]
    b = attrs["block_size"]
    if to_space:
        if c is None or c % (b * b):
            raise ValueError(f"{c} channels are not a multiple of {b * b}")
        return [((n, None if h is None else h * b, None if w is None else w * b, c // (b * b)), dtype)]
    if None in (h, w, c) or h % b or w % b:
        raise ValueError(f"height {h} and width {w} must be known multiples of {b}")
    return [((n, h // b, w // b, c * b * b), dtype)]


for _name, _to_space, _options in (("DEPTH_TO_SPACE", True, "DepthToSpaceOptions"),
                                   ("SPACE_TO_DEPTH", False, "SpaceToDepthOptions")):
    register(OpDef(_name, attrs={"block_size": REQUIRED},
                   infer=lambda a, s, t=_to_space: _depth_space_infer(a, s, t),
                   numpy=lambda a, x, t=_to_space: _depth_space_np(a, x, t),
                   jax=lambda a, x, t=_to_space: _depth_space_np(a, x, t),  # reshapes and a transpose: jnp too
                   tflite=_tfl(_name, _options, {"block_size": "block_size"})))


def depth_to_space(x, block_size: int, name: str | None = None) -> Tensor:
    """DEPTH_TO_SPACE: an NHWC x's channels moved into `block_size` x `block_size` spatial blocks (channels
    must divide by block_size^2)."""
    return _apply("DEPTH_TO_SPACE", [as_tensor(x)], {"block_size": int(block_size)}, name=name)


def space_to_depth(x, block_size: int, name: str | None = None) -> Tensor:
    """SPACE_TO_DEPTH: each `block_size` x `block_size` spatial block of an NHWC x moved into channels
    (height and width must divide by block_size)."""
    return _apply("SPACE_TO_DEPTH", [as_tensor(x)], {"block_size": int(block_size)}, name=name)


# --------------------------------------------------------------------------------------------- resize


def resize_matrix(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool,
                  nearest: bool) -> np.ndarray:
    """[out, in] weights of TFLite's 1-D resize (the 2-D resizes are separable), computed in float32 as
    TFLite computes its source coordinates."""
    f32 = np.float32
    scale = f32(in_size - 1) / f32(out_size - 1) if align_corners and out_size > 1 else f32(in_size) / f32(out_size)
    m = np.zeros((out_size, in_size))
    for o in range(out_size):
        if nearest:
            offset = f32(0.5) if half_pixel_centers else f32(0)
            src = (f32(o) + offset) * scale
            i = int(np.floor(src + f32(0.5))) if align_corners else int(np.floor(src))
            i = min(i, in_size - 1)
            m[o, max(i, 0) if half_pixel_centers else i] = 1.0
        else:
            src = (f32(o) + f32(0.5)) * scale - f32(0.5) if half_pixel_centers else f32(o) * scale
            lo = max(int(np.floor(src)), 0)
            hi = min(int(np.ceil(src)), in_size - 1)
            frac = float(src) - lo
            m[o, lo] += 1.0 - frac
            m[o, hi] += frac
    return m


def resize_matrices(attrs: dict, in_h: int, in_w: int, nearest: bool):
    """The (rows, columns) resize_matrix pair for a RESIZE node's `attrs` (its `size`, `align_corners`,
    `half_pixel_centers`) from an in_h x in_w input; `nearest` for RESIZE_NEAREST_NEIGHBOR."""
    out_h, out_w = attrs["size"]
    return (resize_matrix(in_h, out_h, attrs["align_corners"], attrs["half_pixel_centers"], nearest),
            resize_matrix(in_w, out_w, attrs["align_corners"], attrs["half_pixel_centers"], nearest))


def _resize_infer(attrs, specs):
    xs, xd = specs[0]
    if len(xs) != 4 or None in xs[1:3]:
        raise ValueError(f"input must be NHWC with static height and width, got {xs}")
    return [((xs[0], *attrs["size"], xs[3]), xd)]


def _resize_np(a, x, nearest):
    mh, mw = resize_matrices(a, x.shape[1], x.shape[2], nearest)
    return np.einsum("oh,nhwc,pw->nopc", mh.astype(x.dtype), x, mw.astype(x.dtype))


def _resize_jax(a, x, nearest):
    jnp = _jnp()
    mh, mw = resize_matrices(a, x.shape[1], x.shape[2], nearest)
    return jnp.einsum("oh,nhwc,pw->nopc", jnp.asarray(mh, x.dtype), x, jnp.asarray(mw, x.dtype),
                      precision="highest")


_RESIZE_ATTRS = {"size": REQUIRED, "align_corners": False, "half_pixel_centers": False}
_RESIZE_MAP = {"align_corners": "align_corners", "half_pixel_centers": "half_pixel_centers"}
register(OpDef("RESIZE_BILINEAR", attrs=dict(_RESIZE_ATTRS), infer=_resize_infer,
               numpy=lambda a, x: _resize_np(a, x, False), jax=lambda a, x: _resize_jax(a, x, False),
               tflite=_tfl("RESIZE_BILINEAR", "ResizeBilinearOptions", _RESIZE_MAP, ["size"])))
register(OpDef("RESIZE_NEAREST_NEIGHBOR", attrs=dict(_RESIZE_ATTRS), infer=_resize_infer,
               numpy=lambda a, x: _resize_np(a, x, True), jax=lambda a, x: _resize_jax(a, x, True),
               tflite=_tfl("RESIZE_NEAREST_NEIGHBOR", "ResizeNearestNeighborOptions", _RESIZE_MAP, ["size"])))


def resize_bilinear(x, size, align_corners: bool = False, half_pixel_centers: bool = False,
                    name: str | None = None) -> Tensor:
    """RESIZE_BILINEAR: an NHWC x resized to `size` (height, width) by bilinear interpolation, with
    TFLite's `align_corners` and `half_pixel_centers` conventions."""
    attrs = {"size": tuple(size), "align_corners": align_corners, "half_pixel_centers": half_pixel_centers}
    return _apply("RESIZE_BILINEAR", [as_tensor(x)], attrs, name=name)


def resize_nearest(x, size, align_corners: bool = False, half_pixel_centers: bool = False,
                   name: str | None = None) -> Tensor:
    """RESIZE_NEAREST_NEIGHBOR: an NHWC x resized to `size` (height, width) taking the nearest pixel, with
    TFLite's `align_corners` and `half_pixel_centers` conventions."""
    attrs = {"size": tuple(size), "align_corners": align_corners, "half_pixel_centers": half_pixel_centers}
    return _apply("RESIZE_NEAREST_NEIGHBOR", [as_tensor(x)], attrs, name=name)


# --------------------------------------------------------------------------------------------- random


def _random_np(a, shape, state):
    return state.rng.random(tuple(int(d) for d in shape)).astype(a["dtype"])


def _random_jax(a, shape, key=None):
    import jax
    key = jax.random.PRNGKey(a["seed"]) if key is None else key
    return jax.random.uniform(key, tuple(int(d) for d in shape), dtype=a["dtype"])


register(OpDef("RANDOM_UNIFORM", attrs={"shape": REQUIRED, "dtype": "float32", "seed": 0, "seed2": 0},
               infer=lambda a, s: [(a["shape"], a["dtype"])], numpy=_random_np, jax=_random_jax, stateful=True,
               tflite=_tfl("RANDOM_UNIFORM", "RandomOptions", {"seed": "seed", "seed2": "seed2"},
                           notes="input: the int32 shape; `shape` attr is the static shape for inference")))


def random_uniform_like(x, seed: int = 0, name: str | None = None) -> Tensor:
    """Uniform [0, 1) values with x's (possibly dynamic) shape. The JAX lowering takes a `key=`."""
    x = as_tensor(x)
    return _apply("RANDOM_UNIFORM", [shape(x)], {"shape": x.shape, "dtype": x.dtype, "seed": seed}, name=name)


# ------------------------------------------------------------------------------------------ composites


def one_hot(indices, depth: int, dtype: Any = "float32", name: str = "one_hot") -> Tensor:
    """[..., depth] one-hot rows from integer indices, as (i == k) = 1 - (i > k) - (k > i): builtins only.
    The comparisons are float32 ones (exact for indices below 2^24): every runtime has float GREATER."""
    indices = as_tensor(indices)
    with indices.graph.name_scope(indices.graph.unique_name(name)):
        column = expand_dims(cast(indices, "float32"), -1)
        ks = constant(np.arange(depth, dtype=np.float32), graph=indices.graph)
        return 1.0 - cast(greater(column, ks), dtype) - cast(greater(ks, column), dtype)


def zeros_like(x) -> Tensor:
    """Zeros of x's shape and dtype (x * 0, so a dynamic shape follows x)."""
    x = as_tensor(x)
    return mul(x, 0)
