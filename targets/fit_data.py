"""Training data for `fit` and the device trainer: arrays, `.npz` files or iterables of batches, read as
whole global batches in a seeded order that a resumed run can find again. Numpy only (no JAX), so the
device trainer shares it.

A batch is a dict: one array per model input, by input name, and the labels under the labels' name.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np


class FitError(ValueError):
    """Bad input to a training run: data of the wrong shape, an unknown metric, a checkpoint that is not
    this run's. The message names what the user gave."""


class DataSource:
    """Where batches come from. `epoch(index, start)` yields the epoch's global batches from batch `start`;
    `steps_per_epoch` is None when the source cannot tell before it has been read (an iterable)."""

    steps_per_epoch: int | None = None
    fingerprint: ClassVar[dict] = {}
    uniform = False  # every batch has the first one's shapes and dtypes (rows of the same arrays)

    def epoch(self, index: int, start: int = 0) -> Iterator[dict[str, np.ndarray]]:
        raise NotImplementedError


class ArraySource(DataSource):
    """Arrays with one row per example, shuffled every epoch by a numpy Generator seeded once: epoch e's
    order is the (e+1)-th permutation of that stream, so a resumed run replays the permutations before it."""

    uniform = True

    def __init__(self, arrays: dict[str, np.ndarray], batch_size: int, seed: int, shuffle: bool = True):
        lengths = {name: len(a) for name, a in arrays.items()}
        if len(set(lengths.values())) != 1:
            raise FitError(f"the data's arrays differ in length: {lengths}")
        self.arrays, self.batch_size, self.seed, self.shuffle = arrays, batch_size, seed, shuffle
        self.examples = next(iter(lengths.values()))
        # whole batches only: one compiled shape, and no small last batch weighing as much as a full one
        self.steps_per_epoch = self.examples // batch_size
        if self.steps_per_epoch == 0:
            raise FitError(f"{self.examples} examples make no whole batch of {batch_size}")
        self.fingerprint = {"examples": self.examples, "batch_size": batch_size, "seed": seed}

    def order(self, index: int) -> np.ndarray:
        if not self.shuffle:
            return np.arange(self.examples)
        if getattr(self, "_next", None) != index:  # a resumed run: replay the epochs before this one
            self._rng, self._next = np.random.default_rng(self.seed), 0
            for _ in range(index):
                self._rng.permutation(self.examples)
        self._next = index + 1
        return self._rng.permutation(self.examples)

    def epoch(self, index: int, start: int = 0) -> Iterator[dict[str, np.ndarray]]:
        order = self.order(index)
        for i in range(start, self.steps_per_epoch):
            rows = order[i * self.batch_size:(i + 1) * self.batch_size]
            yield {name: a[rows] for name, a in self.arrays.items()}


class IterableSource(DataSource):
    """Any iterable of batches, read again each epoch (a one-shot iterator serves one epoch only); its order
    is its own, so a resumed run skips the batches the interrupted epoch had already used."""

    def __init__(self, batches: Iterable, names: Sequence[str], epochs: int):
        if iter(batches) is batches and epochs > 1:
            raise FitError("an iterator of batches can be read once: pass a list or another re-iterable "
                           f"object for {epochs} epochs")
        self.batches, self.names = batches, list(names)
        self.steps_per_epoch = len(batches) if hasattr(batches, "__len__") else None

    def epoch(self, index: int, start: int = 0) -> Iterator[dict[str, np.ndarray]]:
        for i, batch in enumerate(self.batches):
            if i >= start:
                yield as_batch(batch, self.names)


def as_batch(batch: Any, names: Sequence[str]) -> dict[str, np.ndarray]:
    """One batch as name -> array: a dict by name, or (inputs, labels) where inputs is an array (one-input
    models), a sequence of arrays in input order, or a dict by input name. names: inputs..., labels."""
    if isinstance(batch, Mapping):
        missing = [n for n in names if n not in batch]
        if missing:
            raise FitError(f"a batch has no {missing} (it has {sorted(batch)})")
        return {n: np.asarray(batch[n]) for n in names}
    if not isinstance(batch, (tuple, list)) or len(batch) != 2:
        raise FitError(f"a batch must be (inputs, labels) or a dict by name, got {type(batch).__name__}")
    inputs, labels = batch
    input_names = names[:-1]
    if isinstance(inputs, Mapping):
        values = as_batch(inputs, input_names) if input_names else {}
    elif isinstance(inputs, (tuple, list)):
        if len(inputs) != len(input_names):
            raise FitError(f"a batch gives {len(inputs)} inputs, the model has {input_names}")
        values = dict(zip(input_names, map(np.asarray, inputs)))
    else:
        if len(input_names) != 1:
            raise FitError(f"the model has inputs {input_names}: give them as a dict by name")
        values = {input_names[0]: np.asarray(inputs)}
    values[names[-1]] = np.asarray(labels)
    return values


def load_arrays(data: Any, names: Sequence[str]) -> dict[str, np.ndarray] | None:
    """Arrays by name from an (x, y) tuple, a dict of arrays or an `.npz` path (keys: the input and labels names, or
    x and y for a one-input model); None when `data` is an iterable of batches instead."""
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        if not os.path.exists(path):
            raise FitError(f"data file {path} does not exist")
        with np.load(path, allow_pickle=False) as archive:
            found = dict(archive)
        if len(names) == 2 and names[0] not in found and {"x", "y"} <= set(found):
            return {names[0]: found["x"], names[1]: found.get(names[1], found["y"])}
        if names[-1] not in found and "y" in found:
            found[names[-1]] = found["y"]
        return as_batch(found, names)
    if isinstance(data, Mapping):
        return as_batch(data, names)
    if isinstance(data, tuple):  # a tuple is (inputs, labels); a list or any other iterable holds batches
        return as_batch(data, names)
    return None


def check_batch(batch: dict[str, np.ndarray], expected: dict[str, tuple[tuple, str]], divisor: int) -> int:
    """The batch size of `batch`, after checking every array against its placeholder's shape (None: any)
    and dtype kind; the batch must split evenly over `divisor` devices."""
    sizes = set()
    for name, (shape, dtype) in expected.items():
        value = batch[name]
        if value.ndim != len(shape) or any(s is not None and s != v for s, v in zip(shape, value.shape)):
            wanted = "[" + ", ".join("batch" if s is None else str(s) for s in shape) + "]"
            raise FitError(f'"{name}": a batch of shape {list(value.shape)}, the model takes {wanted}')
        if np.dtype(dtype).kind in "iu" and value.dtype.kind not in "iu":
            raise FitError(f'"{name}": {value.dtype} values, the model takes {dtype} (class indices)')
        sizes.add(value.shape[0] if value.ndim else None)
    if len(sizes) != 1 or None in sizes:
        raise FitError(f"a batch's arrays differ in their first (batch) dimension: "
                       f"{ {n: list(batch[n].shape) for n in expected} }")
    size = sizes.pop()
    if size % divisor:
        raise FitError(f"a batch of {size} does not split evenly over {divisor} devices")
    return size


def local_rows(batch: dict[str, np.ndarray], process: int, processes: int) -> dict[str, np.ndarray]:
    """This process's rows of a global batch: the process-th of `processes` equal, contiguous parts."""
    if processes == 1:
        return batch
    size = len(next(iter(batch.values())))
    part = size // processes
    return {name: a[process * part:(process + 1) * part] for name, a in batch.items()}
