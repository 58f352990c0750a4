"""Two builds of librillet against each other and against LiteRT, by the wall clock at 1 and N threads: for a
change to the thread pool or the bands, where one process cannot hold both builds. Each round runs one child
process per build (the order alternating); a child times rillet and LiteRT+XNNPACK at 1 and N threads taking
turns in blocks of invokes (as an app's loop), after a pause and warm-up invokes per turn. Printed per model
and build: the median over rounds of each round's speed-up from 1 to N threads, rillet's and LiteRT's (the
LiteRT column is the control: it did not change, so its spread is the machine's noise), and rillet's median
invoke at N threads over LiteRT's. The load average is printed: on a machine with more runnable threads than
cores, these are the load's numbers as much as the pool's.

    python bench/bench_pool_ab.py --library before=/tmp/a.so --library after=native/librillet.so \
        --only bert_tiny_f32 vit_tiny_f32 [--models /work/txmodels ...] [--rounds 6] [--invokes 20] [--blocks 4]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from thread_shares import fed, stored_inputs
from rillet.runtime import Interpreter
from ai_edge_litert.interpreter import Interpreter as LiteRT
path, threads, invokes, blocks = Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
inputs = stored_inputs(path)
its = {f"{name}{n}": fed(make(model_path=str(path), num_threads=n), inputs)
       for name, make in (("rillet", Interpreter), ("litert", LiteRT)) for n in (1, threads)}
times = {key: [] for key in its}
for _ in range(blocks):
    for key, it in its.items():
        time.sleep(0.01)  # the last turn's spinning workers stop
        for _ in range(3):
            it.invoke()
        for _ in range(invokes):
            start = time.perf_counter()
            it.invoke()
            times[key].append(time.perf_counter() - start)
print(json.dumps({key: float(np.median(v)) for key, v in times.items()}))
"""


def child(library: Path, path: Path, threads: int, invokes: int, blocks: int) -> dict[str, float]:
    env = dict(os.environ, RILLET_LIBRARY=str(library))
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "bench"), str(path), str(threads), str(invokes),
                          str(blocks)], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--library", action="append", required=True, help="NAME=PATH of a librillet.so")
    parser.add_argument("--models", type=Path, nargs="+", default=[Path("/work/txmodels")],
                        help="folders to look for each model in")
    parser.add_argument("--only", nargs="+", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--invokes", type=int, default=20, help="timed invokes per turn")
    parser.add_argument("--blocks", type=int, default=4, help="turns per runtime and thread count in a child")
    args = parser.parse_args()
    libraries = dict(item.split("=", 1) for item in args.library)
    n = args.threads
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {args.rounds} rounds, medians over rounds")
    print(f"| model | build | rillet 1->{n} | LiteRT 1->{n} | rillet/LiteRT {n}t time | rillet {n}t ms |")
    print("|---|---|---:|---:|---:|---:|")
    for name in args.only:
        path = next(folder / f"{name}.tflite" for folder in args.models if (folder / f"{name}.tflite").exists())
        runs: dict[str, list[dict[str, float]]] = {lib: [] for lib in libraries}
        for r in range(args.rounds):
            order = list(libraries) if r % 2 == 0 else list(reversed(libraries))
            for lib in order:
                runs[lib].append(child(Path(libraries[lib]), path, n, args.invokes, args.blocks))
        for lib, results in runs.items():
            rillet = np.median([m["rillet1"] / m[f"rillet{n}"] for m in results])
            litert = np.median([m["litert1"] / m[f"litert{n}"] for m in results])
            ratio = np.median([m[f"rillet{n}"] / m[f"litert{n}"] for m in results])
            ms = np.median([m[f"rillet{n}"] for m in results]) * 1e3
            print(f"| {name} | {lib} | {rillet:.2f}x | {litert:.2f}x | {ratio:.2f} | {ms:.3f} |", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
