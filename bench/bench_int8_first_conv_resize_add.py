"""The int8 ops the per-op profiles pointed at, against their float twins and LiteRT, in one interleaved run:
a model's first convolution over few input channels (MobileNet's RGB 3x3/2 layer, cnn_small's one-channel
3x3), int8 RESIZE_BILINEAR on XNNPACK's arithmetic (the output declared 4-D, so LiteRT delegates it), and
same-shape int8 ADD. Medians of invoke times (the Python call included, as an app sees it), microseconds;
ratios below 1 mean rillet (or int8) is faster.

    python bench/bench_int8_first_conv_resize_add.py [--runs 300]

Each case is a one-op .tflite file built as tests/runtime/single_op.py builds them; LiteRT runs its default
Interpreter (XNNPACK where it takes the op), one thread on both sides.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from bench_int8_elementwise_pool import binary, ready

import rillet
from rillet.commands.bench import _time_interleaved
from rillet.native import ffi, lib
from rillet.runtime import Interpreter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "runtime"))
from single_op import Const, Input, Quant, op_model

I8, F32 = np.int8, np.float32


def conv(shape, cout: int, k: int, stride: int, padding: int, int8: bool):
    """CONV_2D with RELU6, as a model's first layer: random weights, per-channel scales for int8."""
    rng = np.random.default_rng(0)
    n, cin = shape[0], shape[3]
    options = {"padding": padding, "stride_w": stride, "stride_h": stride, "fused_activation_function": 3,
               "dilation_w_factor": 1, "dilation_h_factor": 1}
    if not int8:
        inputs = [Input(shape), rng.standard_normal((cout, k, k, cin)).astype(F32), rng.standard_normal(cout).astype(F32)]
        return op_model("CONV_2D", inputs, [((n, 1, 1, cout), F32)], options), 1
    sw = rng.uniform(0.002, 0.02, cout).astype(F32)
    inputs = [Input(shape, I8, Quant(0.02, -5)),
              Const(rng.integers(-127, 128, (cout, k, k, cin)).astype(I8), Quant(sw, 0, 0)),
              Const(rng.integers(-3000, 3000, cout).astype(np.int32), Quant(np.float32(0.02) * sw, 0))]
    return op_model("CONV_2D", inputs, [((n, 1, 1, cout), I8, Quant(0.03, -128))], options, version=3), 1


def resize(shape, size, int8: bool):
    """RESIZE_BILINEAR (half-pixel centers) to a constant size, the output declared with its true 4-D shape."""
    dtype, q = (I8, Quant(0.05, 3)) if int8 else (F32, None)
    out = (shape[0], size[0], size[1], shape[3])
    return op_model("RESIZE_BILINEAR", [Input(shape, dtype, q), np.array(size, np.int32)], [(out, dtype, q)],
                    {"align_corners": False, "half_pixel_centers": True}), 1


CASES = [
    ("CONV 3x3/2 [1,96,96,3]->16", lambda i8: conv((1, 96, 96, 3), 16, 3, 2, 0, i8)),
    ("CONV 3x3/1 [1,28,28,1]->8", lambda i8: conv((1, 28, 28, 1), 8, 3, 1, 1, i8)),
    ("CONV 3x3/2 [1,64,64,4]->24", lambda i8: conv((1, 64, 64, 4), 24, 3, 2, 0, i8)),
    ("RESIZE [1,7,7,16]->14x14", lambda i8: resize((1, 7, 7, 16), (14, 14), i8)),
    ("RESIZE [1,24,24,3]->48x48", lambda i8: resize((1, 24, 24, 3), (48, 48), i8)),
    ("RESIZE [1,64,64,32]->128x128", lambda i8: resize((1, 64, 64, 32), (128, 128), i8)),
    ("ADD same shape [1,56,56,64]", lambda i8: binary("ADD", (1, 56, 56, 64), None, i8)),
    ("ADD same shape [1,14,14,24]", lambda i8: binary("ADD", (1, 14, 14, 24), None, i8)),
    ("ADD same shape [16,8,8,1]", lambda i8: binary("ADD", (16, 8, 8, 1), None, i8)),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--only", default="", help="run only the cases whose name contains this")
    args = parser.parse_args()
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    plan = ffi.new("rl_plan **")
    lib.rl_plan_create(plan, 1)
    print(f"rillet from {Path(rillet.__file__).parent}, path {ffi.string(lib.rl_plan_isa(plan[0])).decode()}; "
          f"medians of {args.runs} invokes, microseconds")
    lib.rl_plan_destroy(plan[0])
    print(f"{'case':<30} {'rl f32':>8} {'rl int8':>8} {'LR f32':>8} {'LR int8':>8} "
          f"{'rl/LR f32':>9} {'rl/LR int8':>10} {'int8/f32 rl':>11} {'int8/f32 LR':>11}")
    for name, build in CASES:
        if args.only not in name:
            continue
        invokes = {}
        for int8 in (False, True):
            model, inputs = build(int8)
            tag = "int8" if int8 else "f32"
            invokes[f"rl {tag}"] = ready(Interpreter, model, inputs)
            invokes[f"LR {tag}"] = ready(LiteRT, model, inputs)
        us = {k: v["median_ms"] * 1e3 for k, v in _time_interleaved(invokes, args.runs).items()}
        print(f"{name:<30} {us['rl f32']:8.2f} {us['rl int8']:8.2f} {us['LR f32']:8.2f} {us['LR int8']:8.2f} "
              f"{us['rl f32'] / us['LR f32']:9.2f} {us['rl int8'] / us['LR int8']:10.2f} "
              f"{us['rl int8'] / us['rl f32']:11.2f} {us['LR int8'] / us['LR f32']:11.2f}")


if __name__ == "__main__":
    main()
