"""Writes the latency table for every model in tests/data/models: rillet against LiteRT with XNNPACK and
with its builtin kernels, same process, same inputs, runs interleaved; medians and the ratio rillet / LiteRT,
at each thread count asked for, and each runtime's speed-up from the first count to each other (LiteRT's
own beside rillet's: on a machine whose vCPUs are hyperthreads of fewer cores, neither scales far). Every
runtime at every thread count takes turns in one loop per model, so a speed-up compares the same spells of a
shared machine (on this VM two threads scale 1.7x in one minute and 1.1x in the next, for LiteRT too).

    python bench/bench_models.py [--threads 1 2] [--runs 60] [--models DIR] [--markdown out.md]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rillet.commands.bench import bench_model_threads
from rillet.native import kernel_path

DEFAULT_MODELS = Path(__file__).resolve().parents[1] / "tests" / "data" / "models"


def cell(result) -> str:
    return f"{result['median_ms']:.3f}" if isinstance(result, dict) else "—"


def ratio(ours, peer) -> str:
    if isinstance(ours, dict) and isinstance(peer, dict):
        return f"{ours['median_ms'] / peer['median_ms']:.2f}"
    return "—"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args()

    header = ("| model | threads | rillet ms | LiteRT+XNNPACK ms | LiteRT builtin ms | rillet/XNNPACK | rillet/builtin "
              "| rillet speed-up | XNNPACK speed-up | builtin speed-up |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows, notes = [], []
    for path in sorted(args.models.glob("*.tflite")):
        first = None
        by_threads = bench_model_threads(str(path), args.threads, args.runs)
        for threads in args.threads:
            r = by_threads[threads]
            ours, xnn, builtin = r.get("rillet"), r.get("litert_xnnpack"), r.get("litert_builtin")
            first = first if first is not None else (ours, xnn, builtin)
            speedups = [ratio(a, b) if threads != args.threads[0] else "" for a, b in zip(first, (ours, xnn, builtin))]
            rows.append(f"| {path.stem} | {threads} | {cell(ours)} | {cell(xnn)} | {cell(builtin)} | {ratio(ours, xnn)} "
                        f"| {ratio(ours, builtin)} | {' | '.join(speedups)} |")
            notes += [f"- {path.stem}, {threads} thread(s), {name}: {v}" for name, v in r.items() if isinstance(v, str)]
            print(rows[-1], flush=True)
    table = "\n".join([(f"Invoke latency, median of {args.runs} runs (interleaved in 5 blocks); rillet's kernel path: "
                        f"{kernel_path()}; ratio > 1 means rillet is slower."), "", header, *rows, "", *notes])
    print()
    print(table)
    if args.markdown:
        args.markdown.write_text(table + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
