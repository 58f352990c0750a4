"""Reverse-mode autodiff: `gradients`, which adds the backward graph as new nodes, following the gradient rules
that each op family keeps beside its ops (graph/ops/<family>.py, GRADIENTS there; merged into one table
here). Rules build from the runtime's builtins, so the backward graph lowers like the forward."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from . import ops
from .core import Node, Tensor, Variable
from .ops import GRADIENTS, NO_GRADIENT, add, constant

GradRule = Callable[[Node, list], list]

__all__ = ["GRADIENTS", "NO_GRADIENT", "GradRule", "gradients"]


def _is_float(t: Tensor) -> bool:
    return t.dtype != "resource" and np.issubdtype(np.dtype(t.dtype), np.floating)


STRAIGHT_THROUGH = {"QUANTIZE"}
"""Ops whose integer outputs (quantized levels) carry a float gradient: the straight-through gradient of a
QUANTIZE -> DEQUANTIZE pair (graph/ops/quantization.py) passes through them."""


def _carries_gradient(t: Tensor) -> bool:
    return _is_float(t) or t.node.op in STRAIGHT_THROUGH


def gradients(ys, xs: Sequence, grad_ys=None, name: str = "gradients") -> list[Tensor | None]:
    """d(sum of ys)/d(each of xs), as new nodes of the graph; None where an x does not affect ys.

    xs may be Variables (the gradient is with respect to their value) or Tensors. grad_ys, if given,
    are the seeds for ys (default: ones).
    """
    ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    ys = [ops.as_tensor(y) for y in ys]
    targets = [x.value if isinstance(x, Variable) else ops.as_tensor(x) for x in xs]
    graph = ys[0].graph
    if grad_ys is None:
        grad_ys = [None] * len(ys)
    elif not isinstance(grad_ys, (list, tuple)):
        grad_ys = [grad_ys]

    # nodes on a path from some x to some y
    downstream: set[Node] = set()
    target_set = set(targets)
    for node in graph.nodes:
        if any(t in target_set or t.node in downstream for t in node.inputs):
            downstream.add(node)
    upstream = graph._ancestors([y.node for y in ys])
    on_path = downstream & upstream

    pending: dict[Tensor, list[Tensor]] = {}
    with graph.name_scope(graph.unique_name(name)):
        for y, seed in zip(ys, grad_ys):
            if seed is None:
                if None in y.shape:
                    seed = add(ops.zeros_like(y), 1.0)
                else:
                    seed = constant(np.ones(y.shape, dtype=y.dtype), graph=graph)
            pending.setdefault(y, []).append(ops.as_tensor(seed, dtype=y.dtype, graph=graph))
        summed: dict[Tensor, Tensor] = {}

        def total(t: Tensor) -> Tensor | None:
            if t not in summed and t in pending:
                parts = pending.pop(t)
                acc = parts[0]
                for p in parts[1:]:
                    acc = add(acc, p)
                summed[t] = acc
            return summed.get(t)

        for node in reversed(graph.nodes):
            if node not in on_path or node.op in NO_GRADIENT:
                continue
            dys = [total(t) if _carries_gradient(t) else None for t in node.outputs]
            if all(d is None for d in dys):
                if node.op in STRAIGHT_THROUGH:
                    _check_levels_reach_no_rule(graph, node, on_path)
                continue
            rule = GRADIENTS.get(node.op)
            if rule is None:
                raise NotImplementedError(f'no gradient rule for {node.op} (node "{node.name}")')
            for i, d in enumerate(dys):
                if d is None and _carries_gradient(node.outputs[i]):
                    dys[i] = ops.zeros_like(node.outputs[i])
            with graph.name_scope(node.name.split("/")[-1] + "_grad"):
                grads = rule(node, dys)
            for x, g in zip(node.inputs, grads):
                if g is None or not _carries_gradient(x):
                    continue
                if g.shape != x.shape and None not in x.shape:
                    raise RuntimeError(f'gradient rule for {node.op} "{node.name}" gave shape {g.shape} '
                                       f"for input of shape {x.shape}")
                pending.setdefault(x, []).append(g)
        return [total(t) for t in targets]



def _check_levels_reach_no_rule(graph, node: Node, on_path: set) -> None:
    """A QUANTIZE on the way to the loss whose levels took no gradient: fine where they reach it only through ops
    without one (a comparison), but one with a rule (an int8 RESHAPE before the DEQUANTIZE) would silently leave
    the ops before the QUANTIZE untrained: NotImplementedError naming both."""
    levels = node.outputs[0]
    readers = [n for n in graph.nodes if n in on_path and levels in n.inputs
               and n.op not in NO_GRADIENT and n.op != "DEQUANTIZE"]
    if readers:
        raise NotImplementedError(
            f'no gradient reaches {node.op} "{node.name}": its {levels.dtype} levels reach the loss through '
            f'{readers[0].op} "{readers[0].name}", which passes integer tensors no gradient; the straight-through '
            "gradient passes a QUANTIZE whose levels a DEQUANTIZE reads")
