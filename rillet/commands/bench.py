"""`rillet bench model.tflite [--threads N] [--runs N] [--warmup N] [--input x.npz] [--profile] [--memory]
[--json]`: invoke latency of rillet, and of LiteRT with and without XNNPACK when ai-edge-litert is installed,
measured in the same run, with ratios; rillet's time per op and its memory."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .common import (
    UsageError,
    WorkError,
    existing_file,
    non_negative_int,
    open_interpreter,
    positive_int,
    quiet_litert,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "bench", help="invoke latency against LiteRT (with and without XNNPACK)",
        description=("Times invoke on rillet's runtime and, when ai-edge-litert is installed, on LiteRT with and "
                     "without XNNPACK, in the same run: the runtimes take turns (interleaved), so a busy machine "
                     "slows them alike, and the table gives each one's median and spread and its ratio to "
                     "rillet's. It says which kernel path rillet ran; --profile adds rillet's time per op and "
                     "--memory its memory report."))
    p.add_argument("model", help="path to a .tflite file")
    p.add_argument("--threads", type=positive_int, default=1, help="threads for every interpreter (default 1)")
    p.add_argument("--runs", type=positive_int, default=50, help="timed invokes per runtime (default 50)")
    p.add_argument("--warmup", type=non_negative_int, default=5,
                   help="untimed invokes before each turn of a runtime (default 5)")
    p.add_argument("--input", action="append", metavar="X.npy",
                   help="real inputs, as `rillet run` takes them (default: random values of each input's type)")
    p.add_argument("--profile", action="store_true", help="also print rillet's time per op (median of the runs)")
    p.add_argument("--memory", action="store_true", help="also print rillet's memory report")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=run)


def _stats(times: list[float]) -> dict[str, float]:
    t = np.array(times) * 1e3
    return {"median_ms": float(np.median(t)), "p10_ms": float(np.percentile(t, 10)),
            "p90_ms": float(np.percentile(t, 90))}


def _time_interleaved(invokes: dict[Any, Callable[[], None]], runs: int, blocks: int = 5,
                      warmup: int = 5) -> dict[Any, dict[str, float]]:
    """Each runtime's invokes in `blocks` rounds, runtimes taking turns, so a slow spell of a shared machine
    falls on all of them. Within a block a runtime invokes back to back, as an app would; between turns a
    pause lets the last runtime's worker threads stop spinning before the next is timed, and each turn opens
    with `warmup` untimed invokes: the first invokes after a pause wake sleeping workers and refill the
    caches the others used (here the first took 1.3-2x an invoke's time, and two threads reached their
    steady time only by the fifth or so), which a loop pays once."""
    times: dict[Any, list[float]] = {name: [] for name in invokes}
    per_block = [runs // blocks + (1 if b < runs % blocks else 0) for b in range(blocks)]
    for count in per_block:
        for name, invoke in invokes.items():
            time.sleep(0.01)
            for _ in range(warmup):
                invoke()
            for _ in range(count):
                start = time.perf_counter()
                invoke()
                times[name].append(time.perf_counter() - start)
    return {name: _stats(t) for name, t in times.items() if t}


def _ready(interpreter: Any, seed: int = 0, inputs: list[str] | None = None) -> Callable[[], None]:
    """The interpreter allocated and its inputs set (from `inputs`, files as `rillet run` reads them, or
    random values of each input's type); returns its invoke."""
    if inputs:
        from .run import prepare_inputs

        prepare_inputs(interpreter, inputs)
        return interpreter.invoke
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


def bench_model(path: str, threads: int = 1, runs: int = 50, warmup: int = 5,
                inputs: list[str] | None = None) -> dict[str, dict[str, float] | str]:
    """Latency per runtime, measured interleaved in this process: {'rillet': stats, 'litert_xnnpack': stats,
    'litert_builtin': stats}; a runtime that cannot run the model (or is not installed) maps to the reason."""
    return bench_model_threads(path, [threads], runs, warmup, inputs)[threads]


def bench_model_threads(path: str, thread_counts: list[int], runs: int = 50, warmup: int = 5,
                        inputs: list[str] | None = None) -> dict[int, dict[str, dict[str, float] | str]]:
    """bench_model at each thread count, every runtime at every count taking turns in one interleaved loop,
    so that a speed-up from one count to another is measured over the same spells of a shared machine:
    {threads: {runtime: stats or reason}}."""
    from rillet.runtime import Interpreter

    makers: dict[str, Callable[[int], Any]] = {"rillet": lambda n: Interpreter(model_path=path, num_threads=n)}
    try:
        from ai_edge_litert.interpreter import Interpreter as LiteRTInterpreter
        from ai_edge_litert.interpreter import OpResolverType

        LiteRT = quiet_litert(LiteRTInterpreter)

        builtin = OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
        makers["litert_xnnpack"] = lambda n: LiteRT(model_path=path, num_threads=n)
        makers["litert_builtin"] = lambda n: LiteRT(model_path=path, num_threads=n,
                                                    experimental_op_resolver_type=builtin)
    except ImportError:
        pass
    results: dict[tuple[int, str], dict[str, float] | str] = {}
    invokes: dict[tuple[int, str], Callable[[], None]] = {}
    keep = []  # the interpreters, alive while their invoke methods are timed
    for threads in dict.fromkeys(thread_counts):
        for name, make in makers.items():
            try:
                interpreter = make(threads)
                invokes[(threads, name)] = _ready(interpreter, inputs=inputs)
                keep.append(interpreter)
            except (RuntimeError, ValueError, WorkError) as e:
                results[(threads, name)] = f"cannot run: {(str(e).splitlines() or [type(e).__name__])[0]}"
    results.update(_time_interleaved(invokes, runs, warmup=warmup))
    return {threads: {name: results[(threads, name)] for name in makers if (threads, name) in results}
            for threads in thread_counts}


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
            lines.append(f"  {label:<28} {r[:100]}")
            continue
        ratio = ""
        if key != "rillet" and isinstance(ours, dict):
            ratio = f"   rillet / this = {ours['median_ms'] / r['median_ms']:.2f}"
        lines.append(f"  {label:<28} {r['median_ms']:9.3f} ms  [{r['p10_ms']:.3f}-{r['p90_ms']:.3f}]{ratio}")
    return "\n".join(lines)


def rillet_details(path: str, threads: int, runs: int, inputs: list[str] | None, profile: bool,
                   memory: bool) -> dict[str, Any]:
    """rillet's per-op times (median of `runs` profiled invokes) and memory report, as asked."""
    from rillet.runtime import Interpreter

    it = Interpreter(model_path=path, num_threads=threads)
    _ready(it, inputs=inputs)
    found: dict[str, Any] = {}
    if profile:
        found["profile"] = [{"index": r["index"], "op": r["op"], "output_shape": r["output_shape"],
                             "ms": None if r["folded"] else r["seconds"] * 1e3} for r in it.profile(runs=runs)]
    if memory:
        found["memory"] = it.memory_report()
    return found


def format_details(details: dict[str, Any]) -> str:
    lines = []
    if "profile" in details:
        rows = details["profile"]
        total = sum(r["ms"] or 0.0 for r in rows)
        lines.append(f"rillet per op (median ms; {total:.3f} ms in all):")
        lines.append(f"  {'#':>3}  {'op':<24} {'output shape':<20} {'ms':>9} {'share':>6}")
        for r in rows:
            ms = "   folded" if r["ms"] is None else f"{r['ms']:9.4f}"
            share = "" if r["ms"] is None or not total else f"{100 * r['ms'] / total:5.1f}%"
            lines.append(f"  {r['index']:>3}  {r['op']:<24} {r['output_shape']!s:<20} {ms:>9} {share:>6}")
    if "memory" in details:
        lines.append("rillet memory: " + ", ".join(f"{k.removesuffix('_bytes')} {v:,} bytes"
                                                    for k, v in details["memory"].items()))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    existing_file(args.model, "model")
    for spec in args.input or []:
        path = spec.rpartition("=")[2] if "=" in spec else spec
        if not path:
            raise UsageError(f"--input {spec!r} names no file")
    if args.input:  # read and checked once, before any runtime: LiteRT's own message for a wrong shape is its internals'
        from .run import model_inputs

        model_inputs(open_interpreter(args.model), args.input)
    results = bench_model(args.model, args.threads, args.runs, args.warmup, args.input)
    ours = results.get("rillet")
    if not isinstance(ours, dict):
        raise WorkError(f"{args.model}: rillet {ours or 'did not run'}")
    details = rillet_details(args.model, args.threads, args.runs, args.input, args.profile, args.memory) \
        if args.profile or args.memory else {}
    if args.json:
        from rillet.native import kernel_path

        print(json.dumps({"model": args.model, "threads": args.threads, "runs": args.runs, "warmup": args.warmup,
                          "kernel_path": kernel_path(), "results": results, **details}, indent=2))
        return 0
    print(format_results(args.model, results, args.threads, args.runs))
    if details:
        print(format_details(details))
    return 0
