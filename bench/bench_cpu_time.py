"""One-thread CPU time per invoke, rillet against LiteRT+XNNPACK, for the models of a folder
bench/make_transformers.py writes (MODEL.tflite beside MODEL.npz): the calling thread's CPU clock
(time.thread_time_ns) around each invoke, the two runtimes taking turns in blocks, medians. On one thread both
run on the calling thread, so a loaded machine (other processes taking the cores) stretches their wall time but
hardly their CPU time: where the wall-clock bench (bench_transformers.py) swings by tens of percent, these
ratios repeat within a few.

    python bench/bench_cpu_time.py [--models /work/txmodels/dyn-range] [--only NAME ...] [--runs 40]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from rillet.runtime import Interpreter


def ready(interpreter, npz) -> callable:
    """The interpreter allocated, fed the first signature's stored inputs (SIG/in/NAME) by name; its invoke."""
    interpreter.allocate_tensors()
    stored = {key.split("/", 2)[2]: npz[key] for key in npz.files if key.split("/", 2)[1] == "in"}
    for detail in interpreter.get_input_details():
        name = detail["name"]
        match = stored.get(name)
        if match is None:  # tensor names can carry a prefix (serving_default_NAME:0)
            match = next((v for k, v in stored.items() if k in name), None)
        if match is None and len(stored) == 1:
            match = next(iter(stored.values()))
        if match is None:
            raise ValueError(f"{name}: no stored input of that name")
        interpreter.set_tensor(detail["index"], match)
    return interpreter.invoke


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=Path("/work/txmodels/dyn-range"))
    parser.add_argument("--only", nargs="+", help="model names (file stems)")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--blocks", type=int, default=5)
    args = parser.parse_args()
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    print("| model | rillet CPU ms | LiteRT+XNNPACK CPU ms | ratio (medians) | ratio (minima) |")
    print("|---|---|---|---|---|")
    for path in sorted(args.models.glob("*.tflite")):
        if args.only and path.stem not in args.only:
            continue
        npz = np.load(path.with_suffix(".npz"))
        invokes = {"rillet": ready(Interpreter(model_path=str(path), num_threads=1), npz),
                   "litert": ready(LiteRT(model_path=str(path), num_threads=1), npz)}
        times: dict[str, list[int]] = {name: [] for name in invokes}
        for _ in range(args.blocks):
            for name, invoke in invokes.items():
                invoke(), invoke()  # a turn's first invokes refill the caches the other runtime used
                for _ in range(max(1, args.runs // args.blocks)):
                    start = time.thread_time_ns()
                    invoke()
                    times[name].append(time.thread_time_ns() - start)
        ours, theirs = (np.array(times[n]) / 1e6 for n in ("rillet", "litert"))
        print(f"| {path.stem} | {np.median(ours):.3f} | {np.median(theirs):.3f} | "
              f"{np.median(ours) / np.median(theirs):.3f} | {ours.min() / theirs.min():.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
