"""Where a model's second thread goes: per op kind, the median time at 1 thread and at N, and the speed-up,
from Interpreter.profile (each op timed on its own, so the sum is a little above an invoke's time). The
ops that do not scale are the ones to split finer or fuse; the whole-invoke speed-up is printed beside.

    python bench/bench_thread_scaling.py [--model mobilenet_v2_035_96_f32] [--threads 2] [--runs 200]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from rillet.runtime import Interpreter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support import golden, model_path


def ready(name: str, threads: int) -> Interpreter:
    it = Interpreter(model_path=model_path(name), num_threads=threads)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], golden(name)["x"])
    return it


def invoke_median(it: Interpreter, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        it.invoke()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def by_kind(it: Interpreter, runs: int) -> dict[str, float]:
    total: dict[str, float] = defaultdict(float)
    for row in it.profile(runs=runs):
        if not row["folded"]:
            total[row["op"]] += row["seconds"]
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", help="a model in the shared set (repeatable)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    for name in args.model or ["mobilenet_v2_035_96_f32", "mobilenet_v2_035_96_int8"]:
        one, many = ready(name, 1), ready(name, args.threads)
        # Interleaved rounds, so both see the same neighbours.
        whole = {1: [], args.threads: []}
        for _ in range(5):
            whole[1].append(invoke_median(one, args.runs // 5))
            whole[args.threads].append(invoke_median(many, args.runs // 5))
        t1, tn = float(np.median(whole[1])), float(np.median(whole[args.threads]))
        k1, kn = by_kind(one, args.runs), by_kind(many, args.runs)
        print(f"\n{name}: invoke {t1 * 1e3:.3f} ms at 1 thread, {tn * 1e3:.3f} ms at {args.threads}: "
              f"speed-up {t1 / tn:.2f}x")
        print(f"| op | ms at 1 | ms at {args.threads} | speed-up | share at {args.threads} |")
        print("|---|---:|---:|---:|---:|")
        for op in sorted(k1, key=lambda o: -k1[o]):
            print(f"| {op} | {k1[op] * 1e3:.3f} | {kn[op] * 1e3:.3f} | {k1[op] / max(kn[op], 1e-12):.2f} | "
                  f"{kn[op] / sum(kn.values()):.0%} |")


if __name__ == "__main__":
    main()
