"""TFLite's 16x8 mode (int16 activations, int8 per-channel weights, int64 bias) against LiteRT's default
Interpreter, which runs its builtin kernels for it (XNNPACK takes no 16x8 op), in one interleaved run: a
MobileNet-like 3x3 and 1x1 CONV_2D, a 3x3 DEPTHWISE_CONV_2D, a FULLY_CONNECTED of one row and of 128 rows (int64
bias: TFLite's reference kernel; no bias: ruy) and a TRANSPOSE_CONV, at 1 and 2 threads on both sides. Medians of
invoke times (the Python call included); a ratio below 1 means rillet is faster.

    python bench/bench_int16x8.py [--runs 50]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import rillet
from rillet.commands.bench import _time_interleaved
from rillet.native import ffi, lib
from rillet.runtime import Interpreter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "runtime"))
from single_op import OPTIONS_TYPES, Const, Input, Quant, op_model

OPTIONS_TYPES.setdefault("TRANSPOSE_CONV", "TransposeConvOptions")
I16, I8 = np.int16, np.int8
RNG = np.random.default_rng(0)


def weights(shape, channels: int, axis: int = 0):
    return Const(RNG.integers(-127, 128, shape).astype(I8), Quant(RNG.uniform(1e-3, 1e-2, channels).astype(np.float32),
                                                                 0, axis))


def bias(channels: int):
    return Const(RNG.integers(-10**6, 10**6, channels).astype(np.int64), Quant(np.full(channels, 1e-6, np.float32), 0))


def conv(h: int, cin: int, cout: int, k: int, depthwise: bool = False) -> bytes:
    filt = weights((1, k, k, cout) if depthwise else (cout, k, k, cin), cout, 3 if depthwise else 0)
    options = {"padding": 0, "stride_h": 1, "stride_w": 1}
    if depthwise:
        options["depth_multiplier"] = 1
    return op_model("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D",
                    [Input((1, h, h, cin), I16, Quant(5e-4, 0)), filt, bias(cout)],
                    [((1, h, h, cout), I16, Quant(2e-2, 0))], options, version=5)


def fully_connected(rows: int, depth: int, units: int, with_bias: bool) -> bytes:
    return op_model("FULLY_CONNECTED", [Input((rows, depth), I16, Quant(5e-4, 0)), weights((units, depth), units),
                                        bias(units) if with_bias else None],
                    [((rows, units), I16, Quant(2e-2, 0))], {}, version=11)


def transpose_conv(h: int, cin: int, cout: int) -> bytes:
    return op_model("TRANSPOSE_CONV", [np.array([1, 2 * h, 2 * h, cout], np.int32), weights((cout, 3, 3, cin), cout),
                                       Input((1, h, h, cin), I16, Quant(5e-4, 0)), bias(cout)],
                    [((1, 2 * h, 2 * h, cout), I16, Quant(2e-2, 0))],
                    {"padding": 0, "stride_h": 2, "stride_w": 2}, version=3)


CASES = [
    ("CONV_2D 3x3 28x28x32->32", lambda: conv(28, 32, 32, 3)),
    ("CONV_2D 1x1 28x28x64->64", lambda: conv(28, 64, 64, 1)),
    ("DEPTHWISE 3x3 56x56x64", lambda: conv(56, 64, 64, 3, depthwise=True)),
    ("FC 1x1024->1000, int64 bias", lambda: fully_connected(1, 1024, 1000, True)),
    ("FC 128x256->256, int64 bias", lambda: fully_connected(128, 256, 256, True)),
    ("FC 128x256->256, no bias", lambda: fully_connected(128, 256, 256, False)),
    ("TRANSPOSE_CONV 3x3 s2 14x14x32->16", lambda: transpose_conv(14, 32, 16)),
]


def ready(interpreter_class, model: bytes, threads: int):
    it = interpreter_class(model_content=model, num_threads=threads)
    it.allocate_tensors()
    rng = np.random.default_rng(1)
    for d in it.get_input_details():
        it.set_tensor(d["index"], rng.integers(-32768, 32768, d["shape"]).astype(I16))
    return it.invoke


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    plan = ffi.new("rl_plan **")
    lib.rl_plan_create(plan, 1)
    print(f"rillet from {Path(rillet.__file__).parent}, path {ffi.string(lib.rl_plan_isa(plan[0])).decode()}; "
          f"medians of {args.runs} invokes, microseconds; LiteRT's default Interpreter")
    lib.rl_plan_destroy(plan[0])
    print(f"{'case':<36} {'thr':>3} {'rillet':>9} {'LiteRT':>9} {'rl/LR':>6}")
    for name, build in CASES:
        model = build()
        invokes = {}
        for threads in (1, 2):
            invokes[f"rl{threads}"] = ready(Interpreter, model, threads)
            invokes[f"LR{threads}"] = ready(LiteRT, model, threads)
        us = {key: v["median_ms"] * 1e3 for key, v in _time_interleaved(invokes, args.runs).items()}
        for threads in (1, 2):
            rl, lr = us[f"rl{threads}"], us[f"LR{threads}"]
            print(f"{name:<36} {threads:>3} {rl:9.1f} {lr:9.1f} {rl / lr:6.2f}")


if __name__ == "__main__":
    main()
