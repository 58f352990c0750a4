"""What a training run shows while it runs: a tqdm bar per epoch with the running loss and metrics, and
TensorBoard scalars through tensorboardX (the `desktop` extra). Both are optional: without tqdm there is
no bar; asking for a log_dir without tensorboardX is an error that says what to install."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class ProgressBar:
    """One tqdm bar per epoch; nothing when disabled or tqdm is absent."""

    def __init__(self, enabled: bool, epochs: int):
        self.epochs = epochs
        self._bar: Any = None
        self._tqdm = None
        if enabled:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                return
            self._tqdm = tqdm

    def start_epoch(self, epoch: int, total: int | None, done: int) -> None:
        self.close()
        if self._tqdm is not None:
            self._bar = self._tqdm(total=total, initial=done, desc=f"epoch {epoch + 1}/{self.epochs}",
                                   unit="step", leave=True, dynamic_ncols=True)

    def update(self, steps: int, values: Mapping[str, float]) -> None:
        if self._bar is not None:
            self._bar.update(steps)
            self._bar.set_postfix({k: f"{v:.4g}" for k, v in values.items()}, refresh=False)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class ScalarLog:
    """TensorBoard scalars under log_dir (train/<name> per step, epoch/<name> per epoch)."""

    def __init__(self, log_dir: Any):
        self._writer = None
        if log_dir is None:
            return
        try:
            from tensorboardX import SummaryWriter
        except ImportError:
            raise ImportError("fit(log_dir=...) writes TensorBoard scalars through tensorboardX: "
                              "pip install 'rillet[desktop]' (or tensorboardX)") from None
        self._writer = SummaryWriter(str(log_dir))

    def scalars(self, prefix: str, values: Mapping[str, float], step: int) -> None:
        if self._writer is not None:
            for name, value in values.items():
                self._writer.add_scalar(f"{prefix}/{name}", value, step)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
