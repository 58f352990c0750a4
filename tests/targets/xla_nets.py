"""A small conv + dense classifier with a hand-built SGD step, shared by the XLA tests and their subprocess."""

from __future__ import annotations

import numpy as np

from rillet.graph import Graph, Variable, gradients, group, ops, placeholder

BATCH, SIZE, CHANNELS, CLASSES = 8, 8, 2, 3


def conv_dense_net(learning_rate: float = 0.1, seed: int = 0) -> dict:
    """Graph, placeholders, logits, loss and an SGD train op (var.assign(var - lr * grad), grouped)."""
    rng = np.random.default_rng(seed)
    graph = Graph()
    with graph.as_default():
        x = placeholder([None, SIZE, SIZE, CHANNELS], name="x")
        labels = placeholder([None], "int32", name="labels")
        filters = Variable(rng.normal(0, 0.3, (4, 3, 3, CHANNELS)).astype(np.float32), name="conv/filters")
        bias = Variable(rng.normal(0, 0.1, (4,)).astype(np.float32), name="conv/bias")
        weights = Variable(rng.normal(0, 0.2, (CLASSES, 4 * 4 * 4)).astype(np.float32), name="dense/weights")
        dense_bias = Variable(np.zeros(CLASSES, np.float32), name="dense/bias")
        h = ops.relu(ops.conv2d(x, filters, bias, padding="SAME"))
        h = ops.reshape(ops.max_pool2d(h, 2), [-1, 4 * 4 * 4])
        logits = ops.fully_connected(h, weights, dense_bias)
        onehot = ops.one_hot(labels, CLASSES)
        loss = ops.neg(ops.reduce_mean(ops.reduce_sum(onehot * ops.log_softmax(logits), -1)))
        variables = [filters, bias, weights, dense_bias]
        grads = gradients(loss, variables)
        train = group(*[v.assign(v - learning_rate * g) for v, g in zip(variables, grads)], name="train")
    return {"graph": graph, "x": x, "labels": labels, "logits": logits, "loss": loss, "train": train}


def batches(steps: int, batch: int = BATCH, seed: int = 1) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(batch, SIZE, SIZE, CHANNELS)).astype(np.float32),
             rng.integers(0, CLASSES, batch).astype(np.int32)) for _ in range(steps)]
