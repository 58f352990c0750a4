"""Which ops leave the second thread idle, measured in CPU time so that a loaded machine does not blur it.

For each model: every op's CPU time at 1 thread (Interpreter.thread_profile), then at N threads each thread's CPU time
on each op (Interpreter.thread_profile: the caller's CPU time less its waits, each worker's time in the
op's tiles). An op (or a run of ops executed in bands, counted as one) whose workers do under 10% of its
work does not split. Printed per model:

- `serial`: the share of the 1-thread invoke CPU time spent in ops that do not split;
- `balance bound`: the speed-up N threads would give if each op took as long as its busiest thread's share
  of its 1-thread time (sum of t1 / sum of t1 * largest share): what splitting allows, before memory
  bandwidth, joins and the OS;
- the wall-clock speed-ups of rillet and LiteRT (XNNPACK) from 1 to N threads, timed in one interleaved loop
  (on a shared machine these are noise; the two columns at least share it);
- `work`: the N threads' CPU time summed over the 1-thread time, per invoke (above 1: splitting made work, as
  packing per band, caches shared, halos), and `busiest bound`: the speed-up if each op took its busiest
  thread's CPU time at N threads (the balance bound with that made work in it), with the op kinds that made
  the most work;
- `units`: the ops and band runs an invoke executes (each ends in a join when it splits), and how many of them
  split (their workers did some of the work): the parallel jobs per invoke;
- the op kinds with the most idle thread time (t1 * (largest share - 1/N)).

    python bench/thread_shares.py [--models /work/txmodels] [--only vit_tiny_f32 ...] [--threads 2] [--runs 10]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from rillet.runtime import Interpreter

SERIAL_SHARE = 0.10  # workers doing less than this share of an op's work: the op does not split
PAUSE_SECONDS = 0.02  # between two interpreters' turns: the last one's spinning workers settle


def stored_inputs(path: Path) -> dict[str, np.ndarray]:
    """The first signature's inputs from MODEL.npz (SIG/in/NAME), or {} when there is none."""
    npz_path = path.with_suffix(".npz")
    if not npz_path.exists():
        return {}
    npz = np.load(npz_path)
    found: dict[str, dict[str, np.ndarray]] = {}
    for key in npz.files:
        parts = key.split("/", 2)
        if len(parts) == 3 and parts[1] == "in":
            found.setdefault(parts[0], {})[parts[2]] = npz[key]
    return next(iter(found.values()), {})


def fed(it, inputs: dict[str, np.ndarray]):
    """The interpreter, allocated, its inputs set (the stored ones through the signature, else zeros)."""
    it.allocate_tensors()
    signatures = it.get_signature_list()
    if inputs and signatures:
        it.get_signature_runner(next(iter(signatures)))(**inputs)
    else:
        for d in it.get_input_details():
            it.set_tensor(d["index"], np.zeros(d["shape"], d["dtype"]))
    it.invoke()
    return it


def units(report_n: list[dict]) -> list[tuple[int, int]]:
    """(first, last) op of each unit of work at N threads: a band segment, or one op."""
    result, i = [], 0
    while i < len(report_n):
        last = max(i, report_n[i]["segment_last"])
        result.append((i, last))
        i = last + 1
    return result


def analyse(path: Path, threads: int, runs: int) -> dict:
    inputs = stored_inputs(path)
    one = fed(Interpreter(model_path=str(path), num_threads=1), inputs)
    many = fed(Interpreter(model_path=str(path), num_threads=threads), inputs)
    t1 = np.array([sum(row["thread_seconds"]) for row in one.thread_profile(runs=runs)])
    report = many.thread_profile(runs=runs)
    serial = total = bounded = work_n = busiest = 0.0
    extra_by_kind: dict[str, float] = defaultdict(float)
    unit_count = parallel_count = 0
    idle_by_kind: dict[str, float] = defaultdict(float)
    time_by_kind: dict[str, float] = defaultdict(float)
    unsplit_kinds: dict[str, float] = defaultdict(float)
    for first, last in units(report):
        if report[first]["folded"]:
            continue
        work = np.array(report[first]["thread_seconds"])
        unit_t1 = float(t1[first : last + 1].sum())
        kind = "+".join(dict.fromkeys(report[j]["op"] for j in range(first, last + 1)))
        if last > first:
            kind = f"bands[{kind}]"
        share = work / work.sum() if work.sum() > 0 else np.eye(threads)[0]
        work_n += float(work.sum())
        busiest += float(work.max())
        workers = float(share[1:].sum())
        unit_count += 1
        parallel_count += workers > 0
        total += unit_t1
        bounded += unit_t1 * float(share.max())
        idle_by_kind[kind] += unit_t1 * (float(share.max()) - 1.0 / threads)
        time_by_kind[kind] += unit_t1
        extra_by_kind[kind] += float(work.sum()) - unit_t1
        if workers < SERIAL_SHARE:
            serial += unit_t1
            unsplit_kinds[kind] += unit_t1
    return {"serial": serial / total, "bound": total / bounded, "t1": total, "units": unit_count,
            "parallel": parallel_count, "work": work_n / total, "busiest_bound": total / busiest,
            "extra": sorted(extra_by_kind.items(), key=lambda kv: -kv[1]),
            "idle": sorted(idle_by_kind.items(), key=lambda kv: -kv[1]), "time": time_by_kind,
            "unsplit": sorted(unsplit_kinds.items(), key=lambda kv: -kv[1])}


def wall_speedups(path: Path, threads: int, runs: int) -> dict[str, float]:
    """Invoke medians at 1 and N threads, rillet and LiteRT taking turns: speed-up per runtime."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    inputs = stored_inputs(path)
    makers = {"rillet": Interpreter, "litert": LiteRT}
    its = {(name, n): fed(make(model_path=str(path), num_threads=n), inputs)
           for name, make in makers.items() for n in (1, threads)}
    times: dict = defaultdict(list)
    for _ in range(runs):
        for key, it in its.items():
            time.sleep(PAUSE_SECONDS)
            start = time.perf_counter()
            it.invoke()
            times[key].append(time.perf_counter() - start)
    med = {key: float(np.median(v)) for key, v in times.items()}
    result = {f"{name}_x": med[(name, 1)] / med[(name, threads)] for name in makers}
    result["rillet_vs_litert_1t"] = med[("litert", 1)] / med[("rillet", 1)]
    result[f"rillet_vs_litert_{threads}t"] = med[("litert", threads)] / med[("rillet", threads)]
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=Path, default=Path("/work/txmodels"))
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--wall-runs", type=int, default=0, help="interleaved invokes for wall speed-ups (0: none)")
    parser.add_argument("--top", type=int, default=6)
    args = parser.parse_args()
    paths = sorted(args.models.glob("*.tflite")) if args.models.is_dir() else [args.models]
    if args.only:
        paths = [p for p in paths if p.stem in args.only]
    for path in paths:
        try:
            result = analyse(path, args.threads, args.runs)
        except Exception as e:  # noqa: BLE001 - a model that cannot run is reported, the rest go on
            print(f"{path.stem}: cannot run: {str(e).splitlines()[0][:200]}")
            continue
        line = (f"{path.stem}: t1 {1e3 * result['t1']:.1f} ms, serial {100 * result['serial']:.1f}% of it, "
                f"balance bound {result['bound']:.2f}x at {args.threads} threads, "
                f"work {result['work']:.2f}x, busiest bound {result['busiest_bound']:.2f}x, "
                f"{result['units']} units ({result['parallel']} parallel)")
        if args.wall_runs:
            wall = wall_speedups(path, args.threads, args.wall_runs)
            line += "; wall " + ", ".join(f"{k} {v:.2f}" for k, v in wall.items())
        print(line)
        for kind, idle in result["idle"][: args.top]:
            print(f"    idle {1e3 * idle:7.2f} ms of {1e3 * result['time'][kind]:7.2f} ms  {kind}")
        for kind, extra in result["extra"][: min(3, args.top)]:
            print(f"    made work {1e3 * extra:7.2f} ms of {1e3 * result['time'][kind]:7.2f} ms  {kind}")
        for kind, t in result["unsplit"][: args.top]:
            print(f"    unsplit {1e3 * t:7.2f} ms  {kind}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
