"""MediaPipe's argmax pooling and unpooling, differentiated (a segmentation decoder that unpools by its encoder's
indices may sit in a trained tail): the gradients against a naive scatter and gather, tap by tap, and against
jax.grad of their JAX lowerings. Float32 only, as the ops are; their backward graphs run in LiteRT and rillet
in test_runtime_ops.py."""

from __future__ import annotations

import numpy as np
import pytest
from graphcheck import run_jax

import rillet.graph as rg
from rillet.graph import ops


def geometry(size: int, f: int, padding: str) -> tuple[int, int]:
    out = -(-size // f) if padding == "SAME" else (size - f) // f + 1
    return out, max(out * f - size, 0) // 2


def naive_argmax_pool_grad(x, dy, filter_hw, padding):
    """dy of each window added at its first largest tap (taps x-major), SAME's overhang at the edge it repeats."""
    (fh, fw), (n, h, w, c) = filter_hw, x.shape
    (oh, top), (ow, left) = geometry(h, fh, padding), geometry(w, fw, padding)
    dx = np.zeros_like(x, dtype=np.float64)
    for b, i, j, ch in np.ndindex(n, oh, ow, c):
        best, where = -np.inf, None
        for fx in range(fw):
            for fy in range(fh):
                r = min(max(i * fh + fy - top, 0), h - 1)
                q = min(max(j * fw + fx - left, 0), w - 1)
                if x[b, r, q, ch] > best:
                    best, where = x[b, r, q, ch], (r, q)
        dx[b, where[0], where[1], ch] += dy[b, i, j, ch]
    return dx


def naive_unpool_grad(index, dy, filter_hw):
    """Each value's gradient: dy at the tap t its index names (fx = t // fh, fy = t % fh)."""
    fh, fw = filter_hw
    out = np.zeros(index.shape)
    for b, i, j, ch in np.ndindex(index.shape):
        t = int(index[b, i, j, ch])
        out[b, i, j, ch] = dy[b, i * fh + t % fh, j * fw + t // fh, ch]
    return out


SHAPES = [
    ((2, 4, 6, 3), (2, 2), "VALID"),
    ((1, 5, 7, 2), (2, 3), "VALID"),   # leftover rows and columns: zeros
    ((1, 5, 7, 2), (2, 3), "SAME"),    # overhang after (rows) and on both sides (columns)
    ((1, 7, 4, 1), (3, 3), "SAME"),    # overhang on both sides of the rows
    ((1, 1, 5, 2), (2, 2), "SAME"),    # one row: it takes both sides' overhang
]


@pytest.mark.parametrize("shape, filter_hw, padding", SHAPES)
def test_argmax_pool_and_unpool_gradients(shape, filter_hw, padding):
    rs = np.random.default_rng(sum(shape))
    x = rs.permutation(np.prod(shape)).reshape(shape).astype(np.float32) / 10  # distinct: one maximum a window
    g = rg.Graph()
    with g.as_default():
        xt = rg.placeholder(shape, "float32", name="x")
        values, indices = ops.max_pool_with_argmax(xt, filter_hw, padding)
        seed_values = rs.normal(size=values.shape).astype(np.float32)
        v = rg.placeholder(values.shape, "float32", name="v")
        unpooled = ops.max_unpool(v, indices, filter_hw)
        seed_unpooled = rs.normal(size=unpooled.shape).astype(np.float32)
        loss = ops.add(ops.reduce_sum(ops.mul(values, seed_values)),
                       ops.reduce_sum(ops.mul(unpooled, seed_unpooled)))
        dx, dv = rg.gradients(loss, [xt, v])
    vv = rs.normal(size=values.shape).astype(np.float32)
    got_dx, got_dv, index = g.run([dx, dv, indices], {xt: x, v: vv})
    index = index.view(np.uint32)
    np.testing.assert_allclose(got_dx, naive_argmax_pool_grad(x, seed_values, filter_hw, padding), rtol=1e-6)
    np.testing.assert_allclose(got_dv, naive_unpool_grad(index, seed_unpooled, filter_hw), rtol=1e-6)
    jax = pytest.importorskip("jax")

    def f(a, b):
        return run_jax([loss], {xt: a, v: b})[0]

    want_dx, want_dv = jax.jit(jax.grad(f, argnums=(0, 1)))(x, vv)
    np.testing.assert_allclose(got_dx, np.asarray(want_dx), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_dv, np.asarray(want_dv), rtol=1e-5, atol=1e-6)
    lowered_dx, lowered_dv = jax.jit(lambda a, b: run_jax([dx, dv], {xt: a, v: b}))(x, vv)
    np.testing.assert_allclose(np.asarray(lowered_dx), got_dx, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(lowered_dv), got_dv, rtol=1e-6)
