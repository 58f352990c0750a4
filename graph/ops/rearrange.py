"""Values moved, not computed: REVERSE_V2 (flipped axes), SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND (spatial blocks
moved into and out of the batch, as a dilated convolution's converter writes them). Each one's gradient is its
inverse applied to dy.

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping, its builder, and its gradient rule."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core import Tensor
from ..registry import REQUIRED, OpDef, register
from .core import _apply, _axis, _jnp, _same_as_first, _tfl, as_tensor


def _reverse(xp, a, x):
    return xp.flip(x, tuple(d % x.ndim for d in a["axes"]))


register(OpDef("REVERSE_V2", attrs={"axes": REQUIRED}, infer=_same_as_first,
               numpy=lambda a, x: _reverse(np, a, x).copy(), jax=lambda a, x: _reverse(_jnp(), a, x),
               tflite=_tfl("REVERSE_V2", "ReverseV2Options", attr_inputs=["axes"])))


def reverse(x, axes: Sequence[int], name: str | None = None) -> Tensor:
    """REVERSE_V2: x with the order of its elements along each of `axes` reversed."""
    x = as_tensor(x)
    return _apply("REVERSE_V2", [x], {"axes": tuple(_axis(a, x.rank) for a in axes)}, name=name)


def _space_to_batch(xp, a, x):
    block, pads = list(a["block_shape"]), [tuple(p) for p in a["paddings"]]
    m = len(block)
    rest = x.shape[1 + m:]
    x = xp.pad(x, [(0, 0)] + pads + [(0, 0)] * len(rest))
    b = x.shape[0]
    split = [b] + [v for d, k in zip(x.shape[1:1 + m], block) for v in (d // k, k)] + list(rest)
    x = x.reshape(split)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, x.ndim))
    x = xp.transpose(x, perm)
    return x.reshape([b * int(np.prod(block))] + [x.shape[1 + m + i] for i in range(m)] + list(rest))


def _batch_to_space(xp, a, x):
    block, crops = list(a["block_shape"]), [tuple(c) for c in a["crops"]]
    m = len(block)
    rest = list(x.shape[1 + m:])
    b = x.shape[0] // int(np.prod(block))
    x = x.reshape(block + [b] + list(x.shape[1:1 + m]) + rest)
    perm = [m] + [v for i in range(m) for v in (m + 1 + i, i)] + list(range(2 * m + 1, x.ndim))
    x = xp.transpose(x, perm)
    x = x.reshape([b] + [x.shape[1 + 2 * i] * block[i] for i in range(m)] + rest)
    index = (slice(None),) + tuple(slice(c0, x.shape[1 + i] - c1) for i, (c0, c1) in enumerate(crops))
    return x[index]


def _block_infer(attrs, specs, to_batch):
    shape, dtype = specs[0]
    block = list(attrs["block_shape"])
    edges = [tuple(p) for p in attrs["paddings" if to_batch else "crops"]]
    m = len(block)
    if len(edges) != m or len(shape) < m + 1:
        raise ValueError(f"block_shape {block} and {len(edges)} (before, after) pairs for rank {len(shape)}")
    spatial = []
    for i, (d, k, (e0, e1)) in enumerate(zip(shape[1:1 + m], block, edges)):
        if d is None:
            spatial.append(None)
        elif to_batch:
            if (d + e0 + e1) % k:
                raise ValueError(f"padded dimension {i + 1} ({d + e0 + e1}) is not a multiple of block {k}")
            spatial.append((d + e0 + e1) // k)
        else:
            spatial.append(d * k - e0 - e1)
    n, blocks = shape[0], int(np.prod(block))
    if n is not None and not to_batch and n % blocks:
        raise ValueError(f"batch {n} is not a multiple of the {blocks} blocks")
    batch = None if n is None else n * blocks if to_batch else n // blocks
    return [((batch, *spatial, *shape[1 + m:]), dtype)]


_PAIRS = "int32 [M, 2]"
register(OpDef("SPACE_TO_BATCH_ND", attrs={"block_shape": REQUIRED, "paddings": REQUIRED},
               infer=lambda a, s: _block_infer(a, s, True), numpy=lambda a, x: _space_to_batch(np, a, x),
               jax=lambda a, x: _space_to_batch(_jnp(), a, x),
               tflite=_tfl("SPACE_TO_BATCH_ND", "SpaceToBatchNDOptions", attr_inputs=["block_shape", "paddings"],
                           notes=f"paddings {_PAIRS}")))
register(OpDef("BATCH_TO_SPACE_ND", attrs={"block_shape": REQUIRED, "crops": REQUIRED},
               infer=lambda a, s: _block_infer(a, s, False), numpy=lambda a, x: _batch_to_space(np, a, x),
               jax=lambda a, x: _batch_to_space(_jnp(), a, x),
               tflite=_tfl("BATCH_TO_SPACE_ND", "BatchToSpaceNDOptions", attr_inputs=["block_shape", "crops"],
                           notes=f"crops {_PAIRS}")))


def _pairs(values) -> tuple:
    return tuple((int(b), int(e)) for b, e in values)


def space_to_batch_nd(x, block_shape: Sequence[int], paddings, name: str | None = None) -> Tensor:
    """SPACE_TO_BATCH_ND: x [batch, spatial..., rest] padded by `paddings` ((before, after) per spatial axis),
    then each `block_shape` block of pixels spread over the batch: [batch * prod(block), spatial / block...]."""
    attrs = {"block_shape": tuple(int(b) for b in block_shape), "paddings": _pairs(paddings)}
    return _apply("SPACE_TO_BATCH_ND", [as_tensor(x)], attrs, name=name)


def batch_to_space_nd(x, block_shape: Sequence[int], crops, name: str | None = None) -> Tensor:
    """BATCH_TO_SPACE_ND: SPACE_TO_BATCH_ND's inverse: the batch's blocks put back in space, then `crops`
    ((before, after) per spatial axis) cut off."""
    attrs = {"block_shape": tuple(int(b) for b in block_shape), "crops": _pairs(crops)}
    return _apply("BATCH_TO_SPACE_ND", [as_tensor(x)], attrs, name=name)


def _grad_reverse(node, dys):
    return [reverse(dys[0], node.attrs["axes"])]


def _grad_space_to_batch(node, dys):
    return [batch_to_space_nd(dys[0], node.attrs["block_shape"], node.attrs["paddings"])]


def _grad_batch_to_space(node, dys):
    return [space_to_batch_nd(dys[0], node.attrs["block_shape"], node.attrs["crops"])]


GRADIENTS = {
    "REVERSE_V2": _grad_reverse,
    "SPACE_TO_BATCH_ND": _grad_space_to_batch,
    "BATCH_TO_SPACE_ND": _grad_batch_to_space,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
