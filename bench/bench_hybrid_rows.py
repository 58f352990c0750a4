"""Hybrid (dynamic-range) FULLY_CONNECTED of few rows, rillet against LiteRT+XNNPACK on one thread: single-op
models of 1 to 8 (and 16) float rows times int8 weights with a scale per channel, BERT-sized (768 -> 768,
128 -> 512 ...), the calling thread's CPU time per invoke (time.thread_time_ns), the two runtimes taking turns
in blocks, medians. A short block of rows is where the tile choice shows (the hybrid GEMM's mr is 8 on AVX-512
VNNI): the ratio column is rillet's time over LiteRT's measured in the same run (below 1: faster).

    python bench/bench_hybrid_rows.py [--rows 1 2 3 4 5 6 7 8 16] [--sizes 768x768 128x512] [--runs 200]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from rillet.runtime import Interpreter

ROOT = Path(__file__).resolve().parents[1]


def hybrid_fc(rows: int, depth: int, units: int) -> bytes:
    sys.path.insert(0, str(ROOT / "tests" / "runtime"))
    from single_op import Const, Input, Quant, op_model

    rng = np.random.default_rng(0)
    scales = rng.uniform(0.001, 0.02, units).astype(np.float32)
    w = rng.integers(-127, 128, (units, depth)).astype(np.int8)
    bias = rng.uniform(-1, 1, units).astype(np.float32)
    return op_model("FULLY_CONNECTED", [Input((rows, depth), np.float32), Const(w, Quant(scales, 0)), bias],
                    [((rows, units), np.float32)], {"asymmetric_quantize_inputs": True}, version=12)


def ready(interpreter, x: np.ndarray):
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    return interpreter


def output(interpreter) -> np.ndarray:
    """One invoke's output (the two runtimes must agree before their times mean anything)."""
    interpreter.invoke()
    return interpreter.get_tensor(interpreter.get_output_details()[0]["index"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6, 7, 8, 16])
    parser.add_argument("--sizes", nargs="+", default=["768x768", "128x512", "512x128"], help="DEPTHxUNITS")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--blocks", type=int, default=10)
    args = parser.parse_args()
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    print("| rows | depth -> units | rillet CPU us | LiteRT+XNNPACK CPU us | ratio (medians) |")
    print("|---|---|---|---|---|")
    for size in args.sizes:
        depth, units = (int(v) for v in size.split("x"))
        for rows in args.rows:
            model = hybrid_fc(rows, depth, units)
            x = np.random.default_rng(1).uniform(-3, 3, (rows, depth)).astype(np.float32)
            runtimes = {"rillet": ready(Interpreter(model_content=model, num_threads=1), x),
                        "litert": ready(LiteRT(model_content=model, num_threads=1), x)}
            ours, theirs = (output(r) for r in runtimes.values())
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5 * float(np.abs(theirs).max()))
            times: dict[str, list[int]] = {name: [] for name in runtimes}
            for _ in range(args.blocks):
                for name, runtime in runtimes.items():
                    runtime.invoke(), runtime.invoke()  # the turn's first invokes refill the caches
                    for _ in range(max(1, args.runs // args.blocks)):
                        start = time.thread_time_ns()
                        runtime.invoke()
                        times[name].append(time.thread_time_ns() - start)
            a, b = (float(np.median(times[n])) / 1e3 for n in ("rillet", "litert"))
            print(f"| {rows} | {depth} -> {units} | {a:.1f} | {b:.1f} | {a / b:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
