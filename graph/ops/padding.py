"""Padding: PAD (zeros), PADV2 (a given value) and MIRROR_PAD (reflect or symmetric), whose gradient adds the mirrored borders back.

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping, its builder, and its gradient rule."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import Tensor
from ..registry import REQUIRED, OpDef, register
from .core import (
    _apply,
    _jnp,
    _tfl,
    as_tensor,
)

# --------------------------------------------------------------------------------------------- shapes


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


def _padv2_infer(attrs, specs):
    (_, dtype), (vs, vd) = specs
    if vd != dtype or vs not in ((), (1,)):
        raise ValueError(f"constant value must be a scalar of the input's dtype {dtype}, got {vd} {vs}")
    return _pad_infer(attrs, specs[:1])


register(OpDef("PADV2", attrs={"paddings": REQUIRED}, infer=_padv2_infer,
               numpy=lambda a, x, v: np.pad(x, a["paddings"], constant_values=v.reshape(())),
               jax=lambda a, x, v: _jnp().pad(x, a["paddings"], constant_values=v.reshape(())),
               tflite=_tfl("PADV2", "PadV2Options", attr_inputs=["paddings"], order=[0, "paddings", 1],
                           notes="inputs (x, paddings, constant_values)")))


def pad_v2(x, paddings, constant_value, name: str | None = None) -> Tensor:
    """PADV2: x with `constant_value` (a scalar tensor or number) added, a (before, after) pair per axis."""
    x = as_tensor(x)
    paddings = tuple((int(b), int(e)) for b, e in paddings)
    value = as_tensor(constant_value, dtype=x.dtype, graph=x.graph)
    return _apply("PADV2", [x, value], {"paddings": paddings}, name=name)


_MIRROR_MODES = ("reflect", "symmetric")  # MirrorPadOptions.mode: 0 REFLECT, 1 SYMMETRIC


def _mirror_pad_jax(a, x):
    return _jnp().pad(x, a["paddings"], mode=_MIRROR_MODES[a["mode"]])


register(OpDef("MIRROR_PAD", attrs={"paddings": REQUIRED, "mode": 0}, infer=_pad_infer,
               numpy=lambda a, x: np.pad(x, a["paddings"], mode=_MIRROR_MODES[a["mode"]]), jax=_mirror_pad_jax,
               tflite=_tfl("MIRROR_PAD", "MirrorPadOptions", {"mode": "mode"}, ["paddings"])))


def mirror_pad(x, paddings, mode: str = "REFLECT", name: str | None = None) -> Tensor:
    """MIRROR_PAD: x padded with its own values mirrored at each edge, `paddings` a (before, after) pair per
    axis; `mode` "REFLECT" (the edge value not repeated) or "SYMMETRIC" (repeated)."""
    paddings = tuple((int(b), int(e)) for b, e in paddings)
    attrs = {"paddings": paddings, "mode": _MIRROR_MODES.index(mode.lower())}
    return _apply("MIRROR_PAD", [as_tensor(x)], attrs, name=name)


def _grad_pad(node, dys):
    x = node.inputs[0]
    begin = [b for b, _ in node.attrs["paddings"]]
    return [ops.slice_(dys[0], begin, [-1 if d is None else d for d in x.shape])]


def _grad_padv2(node, dys):
    x, v = node.inputs
    dx = _grad_pad(node, dys)[0]
    # the value fills every padded element: it takes the sum of dy there, all of dy less what x took
    dv = ops.sub(ops.reduce_sum(dys[0]), ops.reduce_sum(dx))
    return [dx, ops.reshape(dv, list(v.shape))]


def mirror_matrix(size: int, before: int, after: int, mode: int) -> np.ndarray:
    """[size + before + after, size]: which input element each output element of a 1-D mirror pad copies."""
    index = np.pad(np.arange(size), (before, after), mode=_MIRROR_MODES[mode])
    m = np.zeros((len(index), size))
    m[np.arange(len(index)), index] = 1.0
    return m


def _grad_mirror_pad(node, dys):
    # a mirror pad is linear and separable: along each padded axis dx = M^T dy, a BATCH_MATMUL on that axis
    # moved last (the reflected borders add back onto the elements they copy)
    x, g = node.inputs[0], dys[0]
    for axis, (before, after) in enumerate(node.attrs["paddings"]):
        if before == after == 0:
            continue
        perm = [a for a in range(x.rank) if a != axis] + [axis]
        back = list(np.argsort(perm))
        m = mirror_matrix(x.shape[axis], before, after, node.attrs["mode"])
        moved = ops.batch_matmul(ops.transpose(g, perm), ops.constant(m.astype(x.dtype), graph=x.graph))
        g = ops.transpose(moved, back)
    return [g]


GRADIENTS = {
    "PAD": _grad_pad,
    "PADV2": _grad_padv2,
    "MIRROR_PAD": _grad_mirror_pad,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
