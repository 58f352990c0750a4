"""Training a `.tflite` that has a `train` signature on the device runtime (rillet's C runtime, no JAX):
seeded shuffled epochs over arrays or an `.npz`, a progress bar, checkpoints every N steps and when the run
ends or is stopped (the interpreter's own atomic save_checkpoint, plus the run's position in
checkpoint.json, as `fit` writes them), and resuming from the newest one with the same losses as a run
never interrupted. What `rillet train model.tflite` runs.

A file `rillet trainable` wrote records its loss: with a classification loss (softmax or sigmoid
cross-entropy) each epoch also reports the accuracy of the `infer` signature's predictions on each batch just
before its step, and validation data (held-out arrays, or a fraction of the data set aside before shuffling)
is scored by `infer` after each epoch: val_accuracy, and val_loss where `infer`'s output is float. Where the
loss reads a tensor inside the model (`trainable(output=...)`), the file's `score` signature gives it instead.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from .fit_checkpoint import CheckpointFolder, CheckpointMismatchError, check_same_run, deferred_interrupts
from .fit_data import ArraySource, FitError, check_batch, load_arrays
from .fit_log import ProgressBar

DEFAULT_BATCH = 32
CLASSIFICATION = ("softmax_cross_entropy", "sigmoid_cross_entropy")


class DeviceTrainer:
    """The `train` signature of the model at `model_path`: its inputs (the data's names, labels among
    them), its loss output and its batch size (fixed by the file, or free)."""

    def __init__(self, model_path: str | os.PathLike, threads: int = 1, signature: str = "train"):
        from rillet.runtime import Interpreter

        self.interpreter = Interpreter(model_path=os.fspath(model_path), num_threads=threads)
        signatures = self.interpreter.get_signature_list()
        if signature not in signatures:
            raise FitError(f"{os.fspath(model_path)} has no {signature!r} signature (it has {sorted(signatures)})")
        self.runner = self.interpreter.get_signature_runner(signature)
        details = self.runner.get_input_details()
        self.names = list(signatures[signature]["inputs"])
        self.expected = {name: (tuple(None if d < 0 else int(d) for d in details[name]["shape_signature"]),
                                np.dtype(details[name]["dtype"]).name) for name in self.names}
        outputs = list(signatures[signature]["outputs"])
        self.loss_name = "loss" if "loss" in outputs else outputs[0]
        batch_dims = {shape[0] for shape, _ in self.expected.values() if shape}
        self.fixed_batch = batch_dims.pop() if len(batch_dims) == 1 and None not in batch_dims else None
        self.task = _task(model_path)
        self.infer = None
        # the loss's tensor: one of infer's outputs, or (a loss inside the model) the `score` signature's
        scoring = next((key for key in ("infer", "score") if self.task is not None and key in signatures
                        and self.task.get("output") in signatures[key]["outputs"]), None)
        if scoring is not None:
            self.infer = self.interpreter.get_signature_runner(scoring)
            self.infer_inputs = list(signatures[scoring]["inputs"])
            out = self.infer.get_output_details()[self.task["output"]]
            scale, zero = out.get("quantization", (0.0, 0))
            self.output_scale = (float(scale), int(zero)) if out["dtype"] != np.float32 and scale else None

    @property
    def classifies(self) -> bool:
        """Whether the file's loss is a classification one, so that an accuracy means something."""
        return self.infer is not None and self.task.get("loss") in CLASSIFICATION

    def predict(self, batch: dict[str, np.ndarray]) -> np.ndarray:
        """`infer`'s output the loss reads, as float (a quantized output dequantized with its scale)."""
        value = np.asarray(self.infer(**{n: batch[n] for n in self.infer_inputs})[self.task["output"]])
        if self.output_scale is not None:
            scale, zero = self.output_scale
            return (value.astype(np.float32) - zero) * scale
        return value.astype(np.float32)

    def score(self, batch: dict[str, np.ndarray]) -> tuple[float, int, int]:
        """(summed loss, correct, counted) of `infer` on `batch` against its labels: the loss is NaN for a
        quantized output (probabilities rounded to zero make the log meaningless); correct and counted are
        classes (softmax: argmax against the index; sigmoid: each element against 0/1) when classifying."""
        prediction, labels = self.predict(batch), np.asarray(batch[self.names[-1]])
        loss = self.task["loss"]
        if loss == "softmax_cross_entropy":
            classes = prediction.reshape(-1, prediction.shape[-1])
            index = labels.reshape(-1).astype(np.int64)
            correct, count = int((classes.argmax(-1) == index).sum()), len(index)
            picked = classes[np.arange(len(index)), index]
            summed = float(-np.log(np.maximum(picked, 1e-30)).sum()) if self.output_scale is None else math.nan
            return summed, correct, count
        if loss == "sigmoid_cross_entropy":
            p, t = prediction.reshape(-1), labels.reshape(-1).astype(np.float32)
            correct, count = int(((p >= 0.5) == (t >= 0.5)).sum()), len(t)
            if self.output_scale is not None:
                return math.nan, correct, count
            p = np.clip(p, 1e-7, 1 - 1e-7)
            per_row = t.size // max(len(labels), 1)
            return float(-(t * np.log(p) + (1 - t) * np.log(1 - p)).sum() / per_row), correct, count
        if loss == "mse":
            error = (prediction - labels.reshape(prediction.shape).astype(np.float32)) ** 2
            per_row = error.reshape(len(error), -1).mean(-1) if error.ndim else error
            return (float(per_row.sum()) if self.output_scale is None else math.nan), 0, 0
        return math.nan, 0, 0

    def evaluate(self, data: Any, batch_size: int | None = None) -> dict[str, float]:
        """val_loss (mean per example; where infer's output is float) and val_accuracy (classification) of
        `infer` on `data` (arrays or an .npz, as fit takes), in whole batches of the train signature's size."""
        if self.infer is None:
            raise FitError("validation needs a file `rillet trainable` wrote (its infer signature and loss)")
        arrays = load_arrays(data, self.names)
        if arrays is None:
            raise FitError("validation data must be arrays or an .npz file")
        arrays = {n: np.asarray(a, dtype=self.expected[n][1]) for n, a in arrays.items()}
        size = self.batch_size(batch_size)
        examples = len(next(iter(arrays.values())))
        # every example, the last batch smaller unless the file fixes the batch (then whole batches only)
        ends = range(size, examples + (size - 1 if self.fixed_batch is None else 0) + 1, size)
        summed, correct, count, scored = 0.0, 0, 0, 0
        for end in ends:
            batch = {n: a[end - size:min(end, examples)] for n, a in arrays.items()}
            check_batch(batch, {n: ((None, *s[1:]), d) for n, (s, d) in self.expected.items()}, 1)
            s, c, k = self.score(batch)
            summed, correct, count, scored = summed + s, correct + c, count + k, scored + min(end, examples) - end + size
        if not scored:
            raise FitError(f"{examples} validation examples make no whole batch of {size}")
        result = {}
        if not math.isnan(summed):
            result["val_loss"] = summed / scored
        if self.classifies and count:
            result["val_accuracy"] = correct / count
        return result

    def batch_size(self, requested: int | None) -> int:
        if self.fixed_batch is not None and requested not in (None, self.fixed_batch):
            raise FitError(f"the model's train signature takes batches of {self.fixed_batch}, not {requested}")
        return requested or self.fixed_batch or DEFAULT_BATCH

    def fit(self, data: Any, *, epochs: int = 1, batch_size: int | None = None, checkpoint_dir: Any = None,
            every: int | None = None, resume: bool = True, keep: int = 2, seed: int = 0, shuffle: bool = True,
            progress: bool = True, validation: Any = None, validation_split: float = 0.0,
            on_epoch: Any = None) -> dict[str, list[float]]:
        """Train for `epochs` over `data` (an (inputs..., labels) tuple, a dict by the signature's input
        names, or an .npz with those keys); returns {"loss": [mean loss of each epoch]}, with "accuracy"
        for a classification loss, and "val_loss" / "val_accuracy" with `validation` (data as `data`) or
        `validation_split` (that fraction of the examples, the last ones, held out). on_epoch(epoch, values)
        is called after each epoch with that epoch's values."""
        arrays = load_arrays(data, self.names)
        if arrays is None:
            raise FitError("the device trainer reads arrays or an .npz file, not an iterable of batches")
        size = self.batch_size(batch_size)
        arrays = {n: np.asarray(a, dtype=self.expected[n][1]) for n, a in arrays.items()}
        if validation is not None and validation_split:
            raise FitError("give validation data or a validation split, not both")
        if not 0.0 <= validation_split < 1.0:
            raise FitError(f"validation split {validation_split:g}: must be in [0, 1)")
        if (validation is not None or validation_split) and self.infer is None:
            raise FitError("validation needs a file `rillet trainable` wrote (its infer signature and loss)")
        if validation_split:
            examples = len(next(iter(arrays.values())))
            held = int(round(examples * validation_split))
            if held < size:
                raise FitError(f"a validation split of {validation_split:g} holds out {held} of {examples} "
                               f"examples, less than one batch of {size}")
            validation = {n: a[examples - held:] for n, a in arrays.items()}
            arrays = {n: a[:examples - held] for n, a in arrays.items()}
        metrics = ["accuracy"] if self.classifies else []
        source = ArraySource(arrays, size, seed, shuffle)
        folder = CheckpointFolder(checkpoint_dir, keep) if checkpoint_dir is not None else None
        run = {**source.fingerprint, "metrics": metrics}
        position, history, epoch_values = {"step": 0, "epoch": 0, "batch": 0}, {"loss": []}, []
        for name in metrics:
            history[name] = []
        if validation is not None:
            if self.output_scale is None:  # a quantized output's probabilities make no loss (score)
                history["val_loss"] = []
            if self.classifies:
                history["val_accuracy"] = []
        if folder is not None and resume and (found := folder.latest()) is not None:
            state, path = found
            check_same_run(state, run, path)
            try:
                self.interpreter.restore_checkpoint(path)
            except ValueError as e:
                raise CheckpointMismatchError(f"{e} (another model's checkpoint)") from None
            position = {k: int(state[k]) for k in ("step", "epoch", "batch")}
            history, epoch_values = state["history"], state["epoch_values"]
        saved = position["step"]
        bar = ProgressBar(progress, epochs)

        def save() -> None:
            nonlocal saved
            if folder is not None and position["step"] != saved:
                state = {**position, **run, "epoch_values": epoch_values, "history": history}
                folder.save(position["step"], state, self.interpreter.save_checkpoint)
                saved = position["step"]
        try:
            with deferred_interrupts(folder is not None) as interrupt:
                while position["epoch"] < epochs:
                    epoch = position["epoch"]
                    bar.start_epoch(epoch, source.steps_per_epoch, position["batch"])
                    for batch in source.epoch(epoch, position["batch"]):
                        check_batch(batch, {n: ((None, *s[1:]), d) for n, (s, d) in self.expected.items()}, 1)
                        # the accuracy of the weights this step starts from, as Keras counts a running one
                        correct = self.score(batch)[1:] if metrics else ()
                        loss = float(self.runner(**batch)[self.loss_name])
                        epoch_values.append([loss, *correct])
                        position = {"step": position["step"] + 1, "epoch": epoch, "batch": position["batch"] + 1}
                        bar.update(1, _epoch_means(epoch_values, metrics))
                        if every is not None and position["step"] % every == 0:
                            save()
                        if interrupt["stop"]:
                            raise KeyboardInterrupt(f"training stopped at step {position['step']}")
                    values = _epoch_means(epoch_values, metrics)
                    if validation is not None:
                        values.update(self.evaluate(validation, size))
                    for name in history:
                        history[name].append(values.get(name, math.nan))
                    if on_epoch is not None:
                        on_epoch(epoch, values)
                    epoch_values = []
                    position = {"step": position["step"], "epoch": epoch + 1, "batch": 0}
        finally:
            bar.close()
            save()
        return history


def _epoch_means(epoch_values: list[list[float]], metrics: list[str]) -> dict[str, float]:
    """The epoch's mean loss so far and, with "accuracy", the fraction its steps classified right."""
    values = {"loss": math.fsum(v[0] for v in epoch_values) / len(epoch_values)}
    if metrics:
        counted = sum(v[2] for v in epoch_values)
        values["accuracy"] = sum(v[1] for v in epoch_values) / counted if counted else math.nan
    return values


def _task(model_path: str | os.PathLike) -> dict[str, Any] | None:
    from rillet.converter.format import ModelView
    from rillet.converter.trainable import task_of

    with open(model_path, "rb") as f:
        return task_of(ModelView(f.read()))
