"""Training a `.tflite` that has a `train` signature on the device runtime (rillet's C runtime, no JAX):
seeded shuffled epochs over arrays or an `.npz`, a progress bar, checkpoints every N steps and when the run
ends or is stopped (the interpreter's own atomic save_checkpoint, plus the run's position in
checkpoint.json, as `fit` writes them), and resuming from the newest one with the same losses as a run
never interrupted. What `rillet train model.tflite` runs.
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

    def batch_size(self, requested: int | None) -> int:
        if self.fixed_batch is not None and requested not in (None, self.fixed_batch):
            raise FitError(f"the model's train signature takes batches of {self.fixed_batch}, not {requested}")
        return requested or self.fixed_batch or DEFAULT_BATCH

    def fit(self, data: Any, *, epochs: int = 1, batch_size: int | None = None, checkpoint_dir: Any = None,
            every: int | None = None, resume: bool = True, keep: int = 2, seed: int = 0, shuffle: bool = True,
            progress: bool = True) -> dict[str, list[float]]:
        """Train for `epochs` over `data` (an (inputs..., labels) tuple, a dict by the signature's input
        names, or an .npz with those keys); returns {"loss": [mean loss of each epoch]}."""
        arrays = load_arrays(data, self.names)
        if arrays is None:
            raise FitError("the device trainer reads arrays or an .npz file, not an iterable of batches")
        size = self.batch_size(batch_size)
        arrays = {n: np.asarray(a, dtype=self.expected[n][1]) for n, a in arrays.items()}
        source = ArraySource(arrays, size, seed, shuffle)
        folder = CheckpointFolder(checkpoint_dir, keep) if checkpoint_dir is not None else None
        run = {**source.fingerprint, "metrics": []}
        position, history, epoch_values = {"step": 0, "epoch": 0, "batch": 0}, {"loss": []}, []
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
                        loss = float(self.runner(**batch)[self.loss_name])
                        epoch_values.append([loss])
                        position = {"step": position["step"] + 1, "epoch": epoch, "batch": position["batch"] + 1}
                        bar.update(1, {"loss": math.fsum(v[0] for v in epoch_values) / len(epoch_values)})
                        if every is not None and position["step"] % every == 0:
                            save()
                        if interrupt["stop"]:
                            raise KeyboardInterrupt(f"training stopped at step {position['step']}")
                    history["loss"].append(math.fsum(v[0] for v in epoch_values) / len(epoch_values))
                    epoch_values = []
                    position = {"step": position["step"], "epoch": epoch + 1, "batch": 0}
        finally:
            bar.close()
            save()
        return history
