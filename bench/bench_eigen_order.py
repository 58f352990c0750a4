"""LOG_SOFTMAX and a one-row FULLY_CONNECTED with changing weights (a training step's head), the two ops rillet
runs in LiteRT's Eigen order (native/kernels/f32_log_softmax*, f32_gemv_eigen*): rillet on its scalar reference
(RILLET_ISA=scalar, the order's specification, what every path ran before the SSE kernels), rillet on this CPU's
best path (the SSE-packet kernels on x86), and LiteRT's default interpreter, one thread each, in one run.
Rounds interleave the three; each round times a batch of invokes per interpreter; the table gives the median
over rounds of the time per invoke (microseconds) and the ratios to LiteRT (below 1: faster than LiteRT).

    python bench/bench_eigen_order.py [--rounds 30] [--invokes 50]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "runtime"))
from single_op import Input, op_model  # noqa: E402

F32 = np.float32


def cases():
    rs = np.random.default_rng(0)
    x = rs.normal(0, 3, (1, 1000)).astype(F32)
    yield "LOG_SOFTMAX 1x1000", op_model("LOG_SOFTMAX", [Input(x.shape)], [(x.shape, F32)]), [x]
    for depth, units in ((1280, 1000), (64, 64)):
        feeds = [rs.normal(size=(1, depth)).astype(F32), rs.normal(size=(units, depth)).astype(F32),
                 rs.normal(size=units).astype(F32)]
        model = op_model("FULLY_CONNECTED", [Input((1, depth)), Input((units, depth)), Input((units,))],
                         [((1, units), F32)], {"fused_activation_function": 0})
        yield f"FC {depth}->{units} (weights as input)", model, feeds


def ready(Interpreter, model, feeds, isa=None):
    old = os.environ.pop("RILLET_ISA", None)
    if isa:
        os.environ["RILLET_ISA"] = isa
    try:
        it = Interpreter(model_content=model, num_threads=1)
    finally:
        os.environ.pop("RILLET_ISA", None)
        if old is not None:
            os.environ["RILLET_ISA"] = old
    it.allocate_tensors()
    for detail, value in zip(it.get_input_details(), feeds):
        it.set_tensor(detail["index"], value)
    return it


def per_invoke(it, invokes: int) -> float:
    start = time.perf_counter()
    for _ in range(invokes):
        it.invoke()
    return 1e6 * (time.perf_counter() - start) / invokes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--invokes", type=int, default=50)
    args = parser.parse_args()
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    print(f"{'op':34s} {'ref us':>9s} {'simd us':>9s} {'LiteRT us':>9s} {'ref/LiteRT':>10s} {'simd/LiteRT':>11s}")
    for name, model, feeds in cases():
        its = {"ref": ready(Interpreter, model, feeds, "scalar"), "simd": ready(Interpreter, model, feeds),
               "litert": ready(LiteRT, model, feeds)}
        outs = {}
        for k, it in its.items():
            it.invoke()
            outs[k] = it.get_tensor(it.get_output_details()[0]["index"])
        assert all(outs[k].tobytes() == outs["litert"].tobytes() for k in outs), f"{name}: outputs differ"
        samples = {k: [] for k in its}
        for _ in range(args.rounds):
            for k, it in its.items():
                samples[k].append(per_invoke(it, args.invokes))
        med = {k: statistics.median(v) for k, v in samples.items()}
        print(f"{name:34s} {med['ref']:9.1f} {med['simd']:9.1f} {med['litert']:9.1f} "
              f"{med['ref'] / med['litert']:10.2f} {med['simd'] / med['litert']:11.2f}")


if __name__ == "__main__":
    main()
