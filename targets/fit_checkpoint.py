"""A training run's checkpoints in one folder, TensorFlow's CheckpointManager's way: each checkpoint is
the variables (`ckpt-<step>.npz`, by variable name, so `load_checkpoint` and `rillet convert --weights`
read it as it is) and `checkpoint.json`, the run's position (step, epoch, batch, the epoch's losses so far,
the history), which names its variables file and is replaced last. Every file is written to a temporary
beside it, flushed to disk and renamed, so a crash at any moment leaves the previous checkpoint whole.
Numpy only: the device trainer shares it.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import zipfile
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from rillet.atomic_file import write_atomically

from .fit_data import FitError

STATE_FILE = "checkpoint.json"
FORMAT = 1


class CheckpointMismatchError(FitError):
    """The checkpoint in checkpoint_dir was written by another model or another run (other variables,
    shapes, batch size, data or seed), so resuming from it cannot continue this run."""


def write_variables(f: Any, values: Mapping[str, np.ndarray]) -> None:
    """An .npz by variable name, written member by member (np.savez's keywords would clash with variables
    named "file" or "allow_pickle")."""
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as archive:
        for name, value in values.items():
            with archive.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asarray(value), allow_pickle=False)


class CheckpointFolder:
    """checkpoint_dir: `save` a checkpoint, `latest` the newest one; keeps the `keep` newest variable files."""

    def __init__(self, directory: str | os.PathLike, keep: int = 2):
        self.directory = Path(directory)
        self.keep = max(1, keep)

    def save(self, step: int, state: dict, write: Callable[[Path], None]) -> Path:
        """write(path) writes the variables file atomically (the XLA runner's values, or the device
        interpreter's own save_checkpoint); then the state naming it replaces the previous one."""
        self.directory.mkdir(parents=True, exist_ok=True)
        variables = self.directory / f"ckpt-{step}.npz"
        write(variables)
        text = json.dumps({"format": FORMAT, **state, "variables": variables.name}, indent=1)
        write_atomically(self.directory / STATE_FILE, lambda f: f.write(text.encode()))
        self._prune(variables.name)
        return variables

    def save_values(self, step: int, state: dict, values: Mapping[str, np.ndarray]) -> Path:
        return self.save(step, state, lambda path: write_atomically(path, lambda f: write_variables(f, values)))

    def latest(self) -> tuple[dict, Path] | None:
        """The newest checkpoint's state and its variables file, or None when there is none."""
        path = self.directory / STATE_FILE
        if not path.exists():
            return None
        try:
            state = json.loads(path.read_text())
        except ValueError as e:
            raise CheckpointMismatchError(f"{path} is not a rillet training checkpoint ({e})") from None
        if not isinstance(state, dict) or state.get("format") != FORMAT or "variables" not in state:
            raise CheckpointMismatchError(f"{path} is not a rillet training checkpoint (format {FORMAT})")
        variables = self.directory / state["variables"]
        if not variables.exists():
            raise CheckpointMismatchError(f"{path} names {variables.name}, which is missing")
        return state, variables

    def _prune(self, newest: str) -> None:
        def step_of(p: Path) -> int:
            try:
                return int(p.stem.split("-", 1)[1])
            except ValueError:
                return -1
        files = sorted((p for p in self.directory.glob("ckpt-*.npz") if step_of(p) >= 0), key=step_of)
        for old in files[:-self.keep]:
            if old.name != newest:
                old.unlink(missing_ok=True)


def read_variables(path: Path, expected: Mapping[str, tuple[tuple, str]]) -> dict[str, np.ndarray]:
    """The variables of a checkpoint, checked against this model's: the same names, shapes and dtypes."""
    with np.load(path, allow_pickle=False) as archive:
        values = {name: archive[name] for name in archive.files}
    missing, unknown = sorted(set(expected) - set(values)), sorted(set(values) - set(expected))
    if missing or unknown:
        raise CheckpointMismatchError(f"checkpoint {path} is another model's: variables missing {missing}, "
                                      f"not in this model {unknown}")
    for name, (shape, dtype) in expected.items():
        if values[name].shape != tuple(shape) or values[name].dtype != np.dtype(dtype):
            raise CheckpointMismatchError(
                f'checkpoint {path} is another model\'s: variable "{name}" is {values[name].dtype} '
                f"{list(values[name].shape)}, this model's is {dtype} {list(shape)}")
    return values


def check_same_run(state: dict, run: Mapping[str, Any], path: Path) -> None:
    """A checkpoint continues only the run that wrote it: the same batch size, data and seed."""
    for key, value in run.items():
        if key in state and state[key] != value:
            raise CheckpointMismatchError(f"checkpoint {path} was written with {key} {state[key]}, this run has "
                                          f"{value}: resuming would not continue it (resume=False or --no-resume starts over)")


@contextmanager
def deferred_interrupts(enabled: bool):
    """SIGINT and SIGTERM set a flag the loop reads between steps (a second one raises at once), so a
    stopped run checkpoints a consistent state. Only the main thread may set signal handlers."""
    flag = {"stop": False}
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield flag
        return
    signals = [signal.SIGINT, signal.SIGTERM]
    previous = {s: signal.getsignal(s) for s in signals}

    def handler(signum, frame):
        if flag["stop"]:
            raise KeyboardInterrupt
        flag["stop"] = True
    for s in signals:
        signal.signal(s, handler)
    try:
        yield flag
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
