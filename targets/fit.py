"""`fit`: the training loop for a rillet Model on the XLA backend, from one CPU to several processes.

One jitted function per step (the graph's forward, gradients and optimizer assignments, lowered by
CompiledStep, plus the metrics) over one mesh of every device of every process; variables replicated, each
global batch split along the batch axis, each process feeding its own rows (`jax.distributed`; see
targets/distributed.py). The loop reads the step's loss back only now and then (a bar refresh, a
checkpoint, the epoch's end), so the device is never kept waiting for the host.

A run is reproducible from its seed: the shuffling is a numpy Generator seeded once, random ops draw from
`fold_in(PRNGKey(seed), step)`, and a checkpoint holds the variables (the optimizer's slots and step
counts among them, being Variables), the step, the epoch, the batch within it and the epoch's losses so
far, so that a resumed run gives the bits of one never interrupted. Ctrl-C or SIGTERM finishes the step
under way, writes a checkpoint and raises KeyboardInterrupt; a second one stops at once. (On a GPU, the
same bits from run to run also need XLA's deterministic ops: XLA_FLAGS=--xla_gpu_deterministic_ops=true.)
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from rillet.graph import Model, Tensor, ops

from .fit_checkpoint import (
    CheckpointFolder,
    CheckpointMismatchError,
    check_same_run,
    deferred_interrupts,
    read_variables,
)
from .fit_data import (
    ArraySource,
    DataSource,
    FitError,
    IterableSource,
    as_batch,
    check_batch,
    load_arrays,
    local_rows,
)
from .fit_log import ProgressBar, ScalarLog
from .fit_metrics import METRICS, loss_function, metric_functions
from .xla import BATCH_AXIS, CompiledStep

__all__ = ["METRICS", "CheckpointMismatchError", "FitError", "History", "fit"]

REFRESH_SECONDS = 0.5  # how often the loop reads losses back for the bar and the log
RING = 512  # steps whose losses the device keeps until the loop reads them (it reads at least this often)


class History(dict):
    """fit's result: name -> one value per epoch. `epoch_step_times`: each epoch of this call, its wall
    time over its steps (seconds a step, validation left out); `step_time`: their median without the first
    epoch, which waits for XLA's compile (None with fewer than two epochs)."""

    epoch_step_times: list[float]

    @property
    def step_time(self) -> float | None:
        """The median seconds a step, leaving out the first epoch (XLA's compile); None before two epochs."""
        times = getattr(self, "epoch_step_times", [])
        return float(np.median(times[1:])) if len(times) > 1 else None


def fit(model: Model, data: Any, *, loss: str | Callable, optimizer: Any, epochs: int = 1,
        batch_size: int = 32, validation: Any = None, metrics: Sequence[str | Callable] | Mapping = (),
        checkpoint_dir: str | Path | None = None, every: int | None = None, resume: bool = True,
        keep: int = 2, seed: int = 0, shuffle: bool = True, log_dir: str | Path | None = None,
        progress: bool = True, precision: str = "float32", labels: str = "labels", output: str | None = None,
        devices: Sequence[Any] | None = None) -> History:
    """Train `model` (a rillet.graph Model) and return its history: per epoch, "loss" and each metric
    (means over the epoch's steps), and "val_loss", "val_<metric>" over `validation` when given. The
    trained values are left in the model's graph (`model.graph.store`), ready for `rillet.convert`.

    data / validation: an (inputs, labels) tuple of arrays, a dict of arrays by input name and `labels`,
    an `.npz` path (the same keys, or x and y), or any iterable of such batches. Arrays are shuffled each
    epoch by `seed` and read as whole batches of `batch_size` (the global batch over every process and
    device; it must split evenly over them); iterables are read as they are.
    loss: `loss(labels, prediction) -> scalar`, or a name from rillet.graph.losses. For
    "softmax_cross_entropy" on an output that is a softmax, the softmax's input is taken as the logits
    (Keras does the same), so a classifier can output probabilities and still train on stable logits.
    optimizer: a rillet.graph.optimizers optimizer. metrics: names from METRICS or callables
    f(labels, prediction) on JAX arrays (a dict names them). output: which model output the loss and
    metrics take (default: the only one).
    checkpoint_dir / every / keep: a checkpoint every `every` steps and when the run ends or is stopped;
    `resume=True` continues from the newest one, bit for bit. log_dir: TensorBoard scalars (loss,
    metrics, learning rate, step time) through tensorboardX. precision="bfloat16": convolutions and
    matrix products in bfloat16, variables and everything else in float32.
    """
    return _Fit(model, data, loss, optimizer, epochs, batch_size, validation, metrics, checkpoint_dir, every,
                resume, keep, seed, shuffle, log_dir, progress, precision, labels, output, devices).run()


class _Fit:
    def __init__(self, model, data, loss, optimizer, epochs, batch_size, validation, metrics, checkpoint_dir,
                 every, resume, keep, seed, shuffle, log_dir, progress, precision, labels, output, devices):
        if not isinstance(model, Model):
            raise TypeError(f"fit trains a rillet.graph Model, got {type(model).__name__}")
        if precision not in ("float32", "bfloat16"):
            raise FitError(f'precision "{precision}": use "float32" or "bfloat16"')
        if every is not None and every < 1:
            raise FitError(f"every={every}: checkpoints are every N >= 1 steps")
        self.model, self.epochs, self.batch_size, self.seed = model, epochs, batch_size, seed
        self.metrics = metric_functions(metrics)
        self.every, self.resume = every, resume
        self.folder = CheckpointFolder(checkpoint_dir, keep) if checkpoint_dir is not None else None
        self.process, self.processes = jax.process_index(), jax.process_count()
        self.mesh = Mesh(np.asarray(devices or jax.devices()), (BATCH_AXIS,))
        self.replicated = NamedSharding(self.mesh, PartitionSpec())
        self.sharded = NamedSharding(self.mesh, PartitionSpec(BATCH_AXIS))
        self.output = output or self._only_output()
        self.input_names = list(model.inputs)
        if labels in model.inputs:
            raise FitError(f'the labels\' name "{labels}" is also a model input: pass labels="another name"')
        self.names = [*self.input_names, labels]
        self.source = self._source(data, shuffle)
        self.validation = self._validation_batches(validation)
        self._build(loss_function(loss), optimizer, labels, precision)
        self.progress = ProgressBar(progress and self.process == 0, epochs)
        self.log = ScalarLog(log_dir if self.process == 0 else None)
        self.learning_rate = optimizer.learning_rate

    # ---- the graph and its compiled steps ----

    def _only_output(self) -> str:
        if len(self.model.outputs) != 1:
            raise FitError(f"the model has outputs {sorted(self.model.outputs)}: name the loss's with output=")
        return next(iter(self.model.outputs))

    def _build(self, loss_fn: Callable, optimizer: Any, labels_name: str, precision: str) -> None:
        model, graph = self.model, self.model.graph
        if self.output not in model.outputs:
            raise FitError(f'output "{self.output}": the model has {sorted(model.outputs)}')
        with graph.as_default():
            trained = model(training=True)
            by_name = dict(zip(model.outputs, trained if isinstance(trained, list) else
                               trained.values() if isinstance(trained, dict) else [trained]))
            labels = self._labels_placeholder(graph, labels_name, by_name[self.output])
            train_loss = ops.as_tensor(loss_fn(labels, by_name[self.output]))
            eval_loss = ops.as_tensor(loss_fn(labels, model.outputs[self.output]))
            if train_loss.shape != ():
                raise FitError(f"the loss must be a scalar, it has shape {train_loss.shape}")
            train_op = optimizer.minimize(train_loss, model.trainable_variables)
        feeds = [*model.inputs.values(), labels]
        self.expected = {name: (p.shape, p.dtype) for name, p in zip(self.names, feeds)}
        compute = None if precision == "float32" else precision
        self.train_step = CompiledStep([train_loss, by_name[self.output], train_op], feeds,
                                       state_sharding=self.replicated, compute_dtype=compute)
        self.eval_step = CompiledStep([eval_loss, model.outputs[self.output]], feeds, compute_dtype=compute)
        self.variables = {name: graph.variables[name] for name in self.train_step.variable_names}
        missing = set(self.eval_step.variable_names) - set(self.variables)
        if missing:
            raise FitError(f"the model's outputs read variables the training step does not: {sorted(missing)}")
        metric_fns = list(self.metrics.values())
        key = jax.random.PRNGKey(self.seed)

        def train(state, feeds, step, ring):
            """One step; its loss and metrics go to row step % RING of `ring`, which the loop copies to the
            host now and then in one transfer of a fixed shape."""
            (loss, prediction, _), new_state = self.train_step.lower(state, feeds, jax.random.fold_in(key, step))
            ring = ring.at[step % RING].set(self._values(loss, feeds[-1], prediction, metric_fns))
            return new_state, step + 1, ring

        def evaluate(state, feeds):
            (loss, prediction), _ = self.eval_step.lower(state, feeds)
            return self._values(loss, feeds[-1], prediction, metric_fns)
        self._train = jax.jit(train, donate_argnums=(0, 2, 3))
        self._evaluate = jax.jit(evaluate)

    @staticmethod
    def _values(loss, labels, prediction, metric_fns):
        prediction = prediction.astype(jnp.float32)
        return jnp.stack([loss.astype(jnp.float32), *(jnp.asarray(m(labels, prediction), jnp.float32)
                                                        for m in metric_fns)])

    def _labels_placeholder(self, graph, name: str, prediction: Tensor) -> Tensor:
        sample = self.label_sample
        dtype = "int32" if sample.dtype.kind in "iu" else prediction.dtype
        shape = (None, *sample.shape[1:])
        existing = graph.placeholders.get(name)
        if existing is not None:  # fit called again on the same model
            if existing.shape != shape or existing.dtype != dtype:
                raise FitError(f'the graph already has an input "{name}" of shape {existing.shape} {existing.dtype}'
                               f"; these labels are {list(shape)} {dtype}: pass labels=\"another name\"")
            return existing
        return ops.placeholder(shape, dtype, name=name, graph=graph)

    # ---- data ----

    def _source(self, data: Any, shuffle: bool) -> DataSource:
        arrays = load_arrays(data, self.names)
        if arrays is not None:
            self.label_sample = arrays[self.names[-1]][:1]
            return ArraySource(arrays, self.batch_size, self.seed, shuffle)
        if not isinstance(data, Iterable):
            raise FitError(f"data must be arrays, an .npz path or an iterable of batches, got {type(data).__name__}")
        if iter(data) is data:  # a one-shot iterator: look at its first batch, then put it back
            first = next(data, None)
            if first is None:
                raise FitError("the data iterator is empty")
            source = IterableSource(itertools.chain([first], data), self.names, self.epochs)
        else:
            first = next(iter(data), None)
            if first is None:
                raise FitError("the data holds no batch")
            source = IterableSource(data, self.names, self.epochs)
        self.label_sample = as_batch(first, self.names)[self.names[-1]]
        return source

    def _validation_batches(self, validation: Any) -> list[dict[str, np.ndarray]] | None:
        if validation is None:
            return None
        arrays = load_arrays(validation, self.names)
        if arrays is None:
            return [as_batch(b, self.names) for b in validation]
        n = len(arrays[self.names[-1]])
        return [{k: a[i:i + self.batch_size] for k, a in arrays.items()} for i in range(0, n, self.batch_size)]

    def _place(self, batch: dict[str, np.ndarray], sharded: bool) -> tuple:
        """The global arrays of one batch: split over the mesh (each process giving its rows) or, for a batch
        that does not split evenly (validation's last), whole on every device."""
        local = local_rows(batch, self.process, self.processes) if sharded else batch
        sharding = self.sharded if sharded else self.replicated
        values = [np.asarray(local[name], dtype=self.expected[name][1]) for name in self.names]
        if self.processes == 1:  # one call for every feed: the per-step cost a hand-written loop also pays
            return tuple(jax.device_put(values, [sharding] * len(values)))
        return tuple(jax.make_array_from_process_local_data(sharding, value, batch[name].shape)
                     for name, value in zip(self.names, values))

    # ---- the loop ----

    def run(self) -> History:
        self.state = {name: jax.device_put(self.model.graph.store[name], self.replicated)
                      for name in self.variables}
        self.position = {"step": 0, "epoch": 0, "batch": 0}
        self.history: dict[str, list[float]] = {}
        self.epoch_values: list[list[float]] = []
        self.saved_step = -1
        self.pending = 0  # steps whose values are still only in the device's ring
        self.epoch_step_times: list[float] = []
        if self.folder is not None and self.resume:
            self._restore()
        self.step_array = jax.device_put(np.int32(self.position["step"]), self.replicated)
        self.ring = jax.device_put(np.zeros((RING, 1 + len(self.metrics)), np.float32), self.replicated)
        stopping = self.folder is not None
        try:
            with deferred_interrupts(stopping) as interrupt:
                self.interrupt = interrupt
                while self.position["epoch"] < self.epochs:
                    self._epoch()
        finally:
            self._finish()
        history = History(self.history)
        history.epoch_step_times = self.epoch_step_times
        return history

    def _epoch(self) -> None:
        """One epoch from the current position; KeyboardInterrupt once a stop was asked for."""
        epoch, start = self.position["epoch"], self.position["batch"]
        self.progress.start_epoch(epoch, self.source.steps_per_epoch, start)
        last_read = time.monotonic()
        window_start, window_steps = last_read, 0
        epoch_start, epoch_steps = last_read, 0
        checked = False
        for batch in self.source.epoch(epoch, start):
            if not (checked and self.source.uniform):
                check_batch(batch, self.expected, self.mesh.size)
                checked = True
            self.state, self.step_array, self.ring = self._train(self.state, self._place(batch, True),
                                                                 self.step_array, self.ring)
            self.pending += 1
            self.position = {"step": self.position["step"] + 1, "epoch": epoch, "batch": self.position["batch"] + 1}
            window_steps += 1
            epoch_steps += 1
            at_checkpoint = self.every is not None and self.position["step"] % self.every == 0
            if at_checkpoint or self.pending == RING or time.monotonic() - last_read > REFRESH_SECONDS:
                seconds = time.monotonic() - window_start
                self._read_back(seconds / window_steps)
                last_read = window_start = time.monotonic()
                window_steps = 0
            if at_checkpoint:
                self._save()
            if self._should_stop(at_checkpoint):
                raise KeyboardInterrupt(f"training stopped at step {self.position['step']}")
        self._read_back((time.monotonic() - window_start) / max(window_steps, 1))
        if self.processes > 1 and self._should_stop(True):  # every process ends an epoch at the same step
            raise KeyboardInterrupt(f"training stopped at step {self.position['step']}")
        if epoch_steps:
            self.epoch_step_times.append((time.monotonic() - epoch_start) / epoch_steps)
        self._end_epoch()

    def _should_stop(self, at_checkpoint: bool) -> bool:
        if self.processes == 1:
            return self.interrupt["stop"]
        if not at_checkpoint:  # every process must stop after the same step: agree where all of them meet
            return False
        from jax.experimental import multihost_utils

        return bool(np.max(multihost_utils.process_allgather(np.int32(self.interrupt["stop"]))))

    def _read_back(self, step_seconds: float | None = None) -> None:
        """The losses and metrics of the steps run since the last read, into the epoch's values, the bar
        and the log; the only place the loop waits for the device."""
        if not self.pending:
            return
        # this process's own copy of the replicated ring: no process runs a computation the others do not
        ring = np.asarray(self.ring.addressable_data(0), np.float64)
        first = self.position["step"] - self.pending + 1
        rows = ring[[(first - 1 + i) % RING for i in range(self.pending)]].tolist()
        self.pending = 0
        for i, row in enumerate(rows):
            self.log.scalars("train", self._named(row), first + i)
        self.epoch_values.extend(rows)
        extra = {"learning_rate": self._learning_rate()}
        if step_seconds is not None:
            extra["step_time"] = step_seconds
        self.log.scalars("train", extra, self.position["step"])
        self.progress.update(len(rows), self._named(self._means(self.epoch_values)))

    def _named(self, row: Sequence[float]) -> dict[str, float]:
        return dict(zip(["loss", *self.metrics], row))

    @staticmethod
    def _means(rows: list[list[float]]) -> list[float]:
        return [math.fsum(column) / len(rows) for column in zip(*rows)] if rows else []

    def _learning_rate(self) -> float:
        lr = self.learning_rate
        name = getattr(lr, "name", None)
        if name in self.state:
            return float(jax.device_get(self.state[name]))
        return float(lr) if isinstance(lr, (int, float, np.number)) else float("nan")

    def _end_epoch(self) -> None:
        epoch = self.position["epoch"]
        results = self._named(self._means(self.epoch_values))
        if self.validation is not None:
            results.update({f"val_{k}": v for k, v in self._validate().items()})
        for name, value in results.items():
            self.history.setdefault(name, []).append(value)
        self.log.scalars("epoch", results, epoch + 1)
        self.progress.update(0, results)
        self.epoch_values = []
        self.position = {"step": self.position["step"], "epoch": epoch + 1, "batch": 0}

    def _validate(self) -> dict[str, float]:
        totals, count = None, 0
        for batch in self.validation:
            size = check_batch(batch, self.expected, 1)
            values = self._evaluate(self.state, self._place(batch, size % self.mesh.size == 0))
            row = np.asarray(jax.device_get(values), np.float64) * size
            totals, count = (row if totals is None else totals + row), count + size
        return self._named([float(v) for v in totals / count]) if count else {}

    # ---- checkpoints ----

    def _run_fingerprint(self) -> dict:
        return {**self.source.fingerprint, "batch_size": self.batch_size, "seed": self.seed,
                "metrics": list(self.metrics)}

    def _save(self) -> None:
        if self.folder is None or self.position["step"] == self.saved_step:
            return
        if any(v.is_deleted() for v in self.state.values()):  # a step failed after taking its inputs
            return
        if self.process == 0:  # variables are replicated: one process writes them
            values = {name: np.asarray(v) for name, v in self.state.items()}
            state = {**self.position, **self._run_fingerprint(), "epoch_values": self.epoch_values,
                     "history": self.history}
            self.folder.save_values(self.position["step"], state, values)
        self.saved_step = self.position["step"]

    def _restore(self) -> None:
        found = self.folder.latest()
        if found is None:
            return
        state, path = found
        check_same_run(state, self._run_fingerprint(), path)
        expected = {name: (v.shape, v.dtype) for name, v in self.variables.items()}
        values = read_variables(path, expected)
        self.state = {name: jax.device_put(values[name], self.replicated) for name in self.variables}
        self.position = {k: int(state[k]) for k in ("step", "epoch", "batch")}
        self.history = {k: list(v) for k, v in state["history"].items()}
        self.epoch_values = [list(row) for row in state["epoch_values"]]
        self.saved_step = self.position["step"]

    def _finish(self) -> None:
        self.progress.close()
        try:
            if not self.ring.is_deleted():
                self._read_back()
            self._save()
        finally:
            self.log.close()
        if not any(v.is_deleted() for v in self.state.values()):
            for name, value in self.state.items():
                self.variables[name].load(np.asarray(value))
