"""Writes the latency table for every model in ../shared/models: rillet against LiteRT with XNNPACK and
with its builtin kernels, same process, same inputs; medians and the ratio rillet / LiteRT.

    python bench/bench_models.py [--threads 1] [--runs 50] [--models DIR] [--markdown out.md]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rillet.commands.bench import bench_model

DEFAULT_MODELS = Path(__file__).resolve().parents[1].parent / "shared" / "models"


def cell(result) -> str:
    return f"{result['median_ms']:.3f}" if isinstance(result, dict) else "—"


def ratio(ours, peer) -> str:
    if isinstance(ours, dict) and isinstance(peer, dict):
        return f"{ours['median_ms'] / peer['median_ms']:.2f}"
    return "—"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS)
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args()

    header = ("| model | rillet ms | LiteRT+XNNPACK ms | LiteRT builtin ms | rillet/XNNPACK | rillet/builtin |\n"
              "|---|---:|---:|---:|---:|---:|")
    rows, notes = [], []
    for path in sorted(args.models.glob("*.tflite")):
        r = bench_model(str(path), args.threads, args.runs)
        ours, xnn, builtin = r.get("rillet"), r.get("litert_xnnpack"), r.get("litert_builtin")
        rows.append(f"| {path.stem} | {cell(ours)} | {cell(xnn)} | {cell(builtin)} | {ratio(ours, xnn)} "
                    f"| {ratio(ours, builtin)} |")
        notes += [f"- {path.stem}, {name}: {v}" for name, v in r.items() if isinstance(v, str)]
        print(rows[-1], flush=True)
    table = "\n".join([(f"Invoke latency, median of {args.runs} runs, {args.threads} thread(s); "
                       "ratio > 1 means rillet is slower."), "", header, *rows, "", *notes])
    print()
    print(table)
    if args.markdown:
        args.markdown.write_text(table + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
