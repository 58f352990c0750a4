"""Tensors made bigger or from nothing: TILE, BROADCAST_TO, FILL, ZEROS_LIKE and RANGE. TILE's gradient sums dy
over the copies, BROADCAST_TO's over the broadcast axes, FILL's value takes the sum of dy; ZEROS_LIKE and RANGE
pass none (their values do not depend on a float input's).

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping, its builder, and its gradient rule."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import ops
from ..core import Tensor
from ..registry import REQUIRED, OpDef, register
from . import _grad as grad
from .core import _apply, _jnp, _same_as_first, _tfl, as_tensor, broadcast_shapes


def _tile_infer(attrs, specs):
    shape, dtype = specs[0]
    reps = attrs["multiples"]
    if len(reps) != len(shape) or min(reps, default=1) < 0:
        raise ValueError(f"multiples {list(reps)} do not match rank {len(shape)}")
    return [(tuple(None if d is None else d * r for d, r in zip(shape, reps)), dtype)]


register(OpDef("TILE", attrs={"multiples": REQUIRED}, infer=_tile_infer,
               numpy=lambda a, x: np.tile(x, a["multiples"]), jax=lambda a, x: _jnp().tile(x, a["multiples"]),
               tflite=_tfl("TILE", "TileOptions", attr_inputs=["multiples"])))


def tile(x, multiples: Sequence[int], name: str | None = None) -> Tensor:
    """TILE: x repeated `multiples[i]` times along each axis i."""
    return _apply("TILE", [as_tensor(x)], {"multiples": tuple(int(m) for m in multiples)}, name=name)


def _broadcast_to_infer(attrs, specs):
    shape, dtype = specs[0]
    target = tuple(attrs["shape"])
    if broadcast_shapes(shape, target) != target:
        raise ValueError(f"shape {shape} does not broadcast to {list(target)}")
    return [(target, dtype)]


register(OpDef("BROADCAST_TO", attrs={"shape": REQUIRED}, infer=_broadcast_to_infer,
               numpy=lambda a, x: np.broadcast_to(x, a["shape"]).copy(),
               jax=lambda a, x: _jnp().broadcast_to(x, a["shape"]),
               tflite=_tfl("BROADCAST_TO", "BroadcastToOptions", attr_inputs=["shape"])))


def broadcast_to(x, shape: Sequence[int], name: str | None = None) -> Tensor:
    """BROADCAST_TO: x broadcast (numpy's rules) to the static `shape`."""
    return _apply("BROADCAST_TO", [as_tensor(x)], {"shape": tuple(int(d) for d in shape)}, name=name)


def _fill_infer(attrs, specs):
    shape, dtype = specs[0]
    if shape not in ((), (1,)):
        raise ValueError(f"value must be a scalar, got shape {shape}")
    return [(tuple(attrs["dims"]), dtype)]


register(OpDef("FILL", attrs={"dims": REQUIRED}, infer=_fill_infer,
               numpy=lambda a, v: np.full(a["dims"], v.reshape(()), dtype=v.dtype),
               jax=lambda a, v: _jnp().full(a["dims"], v.reshape(()), dtype=v.dtype),
               tflite=_tfl("FILL", attr_inputs=["dims"], order=["dims", 0], notes="inputs (dims, value)")))


def fill(dims: Sequence[int], value, name: str | None = None) -> Tensor:
    """FILL: a tensor of shape `dims` holding the scalar `value` (a tensor or a number) everywhere."""
    return _apply("FILL", [as_tensor(value)], {"dims": tuple(int(d) for d in dims)}, name=name)


register(OpDef("ZEROS_LIKE", infer=_same_as_first, numpy=lambda a, x: np.zeros_like(x),
               jax=lambda a, x: _jnp().zeros_like(x), tflite=_tfl("ZEROS_LIKE", "ZerosLikeOptions")))


def zeros_like_builtin(x, name: str | None = None) -> Tensor:
    """ZEROS_LIKE as TFLite's own op. `zeros_like` (x * 0, what the gradient rules use) needs no such op."""
    return _apply("ZEROS_LIKE", [as_tensor(x)], name=name)


def _range_infer(attrs, specs):
    dtypes = {d for _, d in specs}
    if len(dtypes) != 1 or any(s not in ((), (1,)) for s, _ in specs):
        raise ValueError(f"start, limit and delta must be scalars of one dtype, got {specs}")
    return [((None,), dtypes.pop())]  # the length is known only from the values


def _range_np(a, start, limit, delta):
    return np.arange(start.reshape(()), limit.reshape(()), delta.reshape(()), dtype=start.dtype)


def _range_jax(a, start, limit, delta):
    import jax

    try:
        return _jnp().arange(start.reshape(()), limit.reshape(()), delta.reshape(()), dtype=start.dtype)
    except jax.errors.ConcretizationTypeError:
        raise ValueError("RANGE: its length follows its inputs' values, which a jitted step does not know "
                         "(run it on the numpy reference, or make the range a constant)") from None


register(OpDef("RANGE", infer=_range_infer, numpy=_range_np, jax=_range_jax,
               tflite=_tfl("RANGE", "RangeOptions",
                           notes="its length follows its inputs' values: a JAX step needs them constant")))


def range_(start, limit, delta=1, name: str | None = None) -> Tensor:
    """RANGE: start, start + delta, ... up to (not including) limit; scalars of one dtype (tensors or numbers).
    The result's length is dynamic in the graph."""
    ref = next((v for v in (start, limit, delta) if isinstance(v, Tensor)), None)
    dtype = ref.dtype if ref is not None else np.asarray(start).dtype
    graph = ref.graph if ref is not None else None
    start, limit, delta = (as_tensor(v, dtype=dtype, graph=graph) for v in (start, limit, delta))
    return _apply("RANGE", [start, limit, delta], name=name)


def _grad_tile(node, dys):
    x = node.inputs[0]
    if None in x.shape:
        raise ValueError(f'gradient of TILE "{node.name}": x must have a static shape')
    reps = node.attrs["multiples"]
    split = [v for r, d in zip(reps, x.shape) for v in (r, d)]  # [r0, d0, r1, d1, ...]: the copies apart
    g = ops.reshape(dys[0], split)
    return [ops.reduce_sum(g, list(range(0, 2 * x.rank, 2)))]


def _grad_broadcast_to(node, dys):
    return [grad.unbroadcast(dys[0], node.inputs[0])]


def _grad_fill(node, dys):
    v = node.inputs[0]
    return [ops.reshape(ops.reduce_sum(dys[0]), list(v.shape))]


GRADIENTS = {
    "TILE": _grad_tile,
    "BROADCAST_TO": _grad_broadcast_to,
    "FILL": _grad_fill,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
