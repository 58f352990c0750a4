"""Cold start: from model bytes to a ready interpreter (constructor + allocate_tensors), rillet against
LiteRT (with XNNPACK, its default, and with its builtin kernels).

Two measurements. First, as an app or a CLI call meets it: the first interpreter of the model in a fresh
process (after importing the runtime and readying a small warm-up model, so imports and lazy
initialisation are not counted), by `model_path`; the time and the resident memory it adds, medians over
--fresh-runs processes per runtime, interleaved. Second, the same model readied again and again in one
process, by `model_path` and by `model_content`, interleaved; there the allocator's free lists serve
later interpreters from memory earlier ones returned (glibc reuses LiteRT's heap blocks; rillet maps its
large blocks fresh each time), so it measures a reload, not a start.

    python bench/bench_cold_start.py [--models DIR] [--runs 30] [--fresh-runs 11] [--markdown out.md]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

DEFAULT_MODELS = Path(__file__).resolve().parents[1] / "tests" / "data" / "models"
RUNTIMES = ("rillet", "litert_xnnpack", "litert_builtin")


def interpreter_factory(runtime: str) -> Callable[..., object]:
    """A function taking Interpreter keyword arguments and returning the runtime's interpreter."""
    if runtime == "rillet":
        from rillet.runtime import Interpreter

        return Interpreter
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    if runtime == "litert_xnnpack":
        return Interpreter
    return lambda **kw: Interpreter(
        experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES, **kw)


def time_to_ready(make: Callable[..., object], **source: object) -> float:
    start = time.perf_counter()
    it = make(**source)
    it.allocate_tensors()
    elapsed = time.perf_counter() - start
    del it
    return elapsed


def bench_times(path: Path, runs: int) -> dict[tuple[str, str], float]:
    """Median seconds to ready per (runtime, source), the variants interleaved run by run."""
    content = path.read_bytes()
    sources = {"path": {"model_path": str(path)}, "content": {"model_content": content}}
    variants = [(r, s) for r in RUNTIMES for s in sources]
    makers = {r: interpreter_factory(r) for r in RUNTIMES}
    for runtime, source in list(variants):  # warm-up: imports, lazy initialisation, the page cache
        try:
            time_to_ready(makers[runtime], **sources[source])
        except (ValueError, RuntimeError) as e:  # a model this runtime cannot run
            print(f"- {path.stem}, {runtime}: {type(e).__name__}: {str(e)[:120]}", flush=True)
            variants.remove((runtime, source))
    samples: dict[tuple[str, str], list[float]] = {v: [] for v in variants}
    gc.collect()
    for _ in range(runs):
        for runtime, source in variants:
            samples[(runtime, source)].append(time_to_ready(makers[runtime], **sources[source]))
    return {v: statistics.median(s) for v, s in samples.items()}


def vm_rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def fresh_child(runtime: str, model: str, warmup: str) -> None:
    """Runs in a fresh Python process: prints the time to ready and the RSS growth (KiB) of building the
    first interpreter of `model`."""
    make = interpreter_factory(runtime)
    warm = make(model_path=warmup)
    warm.allocate_tensors()
    del warm
    gc.collect()
    before = vm_rss_kib()
    start = time.perf_counter()
    it = make(model_path=model)
    it.allocate_tensors()
    seconds = time.perf_counter() - start
    after = vm_rss_kib()
    print(json.dumps({"seconds": seconds, "growth_kib": after - before}))
    del it


def fresh_start(runtime: str, model: Path, warmup: Path) -> dict | None:
    """{"seconds", "growth_kib"} of one fresh process, or None when the runtime cannot run the model."""
    run = subprocess.run([sys.executable, __file__, "--fresh-child", runtime, str(model), str(warmup)],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        return None
    return json.loads(run.stdout.strip().splitlines()[-1])


def fresh_medians(model: Path, warmup: Path, runs: int) -> dict[str, tuple[float, float] | None]:
    """Per runtime: (median seconds, median KiB) over `runs` fresh processes, interleaved."""
    samples: dict[str, list[dict]] = {r: [] for r in RUNTIMES}
    failed: set[str] = set()  # a runtime that cannot run the model is not asked again
    for _ in range(runs):
        for runtime in RUNTIMES:
            if runtime in failed:
                continue
            got = fresh_start(runtime, model, warmup)
            if got is None:
                failed.add(runtime)
            else:
                samples[runtime].append(got)
    return {r: None if r in failed or not s else (statistics.median(x["seconds"] for x in s),
                                                      statistics.median(x["growth_kib"] for x in s))
            for r, s in samples.items()}


def ratio(ours: float | None, peer: float | None) -> str:
    return f"{ours / peer:.2f}" if ours is not None and peer else "—"


def ms(seconds: float | None) -> str:
    return f"{seconds * 1e3:.3f}" if seconds is not None else "—"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--fresh-runs", type=int, default=11, help="fresh processes per runtime and model")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    parser.add_argument("--fresh-child", nargs=3, metavar=("RUNTIME", "MODEL", "WARMUP"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fresh_child:
        fresh_child(*args.fresh_child)
        return 0

    models = sorted(args.models.glob("*.tflite"))
    if not models:
        parser.error(f"no .tflite files in {args.models}")
    smallest = min(models, key=lambda p: p.stat().st_size)

    fresh_header = ("| model | rillet ms | LiteRT+XNNPACK ms | LiteRT builtin ms | rillet/XNNPACK | rillet/builtin "
                    "| rillet KiB | LiteRT+XNNPACK KiB | LiteRT builtin KiB | rillet/XNNPACK |\n"
                    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    fresh_rows = []
    for path in models:
        warmup = smallest if path != smallest else max(models, key=lambda p: p.stat().st_size)
        got = fresh_medians(path, warmup, args.fresh_runs)
        ours, xnn, builtin = (got[r][0] if got[r] else None for r in RUNTIMES)
        kib = [got[r][1] if got[r] else None for r in RUNTIMES]
        fresh_rows.append(f"| {path.stem} | {ms(ours)} | {ms(xnn)} | {ms(builtin)} | {ratio(ours, xnn)} "
                          f"| {ratio(ours, builtin)} | {' | '.join('—' if k is None else f'{k:.0f}' for k in kib)} "
                          f"| {ratio(kib[0], kib[1])} |")
        print(fresh_rows[-1], flush=True)

    header = ("| model | source | rillet ms | LiteRT+XNNPACK ms | LiteRT builtin ms | rillet/XNNPACK "
              "| rillet/builtin |\n|---|---|---:|---:|---:|---:|---:|")
    rows = []
    for path in models:
        t = bench_times(path, args.runs)
        for source in ("path", "content"):
            ours, xnn, builtin = (t.get((r, source)) for r in RUNTIMES)
            rows.append(f"| {path.stem} | model_{source} | {ms(ours)} | {ms(xnn)} | {ms(builtin)} "
                        f"| {ratio(ours, xnn)} | {ratio(ours, builtin)} |")
            print(rows[-1], flush=True)

    text = "\n".join([
        (f"Cold start in a fresh process (the first interpreter after importing the runtime and readying a "
         f"warm-up model; model_path): time to ready and the resident memory (VmRSS) it adds, medians of "
         f"{args.fresh_runs} processes per runtime, interleaved; ratio > 1 means rillet is slower or uses more."), "",
        fresh_header, *fresh_rows, "",
        (f"Readying the same model again in one process (a reload: the allocator reuses freed memory), median "
         f"of {args.runs} interleaved runs; ratio > 1 means rillet is slower."), "", header, *rows,
    ])
    print()
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
