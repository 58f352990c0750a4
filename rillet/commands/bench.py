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


def _time_invokes(invoke: Callable[[], None], runs: int, warmup: int = 3) -> dict[str, float]:
    for _ in range(warmup):
        invoke()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        invoke()
        times.append(time.perf_counter() - start)
    t = np.array(times) * 1e3
    return {"median_ms": float(np.median(t)), "p10_ms": float(np.percentile(t, 10)),
            "p90_ms": float(np.percentile(t, 90))}


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
    """Latency per runtime: {'rillet': stats, 'litert_xnnpack': stats, 'litert_builtin': stats}; a runtime
    that cannot run the model (or is not installed) maps to the reason, a string."""
    from rillet.runtime import Interpreter

    results: dict[str, dict[str, float] | str] = {}
    try:
        results["rillet"] = _time_invokes(_ready(Interpreter(model_path=path, num_threads=threads)), runs)
    except (RuntimeError, ValueError) as e:
        results["rillet"] = f"cannot run: {str(e).splitlines()[0][:90]}"
    try:
        from ai_edge_litert.interpreter import Interpreter as LiteRT
        from ai_edge_litert.interpreter import OpResolverType
    except ImportError:
        return results
    peers = {"litert_xnnpack": {}, "litert_builtin": {
        "experimental_op_resolver_type": OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES}}
    for name, options in peers.items():
        try:
            results[name] = _time_invokes(_ready(LiteRT(model_path=path, num_threads=threads, **options)), runs)
        except (RuntimeError, ValueError) as e:
            results[name] = f"cannot run: {str(e).splitlines()[0][:90]}"
    return results


LABELS = {"rillet": "rillet", "litert_xnnpack": "LiteRT + XNNPACK", "litert_builtin": "LiteRT builtin (no XNNPACK)"}


def format_results(model: str, results: dict[str, Any], threads: int, runs: int) -> str:
    from rillet.native import kernel_path

    lines = [f"{model}  ({threads} thread{'s' if threads != 1 else ''}, {runs} runs; median, p10-p90 spread; "
             f"rillet's kernel path: {kernel_path()})"]
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
