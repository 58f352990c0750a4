"""The shared helpers every op family uses, graph structure (placeholders, constants, identity, group) and
resource variables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core import Graph, Tensor, Variable, canonical_dtype, get_default_graph
from ..registry import REQUIRED, OpDef, register

# ----------------------------------------------------------------------------------------------- helpers


def _jnp():
    import jax.numpy as jnp
    return jnp


def _lax():
    from jax import lax
    return lax


def _tfl(builtin: str, options: str | None = None, option_map: dict | None = None,
         attr_inputs: Sequence[str] = (), notes: str = "", order: Sequence[int | str] | None = None) -> dict:
    """How the converter writes an op. `attr_inputs` are attrs written as constant int32 input tensors,
    after the node's own inputs unless `order` says otherwise: TFLite's input list as node input positions
    (ints) and attr names (SPLIT: ["axis", 0], its axis first; FILL: ["dims", 0])."""
    return {"builtin": builtin, "options": options, "option_map": dict(option_map or {}),
            "attr_inputs": list(attr_inputs), "notes": notes, "order": list(order) if order else None}


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
    if handle not in state.store:  # a resource variable no Variable made (a model's state, imported): its first
        state.store[handle] = np.array(value)  # assignment, in its CALL_ONCE initialiser, makes it
        return ()
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


