"""Losses as graph nodes: softmax and sigmoid cross-entropy from logits, mean squared error. Each averages over
the batch."""

from __future__ import annotations

import numpy as np

from . import ops
from .core import Tensor


def softmax_cross_entropy(labels, logits, name: str = "softmax_cross_entropy") -> Tensor:
    """Mean over the batch of -sum(onehot * log_softmax(logits)); labels are class indices (integers,
    shape logits.shape[:-1]) or a distribution over classes (floats, shape of logits)."""
    logits = ops.as_tensor(logits)
    graph = logits.graph
    with graph.name_scope(graph.unique_name(name)):
        labels = ops.as_tensor(labels, graph=graph)
        if np.issubdtype(np.dtype(labels.dtype), np.integer):
            if labels.rank != logits.rank - 1:
                raise ValueError(f"{name}: integer labels {labels.shape} must have the shape of logits "
                                 f"{logits.shape} without its last dimension")
            labels = ops.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
        elif labels.rank != logits.rank:
            raise ValueError(f"{name}: one-hot labels {labels.shape} must have the shape of logits {logits.shape}")
        per_example = ops.reduce_sum(ops.mul(labels, ops.log_softmax(logits)), -1)
        return ops.neg(ops.reduce_mean(per_example))


def sigmoid_cross_entropy(labels, logits, name: str = "sigmoid_cross_entropy") -> Tensor:
    """Mean over every element of the binary cross-entropy of sigmoid(logits) against labels in [0, 1], in
    the stable form max(z, 0) - z y + log(1 + exp(-|z|))."""
    logits = ops.as_tensor(logits)
    graph = logits.graph
    with graph.name_scope(graph.unique_name(name)):
        labels = ops.as_tensor(labels, dtype=logits.dtype, graph=graph)
        positive, negative = ops.relu(logits), ops.relu(ops.neg(logits))
        magnitude = ops.add(positive, negative)
        per_element = ops.add(ops.sub(positive, ops.mul(logits, labels)),
                              ops.log(ops.add(ops.exp(ops.neg(magnitude)), 1.0)))
        return ops.reduce_mean(per_element)


def mean_squared_error(y_true, y_pred, name: str = "mean_squared_error") -> Tensor:
    """Mean over every element of (y_pred - y_true)^2."""
    y_pred = ops.as_tensor(y_pred)
    with y_pred.graph.name_scope(y_pred.graph.unique_name(name)):
        y_true = ops.as_tensor(y_true, dtype=y_pred.dtype, graph=y_pred.graph)
        return ops.reduce_mean(ops.squared_difference(y_pred, y_true))
