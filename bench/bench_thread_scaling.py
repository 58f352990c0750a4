"""Where a model's second thread goes: per op kind, the median time at 1 thread and at N, and the speed-up,
from Interpreter.profile (each op timed on its own, so the sum is a little above an invoke's time). The
ops that do not scale are the ones to split finer or fuse; the whole-invoke speed-up is printed beside
LiteRT's (with XNNPACK) on the same model, every model's interpreters timed in one interleaved loop: on a
shared machine a busy neighbour slows every column alike, and a low float or LiteRT speed-up says the run
was not quiet.

`mobilenet_v2_035_96_dynamic` is the float model through `rillet quantize --mode dynamic` (int8 weights,
float activations), written at run time into a temporary folder.

    python bench/bench_thread_scaling.py [--model mobilenet_v2_035_96_dynamic] [--threads 2] [--runs 200]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from rillet.runtime import Interpreter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support import golden, model_path

DYNAMIC_SUFFIX = "_dynamic"
# Between two interpreters' turns: the last one's workers spin for a while after its invoke (XNNPACK's
# pthreadpool up to a million pause rounds, rillet's 0.2 ms) and would take a core from the next one timed.
PAUSE_SECONDS = 0.02
DEFAULT_MODELS = ["mobilenet_v2_035_96_f32", "mobilenet_v2_035_96_int8", "mobilenet_v2_035_96_dynamic"]


def model_file(name: str, folder: Path) -> tuple[Path, np.ndarray]:
    """The model's file and an input for it: a shared reference model, or one made from the float model."""
    if not name.endswith(DYNAMIC_SUFFIX):
        return model_path(name), golden(name)["x"]
    from rillet.quant import quantize

    source = name[: -len(DYNAMIC_SUFFIX)] + "_f32"
    path = folder / f"{name}.tflite"
    path.write_bytes(quantize(str(model_path(source)), mode="dynamic", progress=False))
    return path, golden(source)["x"]


def ready(make, x: np.ndarray):
    it = make()
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()  # first-run work out of the timings
    return it


def rillet(path: Path, threads: int):
    return lambda: Interpreter(model_path=str(path), num_threads=threads)


def litert(path: Path, threads: int):
    try:
        from ai_edge_litert.interpreter import Interpreter as LiteRT
    except ImportError:
        return None
    return lambda: LiteRT(model_path=str(path), num_threads=threads)


def invoke_median(it, runs: int) -> float:
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
    parser.add_argument("--model", action="append", help="a model in the shared set, or one + '_dynamic' (repeatable)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=400, help="invokes per interpreter, over all rounds")
    parser.add_argument("--rounds", type=int, default=20, help="interleaved rounds, each timing every interpreter")
    args = parser.parse_args()
    n, names = args.threads, args.model or DEFAULT_MODELS
    with tempfile.TemporaryDirectory() as folder:
        interpreters = {}
        for name in names:
            path, x = model_file(name, Path(folder))
            makers = {(name, "rillet", 1): rillet(path, 1), (name, "rillet", n): rillet(path, n)}
            if litert(path, 1) is not None:
                makers[(name, "LiteRT+XNNPACK", 1)], makers[(name, "LiteRT+XNNPACK", n)] = litert(path, 1), litert(path, n)
            interpreters.update({key: ready(make, x) for key, make in makers.items()})
        # Every interpreter of every model in each round, so that all see the same neighbours; a speed-up is
        # the median over the rounds of the ratio within a round.
        rounds: dict[tuple[str, str, int], list[float]] = {key: [] for key in interpreters}
        for _ in range(args.rounds):
            for key, it in interpreters.items():
                time.sleep(PAUSE_SECONDS)
                rounds[key].append(invoke_median(it, max(args.runs // args.rounds, 1)))
        for name in names:
            print(f"\n{name}: invoke at 1 thread and at {n}; medians of {args.rounds} interleaved rounds "
                  f"(all models' interpreters in each)")
            print(f"| runtime | ms at 1 | ms at {n} | speed-up |\n|---|---:|---:|---:|")
            for runtime in dict.fromkeys(r for m, r, _ in rounds if m == name):
                one, many = np.array(rounds[(name, runtime, 1)]), np.array(rounds[(name, runtime, n)])
                print(f"| {runtime} | {np.median(one) * 1e3:.3f} | {np.median(many) * 1e3:.3f} | "
                      f"{np.median(one / many):.2f}x |")
            k1 = by_kind(interpreters[(name, "rillet", 1)], args.runs)
            kn = by_kind(interpreters[(name, "rillet", n)], args.runs)
            print(f"\n| op (profiled one by one: no bands) | ms at 1 | ms at {n} | speed-up | share at {n} |")
            print("|---|---:|---:|---:|---:|")
            for op in sorted(k1, key=lambda o: -k1[o]):
                print(f"| {op} | {k1[op] * 1e3:.3f} | {kn[op] * 1e3:.3f} | {k1[op] / max(kn[op], 1e-12):.2f} | "
                      f"{kn[op] / sum(kn.values()):.0%} |")


if __name__ == "__main__":
    main()
