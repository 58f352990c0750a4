"""`rillet bench model.tflite [--threads N] [--runs N]`: invoke latency of rillet, and of LiteRT with and
without XNNPACK when ai-edge-litert is installed, measured in the same run, with ratios."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("bench", help="invoke latency against LiteRT (with and without XNNPACK)")
    p.add_argument("model", help="path to a .tflite file")
    p.add_argument("--threads", type=int, default=1, help="threads for every interpreter (default 1)")
    p.add_argument("--runs", type=int, default=50, help="timed invokes per runtime (default 50)")
    p.set_defaults(func=run)


def _stats(times: list[float]) -> dict[str, float]:
    t = np.array(times) * 1e3
    return {"median_ms": float(np.median(t)), "p10_ms": float(np.percentile(t, 10)),
            "p90_ms": float(np.percentile(t, 90))}


def _time_interleaved(invokes: dict[str, Callable[[], None]], runs: int, blocks: int = 5,
                      warmup: int = 3) -> dict[str, dict[str, float]]:
    """Each runtime's invokes in `blocks` rounds, runtimes taking turns, so a slow spell of a shared machine
    falls on all of them. Within a block a runtime invokes back to back, as an app would; between turns a
    pause lets the last runtime's worker threads stop spinning before the next is timed."""
    for invoke in invokes.values():
        for _ in range(warmup):
            invoke()
    times: dict[str, list[float]] = {name: [] for name in invokes}
    per_block = [runs // blocks + (1 if b < runs % blocks else 0) for b in range(blocks)]
    for count in per_block:
        for name, invoke in invokes.items():
            time.sleep(0.01)
            for _ in range(count):
                start = time.perf_counter()
                invoke()
                times[name].append(time.perf_counter() - start)
    return {name: _stats(t) for name, t in times.items() if t}


def _ready(interpreter: Any, seed: int = 0) -> Callable[[], None]:
    rng = np.random.default_rng(seed)
    interpreter.allocate_tensors()
    for d in interpreter.get_input_details():
        shape, dtype = tuple(d["shape"]), np.dtype(d["dtype"])
        if dtype.kind == "f":
            x = rng.uniform(-1, 1, shape).astype(dtype)
        else:
            info = np.iinfo(dtype) if dtype.kind in "iu" else None
            x = rng.integers(info.min if info else 0, (info.max if info else 1) + 1, shape).astype(dtype)
        interpreter.set_tensor(d["index"], x)
    return interpreter.invoke


def bench_model(path: str, threads: int = 1, runs: int = 50) -> dict[str, dict[str, float] | str]:
    """Latency per runtime, measured interleaved in this process: {'rillet': stats, 'litert_xnnpack': stats,
    'litert_builtin': stats}; a runtime that cannot run the model (or is not installed) maps to the reason."""
    from rillet.runtime import Interpreter

    results: dict[str, dict[str, float] | str] = {}
    invokes: dict[str, Callable[[], None]] = {}
    keep = []  # the interpreters, alive while their invoke methods are timed
    makers: dict[str, Callable[[], Any]] = {"rillet": lambda: Interpreter(model_path=path, num_threads=threads)}
    try:
        from ai_edge_litert.interpreter import Interpreter as LiteRT
        from ai_edge_litert.interpreter import OpResolverType

        builtin = OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
        makers["litert_xnnpack"] = lambda: LiteRT(model_path=path, num_threads=threads)
        makers["litert_builtin"] = lambda: LiteRT(model_path=path, num_threads=threads,
                                                  experimental_op_resolver_type=builtin)
    except ImportError:
        pass
    for name, make in makers.items():
        try:
            interpreter = make()
            invokes[name] = _ready(interpreter)
            keep.append(interpreter)
        except (RuntimeError, ValueError) as e:
            results[name] = f"cannot run: {str(e).splitlines()[0][:90]}"
    results.update(_time_interleaved(invokes, runs))
    return {name: results[name] for name in makers if name in results}


LABELS = {"rillet": "rillet", "litert_xnnpack": "LiteRT + XNNPACK", "litert_builtin": "LiteRT builtin (no XNNPACK)"}


def format_results(model: str, results: dict[str, Any], threads: int, runs: int) -> str:
    from rillet.native import kernel_path

    header = (f"{model}  ({threads} thread{'s' if threads != 1 else ''}, {runs} runs; median, p10-p90 spread; "
              f"rillet's kernel path: {kernel_path()})")
    lines = [header]
    ours = results.get("rillet")
    for key, label in LABELS.items():
        if key not in results:
            continue
        r = results[key]
        if isinstance(r, str):
            lines.append(f"  {label:<28} {r}")
            continue
        ratio = ""
        if key != "rillet" and isinstance(ours, dict):
            ratio = f"   rillet / this = {ours['median_ms'] / r['median_ms']:.2f}"
        lines.append(f"  {label:<28} {r['median_ms']:9.3f} ms  [{r['p10_ms']:.3f}-{r['p90_ms']:.3f}]{ratio}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    results = bench_model(args.model, args.threads, args.runs)
    print(format_results(args.model, results, args.threads, args.runs))
    return 0 if isinstance(results.get("rillet"), dict) else 2
