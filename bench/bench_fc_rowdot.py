"""FULLY_CONNECTED on the row-dot kernels (weights read in place) against the packed GEMM, in one interleaved run:
the FULLY_CONNECTED ops' own time (Interpreter.profile, medians) in the shared models and in single-op models of
1 to 8 rows, MobileNet-sized (1280 -> 1001) and MLP-sized (64 -> 64), float32 and int8, on one thread; and the
time to ready a 1280 -> 1001 batch-1 model (microseconds, lower is better in every row).

The threshold (native/ops/fc_rowdot.h's RL_FC_ROWDOT_MAX_ROWS) is fixed when the library is built, so the
comparison runs builds of the same tree that differ only there, each in child processes that alternate:

    CC="gcc -DRL_FC_ROWDOT_MAX_ROWS=0" python setup.py build_ext --inplace --force    # in a worktree: GEMM only
    CC="gcc -DRL_FC_ROWDOT_MAX_ROWS=64" python setup.py build_ext --inplace --force   # in another: row-dot only
    python bench/bench_fc_rowdot.py --library gemm=/wt-a/native/librillet.so --library rowdot=/wt-b/native/librillet.so

Ratios are against the first library (below 1: faster than it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "tests" / "data" / "models"
SHARED = ["mobilenet_v2_035_96_f32", "mobilenet_v2_035_96_int8", "cnn_small_f32", "cnn_small_int8", "mlp_f32"]
SIZES = [(1280, 1001), (64, 64)]  # depth, units
ROWS = range(1, 9)


def single_fc(rows: int, depth: int, units: int, int8: bool) -> bytes:
    sys.path.insert(0, str(ROOT / "tests" / "runtime"))
    from single_op import Const, Input, Quant, op_model

    rng = np.random.default_rng(0)
    if not int8:
        inputs = [Input((rows, depth)), rng.standard_normal((units, depth)).astype(np.float32),
                  rng.standard_normal(units).astype(np.float32)]
        return op_model("FULLY_CONNECTED", inputs, [((rows, units), np.float32)], {"fused_activation_function": 0})
    sw = rng.uniform(0.002, 0.02, units).astype(np.float32)
    inputs = [Input((rows, depth), np.int8, Quant(0.05, 3)),
              Const(rng.integers(-127, 128, (units, depth)).astype(np.int8), Quant(sw, 0, 0)),
              Const(rng.integers(-3000, 3000, units).astype(np.int32), Quant(np.float32(0.05) * sw, 0))]
    return op_model("FULLY_CONNECTED", inputs, [((rows, units), np.int8, Quant(0.5, -2))],
                    {"fused_activation_function": 0}, version=5)


def fc_microseconds(it, runs: int) -> float:
    """The summed median time of the model's FULLY_CONNECTED ops, microseconds."""
    it.allocate_tensors()
    for detail in it.get_input_details():
        shape, dtype = detail["shape"], detail["dtype"]
        value = np.zeros(shape, dtype) if dtype != np.float32 else np.random.default_rng(0).uniform(-1, 1, shape)
        it.set_tensor(detail["index"], value.astype(dtype))
    it.profile(runs=5)  # warm the caches and the weights' pages
    return 1e6 * sum(op["seconds"] for op in it.profile(runs=runs) if op["op"] == "FULLY_CONNECTED")


def ready_microseconds(Interpreter, model: bytes, runs: int) -> float:
    """Median time from model bytes to a ready interpreter (constructor + allocate_tensors), microseconds:
    where the GEMM copies the weights into panels, the row-dot path copies nothing."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        Interpreter(model_content=model, num_threads=1).allocate_tensors()
        samples.append(time.perf_counter() - start)
    return 1e6 * statistics.median(samples)


def child(runs: int) -> None:
    from rillet.runtime import Interpreter

    results = {}
    for int8 in (False, True):
        model = single_fc(1, 1280, 1001, int8)
        results[f"ready (constructor + allocate), fc 1280->1001 {'int8' if int8 else 'f32'} rows 1"] = \
            ready_microseconds(Interpreter, model, runs)
    for name in SHARED:
        results[name] = fc_microseconds(Interpreter(model_path=str(MODELS / f"{name}.tflite"), num_threads=1), runs)
    for depth, units in SIZES:
        for int8 in (False, True):
            for rows in ROWS:
                model = single_fc(rows, depth, units, int8)
                key = f"fc {depth}->{units} {'int8' if int8 else 'f32'} rows {rows}"
                results[key] = fc_microseconds(Interpreter(model_content=model, num_threads=1), runs)
    print(json.dumps(results))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", action="append", default=[], help="label=path of a librillet.so build")
    parser.add_argument("--rounds", type=int, default=5, help="child processes per library, alternating")
    parser.add_argument("--runs", type=int, default=60, help="profiled invokes per child")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.runs)
        return 0
    libraries = [tuple(spec.split("=", 1)) for spec in args.library] or [("installed", "")]
    samples: dict[str, dict[str, list[float]]] = {label: {} for label, _ in libraries}
    for _ in range(args.rounds):
        for label, path in libraries:
            env = dict(os.environ, RILLET_LIBRARY=path) if path else dict(os.environ)
            done = subprocess.run([sys.executable, __file__, "--child", "--runs", str(args.runs)], env=env,
                                  capture_output=True, text=True, check=True, cwd=ROOT / "bench")
            for key, value in json.loads(done.stdout.strip().splitlines()[-1]).items():
                samples[label].setdefault(key, []).append(value)
    first = libraries[0][0]
    print("| FULLY_CONNECTED | " + " | ".join(f"{label} us" for label, _ in libraries) + " | "
          + " | ".join(f"{label}/{first}" for label, _ in libraries[1:]) + " |")
    print("|---|" + "---:|" * (2 * len(libraries) - 1))
    for key in samples[first]:
        medians = [statistics.median(samples[label][key]) for label, _ in libraries]
        ratios = [f"{m / medians[0]:.2f}" if medians[0] else "—" for m in medians[1:]]
        print(f"| {key} | " + " | ".join(f"{m:.2f}" for m in medians) + " | " + " | ".join(ratios) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
