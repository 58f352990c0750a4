"""Random numbers: RANDOM_UNIFORM.

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping (one `register`), its builder, and
its gradient rule (`_grad_*`, collected in GRADIENTS at the end)."""

from __future__ import annotations

from .. import ops
from ..core import Tensor
from ..registry import REQUIRED, OpDef, register
from .core import (
    _apply,
    _tfl,
    as_tensor,
)

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
    return _apply("RANDOM_UNIFORM", [ops.shape(x)], {"shape": x.shape, "dtype": x.dtype, "seed": seed}, name=name)


