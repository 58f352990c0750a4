"""What fit computes besides the graph: metrics, JAX functions of (labels, prediction) traced into the
training step, and the loss a name stands for."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import jax.numpy as jnp

from rillet.graph import Tensor
from rillet.graph import losses as graph_losses

from .fit_data import FitError


def accuracy(labels, prediction):
    if jnp.issubdtype(labels.dtype, jnp.integer):
        hits = jnp.argmax(prediction, -1) == labels
    else:
        hits = jnp.argmax(prediction, -1) == jnp.argmax(labels, -1)
    return jnp.mean(hits.astype(jnp.float32))


# name -> f(labels, prediction) -> scalar, the batch's mean; traced into the training step
METRICS: dict[str, Callable] = {
    "accuracy": accuracy,
    "mean_squared_error": lambda labels, prediction: jnp.mean(jnp.square(prediction - labels)),
    "mean_absolute_error": lambda labels, prediction: jnp.mean(jnp.abs(prediction - labels)),
}
"""The metrics `fit(metrics=[...])` takes by name ("accuracy", "mean_squared_error" or "mse", ...), each
`f(labels, prediction)` giving the batch's mean."""
METRICS["mse"], METRICS["mae"] = METRICS["mean_squared_error"], METRICS["mean_absolute_error"]


def metric_functions(metrics: Sequence[str | Callable] | Mapping) -> dict[str, Callable]:
    if isinstance(metrics, Mapping):
        named = dict(metrics)
    else:
        named = {}
        for m in metrics:
            named[m if isinstance(m, str) else getattr(m, "__name__", f"metric_{len(named)}")] = m
    for name, m in named.items():
        if isinstance(m, str):
            if m not in METRICS:
                raise FitError(f'unknown metric "{m}" (known: {", ".join(sorted(METRICS))}, or a callable)')
            named[name] = METRICS[m]
        elif not callable(m):
            raise FitError(f"metric {name!r} is neither a name nor a callable: {m!r}")
    return named


def loss_function(loss: str | Callable) -> Callable:
    if callable(loss):
        return loss
    known = [n for n in ("softmax_cross_entropy", "mean_squared_error") if hasattr(graph_losses, n)]
    if loss not in known:
        raise FitError(f'unknown loss "{loss}" (known: {", ".join(known)}, or a callable)')
    function = getattr(graph_losses, loss)
    if loss != "softmax_cross_entropy":
        return function

    def from_logits(labels: Tensor, prediction: Tensor) -> Tensor:
        logits = prediction.node.inputs[0] if prediction.node.op == "SOFTMAX" else prediction
        return function(labels, logits)
    return from_logits
