"""A small classifier and data for the fit tests and their worker processes (a few steps, seconds on CPU)."""

from __future__ import annotations

import numpy as np

from rillet.graph import Graph, Model, layers, optimizers

BATCH, CLASSES = 8, 3


def model(seed: int = 0, classes: int = CLASSES) -> Model:
    """image [batch, 6, 6, 1] -> probs [batch, classes]: conv-relu-maxpool, dense, softmax."""
    layers.set_seed(seed)
    graph = Graph()
    with graph.as_default():
        image = layers.Input((6, 6, 1), name="image")
        h = layers.Conv2D(4, 3, padding="same", activation="relu", name="conv")(image)
        h = layers.Flatten(name="flatten")(layers.MaxPool2D(2, name="pool")(h))
        probs = layers.Activation("softmax", name="probs")(layers.Dense(classes, name="logits")(h))
    return Model({"image": image}, {"probs": probs}, name="fit_net")


def data(examples: int = 40, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Images whose class is where the bright pixels are, so a few steps learn something."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, CLASSES, examples).astype(np.int32)
    images = rng.normal(0, 0.3, (examples, 6, 6, 1)).astype(np.float32)
    for i, c in enumerate(labels):
        images[i, 2 * c:2 * c + 2, :, 0] += 1.0
    return images, labels


def validation() -> tuple[np.ndarray, np.ndarray]:
    return data(examples=13, seed=2)  # 13: one whole batch and a part one


def classifier(seed: int = 0):
    return model(seed), data(), optimizers.Adam(0.01)
