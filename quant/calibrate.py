"""Calibration: turn what the user gives (an array, an .npz, any iterable) into model feeds, run the float
model over them with every tensor kept, and collect per-tensor statistics (min/max, histograms)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rillet.converter.format import ModelFile

HISTOGRAM_BINS = 2048
HUGE = 1e30  # values this large stand for infinities (float's lowest as a max pool's padding)


class CalibrationError(ValueError):
    """Calibration data that does not fit the model; the message names the input and the shapes."""


@dataclass
class InputSpec:
    name: str  # the signature's name where there is one, else the tensor's
    index: int
    shape: list[int]
    signature: list[int]  # -1 where the dimension may vary
    dtype: np.dtype  # float32 mostly; a float model may take other inputs too (an IF's bool condition)

    def fits(self, shape: tuple[int, ...]) -> bool:
        return len(shape) == len(self.signature) and all(s in (-1, d) for s, d in zip(self.signature, shape))


def model_inputs(model: ModelFile) -> list[InputSpec]:
    sg = model.subgraphs[0]
    names = {}
    for sd in model.signature_defs or []:
        if sd.subgraph_index == 0:
            names.update({m.tensor_index: m.name for m in sd.inputs})
    specs = []
    for i in sg.inputs:
        t = sg.tensors[i]
        shape = list(t.shape or [])
        specs.append(InputSpec(names.get(i, t.name or f"input{i}"), i, shape,
                               list(t.shape_signature) if t.shape_signature else shape, t.dtype))
    return specs


def feeds(data: Any, model: ModelFile) -> list[dict[int, np.ndarray]]:
    """The calibration samples as {input tensor index: array} feeds, each checked against the model."""
    specs = model_inputs(model)
    if isinstance(data, (str, os.PathLike)):
        with np.load(data) as npz:
            data = {k: npz[k] for k in npz.files}
    if isinstance(data, np.lib.npyio.NpzFile):
        data = {k: data[k] for k in data.files}
    if isinstance(data, np.ndarray):
        data = {specs[0].name: data} if len(specs) == 1 else _wrong_count(specs, 1)
    if isinstance(data, dict):
        return _split_dict(data, specs)
    if isinstance(data, Iterable):
        return [_one_feed(item, specs, n) for n, item in enumerate(data)]
    raise CalibrationError(f"calibration data must be a numpy array, an .npz, or an iterable of inputs, "
                           f"not {type(data).__name__}")


def _wrong_count(specs: list[InputSpec], given: int) -> Any:
    raise CalibrationError(f"the model has {len(specs)} inputs ({', '.join(s.name for s in specs)}); "
                           f"calibration data gave {given}: pass a dict or .npz keyed by input name")


def _match_keys(data: dict, specs: list[InputSpec]) -> dict[int, np.ndarray]:
    if len(specs) == 1 and len(data) == 1:
        return {specs[0].index: np.asarray(next(iter(data.values())))}
    missing = [s.name for s in specs if s.name not in data]
    if missing:
        raise CalibrationError(f"calibration data has {sorted(data)}, the model's inputs are "
                               f"{[s.name for s in specs]}: missing {missing}")
    return {s.index: np.asarray(data[s.name]) for s in specs}


def _samples_in(spec: InputSpec, a: np.ndarray) -> list[np.ndarray] | None:
    """A stack of samples on axis 0 (as [N, *shape] with a batch of 1, or [N, *shape]), else None: one sample."""
    if list(a.shape) == spec.shape:
        return None
    if a.ndim == len(spec.shape) and spec.shape[:1] == [1] and spec.fits((1, *a.shape[1:])):
        return [a[k:k + 1] for k in range(a.shape[0])]
    if a.ndim == len(spec.shape) + 1 and spec.fits(a.shape[1:]):
        return [a[k] for k in range(a.shape[0])]
    if spec.fits(a.shape):
        return None
    raise _shape_error(spec, a.shape)


def _split_dict(data: dict, specs: list[InputSpec]) -> list[dict[int, np.ndarray]]:
    """A dict of arrays: each either one sample (the input's own shape) or a stack of samples on axis 0."""
    arrays = _match_keys(data, specs)
    stacks = {s.index: _samples_in(s, arrays[s.index]) for s in specs}
    counts = {s.name: len(stacks[s.index]) for s in specs if stacks[s.index] is not None}
    if not counts:
        return [_one_feed({s.name: arrays[s.index] for s in specs}, specs, 0)]
    if len(set(counts.values())) != 1 or len(counts) != len(specs):
        raise CalibrationError(f"calibration inputs hold different numbers of samples: {counts}")
    n = next(iter(counts.values()))
    return [_one_feed({s.name: stacks[s.index][k] for s in specs}, specs, k) for k in range(n)]


def _one_feed(item: Any, specs: list[InputSpec], n: int) -> dict[int, np.ndarray]:
    if isinstance(item, dict):
        arrays = _match_keys(item, specs)
    elif isinstance(item, (list, tuple)) and not (len(specs) == 1 and np.ndim(item) > 1 and
                                                   not isinstance(item[0], np.ndarray)):
        if len(item) != len(specs):
            _wrong_count(specs, len(item))
        arrays = {s.index: np.asarray(a) for s, a in zip(specs, item)}
    else:
        if len(specs) != 1:
            _wrong_count(specs, 1)
        arrays = {specs[0].index: np.asarray(item)}
    out = {}
    for s in specs:
        a = arrays[s.index]
        if not s.fits(a.shape) and s.fits((1, *a.shape)):
            a = a[None]
        if not s.fits(a.shape):
            raise _shape_error(s, a.shape, n)
        out[s.index] = np.ascontiguousarray(a, dtype=s.dtype)
    return out


def _shape_error(spec: InputSpec, shape: tuple[int, ...], sample: int | None = None) -> CalibrationError:
    where = f" (sample {sample})" if sample is not None else ""
    return CalibrationError(f"calibration input {spec.name!r}{where} has shape {list(shape)}; the model's input "
                            f"{spec.name!r} expects {spec.signature} (or a stack of those on a first axis)")


# ------------------------------------------------------------------------------------------ statistics


@dataclass
class TensorStats:
    """What calibration saw of one float tensor: its range, and a histogram over [lo, hi] when asked."""

    lo: float = np.inf
    hi: float = -np.inf
    # the range of its values below HUGE in magnitude: a max pool's -inf (or float-lowest) padding is no range
    # of the tensor it pads
    finite_lo: float = np.inf
    finite_hi: float = -np.inf
    histogram: np.ndarray | None = None
    edges: np.ndarray | None = field(default=None, repr=False)

    def add_range(self, a: np.ndarray) -> None:
        if a.size:
            lo, hi = float(a.min()), float(a.max())
            self.lo, self.hi = min(self.lo, lo), max(self.hi, hi)
            if not (-HUGE < lo and hi < HUGE):
                a = a[np.abs(a) < HUGE]
                lo, hi = (float(a.min()), float(a.max())) if a.size else (np.inf, -np.inf)
            self.finite_lo, self.finite_hi = min(self.finite_lo, lo), max(self.finite_hi, hi)

    def add_histogram(self, a: np.ndarray) -> None:
        a = a[np.abs(a) < HUGE] if not (-HUGE < self.lo and self.hi < HUGE) else a
        if self.histogram is None:
            lo, hi = min(self.finite_lo, 0.0), max(self.finite_hi, 0.0)
            if hi == lo:
                hi = lo + 1.0
            self.edges = np.linspace(lo, hi, HISTOGRAM_BINS + 1)
            self.histogram = np.zeros(HISTOGRAM_BINS, np.int64)
        # HISTOGRAM_BINS equal bins over the float64 range: numpy's equal-bin path (an index by arithmetic,
        # checked against these same edges) counts as the edges array would, without sorting the values
        self.histogram += np.histogram(a, bins=HISTOGRAM_BINS, range=(np.float64(self.edges[0]),
                                                                      np.float64(self.edges[-1])))[0]


def progress(iterable: Iterable, total: int, desc: str, enabled: bool) -> Iterator:
    """tqdm where it is installed; otherwise a plain count on stderr."""
    if not enabled:
        yield from iterable
        return
    try:
        from tqdm import tqdm
    except ImportError:
        import sys

        for n, item in enumerate(iterable, 1):
            yield item
            print(f"\r{desc}: {n}/{total}", end="" if n < total else "\n", file=sys.stderr, flush=True)
        return
    yield from tqdm(iterable, total=total, desc=desc, leave=False)


def float_activations(model: ModelFile, subgraph: int = 0) -> list[int]:
    """The float32 tensors of `subgraph` that carry data at run time (not constants): those calibration
    measures. An LSTM's own tensors (its state and intermediates) are not among them: the interpreter does
    not show them, quant/lstm.py's replay records them."""
    from .lstm import internal_tensors

    sg = model.subgraphs[subgraph]
    internal = internal_tensors(model, subgraph)
    out = []
    for i, t in enumerate(sg.tensors):
        data = model.buffers[t.buffer].data if t.buffer < len(model.buffers) else None
        if t.type == 0 and (data is None or data.size == 0) and i not in internal:
            out.append(i)
    return out


def allocate_for(interpreter: Any, shapes: list[tuple[int, ...]]) -> None:
    """Sizes the interpreter's inputs (in order) to `shapes`, then allocates: an open axis (-1) stored as 1
    may not even prepare at the stored shape (a convolution window wider than one sample)."""
    for detail, shape in zip(interpreter.get_input_details(), shapes):
        if list(detail["shape"]) != list(shape):
            interpreter.resize_tensor_input(detail["index"], shape)
    interpreter.allocate_tensors()


def run_model(interpreter: Any, feed: dict[int, np.ndarray], tensors: list[int]) -> dict[int, np.ndarray]:
    """Sets `feed`, invokes, and returns the values of `tensors` (those the interpreter kept)."""
    shapes = {d["index"]: list(d["shape"]) for d in interpreter.get_input_details()}
    if any(shapes[i] != list(v.shape) for i, v in feed.items()):
        for index, value in feed.items():
            interpreter.resize_tensor_input(index, value.shape)
        interpreter.allocate_tensors()
    for index, value in feed.items():
        interpreter.set_tensor(index, value)
    interpreter.invoke()
    values = {}
    for i in tensors:
        try:
            values[i] = interpreter.get_tensor(i)
        except ValueError:  # an intermediate the interpreter did not keep
            continue
    return values


def collect(model_bytes: bytes, model: ModelFile, samples: list[dict[int, np.ndarray]],
            interpreter_class: Callable, histograms: bool,
            show_progress: bool) -> dict[int, dict[int, TensorStats]]:
    """Runs the float model over every sample: min/max of each float activation of each subgraph; a second
    pass for the histograms (their bins span the range the first pass found). Subgraphs that IF, WHILE and
    CALL_ONCE call are seen at each call (quant/subgraphs.py replays them)."""
    from .lstm import Replay, lstm_ops
    from .subgraphs import can_replay, replay_calls, subgraph_values

    tensors = {k: float_activations(model, k) for k in range(len(model.subgraphs))}
    stats = {k: {i: TensorStats() for i in ts} for k, ts in tensors.items()}
    interpreter = interpreter_class(model_content=model_bytes, experimental_preserve_all_tensors=True)
    several = len(model.subgraphs) > 1
    if several and not can_replay(interpreter):
        name = f"{interpreter_class.__module__}.{interpreter_class.__qualname__}"
        raise CalibrationError(f"calibrating a model with {len(model.subgraphs)} subgraphs runs them one at a "
                               f"time, which rillet's Interpreter does and {name} does not (--executor rillet, or interpreter_class=None)")
    allocate_for(interpreter, [samples[0][spec.index].shape for spec in model_inputs(model)])
    lstm = Replay(model) if lstm_ops(model) else None  # its state carries on across samples and passes,
    # as the interpreter's does
    passes = [("calibrating", TensorStats.add_range)]
    if histograms:
        passes.append(("histograms", TensorStats.add_histogram))
    for desc, add in passes:
        def record(k: int, values: dict[int, np.ndarray], add: Callable = add) -> None:
            for i in tensors[k]:
                if i in values:
                    add(stats[k][i], np.asarray(values[i]))

        for feed in progress(samples, len(samples), desc, show_progress):
            values = run_model(interpreter, feed, tensors[0])
            record(0, values)
            if lstm:
                lstm.record(values, lambda i, a, add=add: add(stats[0].setdefault(i, TensorStats()), a))
            if several:
                replay_calls(interpreter, model, 0, subgraph_values(interpreter, model, 0), record)
    return {k: {i: s for i, s in sg_stats.items() if s.lo <= s.hi} for k, sg_stats in stats.items()}
