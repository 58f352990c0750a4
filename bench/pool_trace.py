"""Where two threads' wall clock goes inside the thread pool, per invoke: a dev-only build of librillet with
-DRL_POOL_TRACE (native/src/threadpool.c) clocks each parallel job, and this script runs models on it and prints,
per invoke, what CPU-time accounting (bench/thread_shares.py) cannot see:

- `jobs`: parallel jobs (ops and band runs that split); `woken`: jobs whose workers were asleep (a futex wake),
  and the caller's time in those wakes, us;
- `par ms`: the caller's time from publishing a job to having run or stolen every tile; `join ms`: its wait
  after that for the workers to finish; `gap ms`: its time between two jobs of one invoke (serial ops,
  Python, the op loop);
- `joined`: jobs the worker joined while tiles were left; worker `lat us`: mean time from a job's publication
  to a worker joining it, and the share of joins under 1 us and 4 us (a spinning worker on a core of its own
  joins in well under a microsecond); `late`: jobs a worker reached after the caller had claimed every tile;
  `slept`: times a worker gave up polling;
- `stolen`: tiles the caller took from the worker's share (the worker was not there) and the worker from the
  caller's (the caller was slower).

Two ways of invoking: `loop` (invokes back to back) and `paced` (a pause between invokes, as frames come: each
invoke starts with the workers asleep). The machine's load average is printed: on a shared machine with more
runnable threads than cores, a worker is often not running when a job is published, and the numbers say so.

    python bench/pool_trace.py [--models /work/txmodels] --only bert_tiny_f32 ... [--invokes 100] [--threads 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRACE_LIBRARY = ROOT / "build" / "pool_trace" / "librillet.so"
PAUSE_SECONDS = 0.02


def build() -> Path:
    sys.path.insert(0, str(ROOT / "native"))
    import build_ffi

    return Path(build_ffi.build_library(str(TRACE_LIBRARY), str(TRACE_LIBRARY.parent / "objects"),
                                        target_flags=("-DRL_POOL_TRACE",)))


CHILD = r"""
import sys, time
import numpy as np
sys.path.insert(0, sys.argv[5])
from thread_shares import fed, stored_inputs
from pathlib import Path
from rillet.runtime import Interpreter
path, threads, invokes, pause = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
it = fed(Interpreter(model_path=str(path), num_threads=threads), stored_inputs(path))
times = []
for _ in range(invokes):
    if pause:
        time.sleep(pause)
    start = time.perf_counter()
    it.invoke()
    times.append(time.perf_counter() - start)
print(float(np.median(times)))
del it
"""


def traced(library: Path, path: Path, threads: int, invokes: int, pause: float) -> tuple[dict[str, int], float]:
    """One pool's sums over `invokes` invokes (plus the warm-up one) and the median invoke in seconds."""
    with tempfile.NamedTemporaryFile(suffix=".trace", delete=False) as f:
        trace = Path(f.name)
    env = dict(os.environ, RILLET_LIBRARY=str(library), RILLET_POOL_TRACE=str(trace))
    try:
        out = subprocess.run([sys.executable, "-c", CHILD, str(path), str(threads), str(invokes), str(pause),
                              str(ROOT / "bench")], env=env, capture_output=True, text=True, check=True)
        lines = trace.read_text().splitlines()
    finally:
        trace.unlink(missing_ok=True)
    sums: dict[str, int] = {}
    for line in lines:  # a model with subgraphs has a pool per plan
        for item in line.split():
            key, value = item.split("=")
            sums[key] = sums.get(key, 0) + int(value)
    return sums, float(out.stdout.split()[-1])


def row(name: str, mode: str, sums: dict[str, int], median: float, invokes: int) -> str:
    n = invokes + 1  # fed() invokes once before the timed ones
    jobs = sums["jobs"]
    joined = sums.get("joined1", 0)
    fast = sums.get("lat1_0", 0) / joined if joined else 0.0
    under4 = (sums.get("lat1_0", 0) + sums.get("lat1_1", 0)) / joined if joined else 0.0
    lat = sums.get("latency_ns1", 0) / joined / 1e3 if joined else 0.0
    return (f"| {name} | {mode} | {median * 1e3:.3f} | {jobs / n:.1f} | {sums['woken'] / n:.2f} | "
            f"{sums.get('wake_ns', 0) / n / 1e3:.1f} | {joined / n:.1f} | "
            f"{sums['own_ns'] / n / 1e6:.3f} | {sums['join_ns'] / n / 1e6:.3f} | {sums['gap_ns'] / n / 1e6:.3f} | "
            f"{lat:.1f} | {fast:.0%} / {under4:.0%} | {sums.get('late1', 0) / n:.2f} | "
            f"{sums.get('slept1', 0) / n:.2f} | "
            f"{sums['stolen0'] / n:.1f} / {sums.get('stolen1', 0) / n:.1f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=Path, nargs="+", default=[Path("/work/txmodels")],
                        help="folders to look for each model in")
    parser.add_argument("--only", nargs="+", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--invokes", type=int, default=100)
    parser.add_argument("--no-build", action="store_true", help="use the trace build as it is")
    parser.add_argument("--library", type=Path, default=TRACE_LIBRARY, help="a trace build (default: build it)")
    args = parser.parse_args()
    if args.library == TRACE_LIBRARY and (not args.no_build or not TRACE_LIBRARY.exists()):
        build()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs, {args.threads} threads, "
          f"{args.invokes} invokes; per invoke:")
    print("| model | mode | median ms | jobs | woken | wake us | joined | par ms | join ms | gap ms | lat us "
          "| <1 / <4 us | late | slept | stolen by caller / worker |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.only:
        path = next(folder / f"{name}.tflite" for folder in args.models if (folder / f"{name}.tflite").exists())
        for mode, pause in (("loop", 0.0), ("paced", PAUSE_SECONDS)):
            sums, median = traced(args.library, path, args.threads, args.invokes, pause)
            print(row(name, mode, sums, median, args.invokes), flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
