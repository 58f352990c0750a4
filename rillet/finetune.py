"""Fine-tuning the bundled digits model's head on the device: the training file (convolutions frozen, the
dense head trainable with Adam) and the loop that trains it through rillet's runtime, one C call a step.
`rillet demo` and examples/finetune_on_device.py both use it. Making the file needs the graph and the
converter (numpy only, no JAX); training it needs only `rillet.runtime`."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np


def shifted(images: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """[n, h, w, c] images moved by (dy, dx) pixels, blank (0) where they move away from: a new writer's
    style the model never saw."""
    out = np.zeros_like(images)
    h, w = images.shape[1:3]
    out[:, max(dy, 0):h + min(dy, 0), max(dx, 0):w + min(dx, 0)] = images[:, max(-dy, 0):h - max(dy, 0),
                                                                          max(-dx, 0):w - max(dx, 0)]
    return out


def head_training_file(learning_rate: float, frozen_int8: bool = False) -> bytes:
    """The bundled inference model as a training file (`infer`, `train`, `save`, `restore` signatures)
    whose only trainable layer is the dense head ("logits"); the loss takes the logits under its softmax.
    frozen_int8: the frozen convolutions run int8 (quantized with the bundled calibration images, as the
    deployed int8 model is), the head stays float: fine-tuning a quantized model's head."""
    import rillet as rl
    from rillet.bundled import bundled_model_path, digits_calibration_images
    from rillet.graph import losses, optimizers

    model = rl.to_graph(str(bundled_model_path()))
    logits = model.outputs["probs"].node.inputs[0]

    def loss(labels: Any, _probs: Any) -> Any:
        return losses.softmax_cross_entropy(labels, logits)

    spec = rl.TrainSpec(loss=loss, optimizer=optimizers.Adam(learning_rate), trainable=["logits"],
                        label_dtype="int32", frozen_int8=digits_calibration_images() if frozen_int8 else None)
    return rl.convert(model, train=spec)


def accuracy(infer: Any, images: np.ndarray, labels: np.ndarray) -> tuple[float, np.ndarray]:
    probs = infer(image=images)["probs"]
    return float(np.mean(probs.argmax(-1) == labels)), probs


@dataclass
class FineTuneRun:
    steps: int
    seconds: float
    epoch_losses: list[float]

    @property
    def ms_per_step(self) -> float:
        return 1e3 * self.seconds / max(1, self.steps)


def train_head(interpreter: Any, images: np.ndarray, labels: np.ndarray, epochs: int, batch: int,
               seed: int = 1) -> FineTuneRun:
    """Shuffled epochs of whole batches (one shape, so one prepared plan) through the `train` signature."""
    train = interpreter.get_signature_runner("train")
    rs = np.random.default_rng(seed)
    steps, epoch_losses, started = 0, [], time.perf_counter()
    for _ in range(epochs):
        order, losses_now = rs.permutation(len(labels)), []
        for start in range(0, len(order) - batch + 1, batch):
            index = order[start:start + batch]
            losses_now.append(float(train(image=images[index], y=labels[index])["loss"]))
            steps += 1
        epoch_losses.append(float(np.mean(losses_now)) if losses_now else float("nan"))
    return FineTuneRun(steps, time.perf_counter() - started, epoch_losses)
