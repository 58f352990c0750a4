"""int8 element-wise ops and pooling against float and against LiteRT, in one interleaved run: single-op
models (MUL/SUB by a constant, same-shape ADD, per-channel ADD/MUL over NHWC, max and average pooling) at the
digits model's batch-16 sizes and at MobileNet-like sizes, QUANTIZE and DEQUANTIZE, and the digits training
file's step (float and int8 frozen convolutions). Medians of invoke times (the Python call included, as an app
sees it); ratios below 1 mean rillet (or int8) is faster. "rl f32 ref" is rillet's float model on the scalar
path (RILLET_ISA=scalar): for pooling, the kernels every path ran before the SIMD pooling kernels.

    python bench/bench_int8_elementwise_pool.py [--runs 300]

Each case is a one-op .tflite file built as tests/runtime/single_op.py builds them; LiteRT runs its default
Interpreter (XNNPACK where it takes the op), one thread on both sides.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

import rillet
from rillet.commands.bench import _time_interleaved
from rillet.finetune import head_training_file
from rillet.native import ffi, lib
from rillet.runtime import Interpreter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "runtime"))
from single_op import Const, Input, Quant, op_model

I8, F32 = np.int8, np.float32


def binary(op: str, shape, other, int8: bool):
    """op(x, constant) with the constant of shape `other` (() a scalar, [C] per channel, None: a second input)."""
    rng = np.random.default_rng(0)
    q = (lambda s, z: Quant(s, z)) if int8 else (lambda s, z: None)
    dtype = I8 if int8 else F32
    if other is None:
        b = Input(shape, dtype, q(0.03, 5))
    else:
        value = rng.integers(-100, 100, other).astype(I8) if int8 else rng.uniform(-1, 1, other).astype(F32)
        b = Const(value, q(0.02, -3)) if int8 else value
    model = op_model(op, [Input(shape, dtype, q(0.05, -10)), b], [((1,), dtype, q(0.04, 2))],
                     {"fused_activation_function": 0}, version=2 if int8 else 1)
    return model, 1 if other is not None else 2


def pool(op: str, shape, k: int, stride: int, int8: bool):
    dtype, q = (I8, Quant(0.05, -3)) if int8 else (F32, None)
    model = op_model(op, [Input(shape, dtype, q)], [((1,), dtype, q)],
                     {"padding": 1, "stride_w": stride, "stride_h": stride, "filter_width": k, "filter_height": k,
                      "fused_activation_function": 0}, version=2 if int8 else 1)
    return model, 1


def convert(op: str, shape):
    """QUANTIZE (float32 to int8) or DEQUANTIZE (int8 to float32) of one tensor."""
    q = Quant(0.05, -3)
    source, target = ((F32, None), (I8, q)) if op == "QUANTIZE" else ((I8, q), (F32, None))
    return op_model(op, [Input(shape, *source)], [((1,), *target)], None), 1


CASES = [
    ("MUL x 1/16 [16,8,8,1]", lambda i8: binary("MUL", (16, 8, 8, 1), (), i8)),
    ("SUB - c [16,8,8,1]", lambda i8: binary("SUB", (16, 8, 8, 1), (), i8)),
    ("MUL x c [1,56,56,64]", lambda i8: binary("MUL", (1, 56, 56, 64), (), i8)),
    ("ADD same shape [1,56,56,64]", lambda i8: binary("ADD", (1, 56, 56, 64), None, i8)),
    ("ADD [64] over [1,56,56,64]", lambda i8: binary("ADD", (1, 56, 56, 64), (64,), i8)),
    ("MUL [24] over [1,28,28,24]", lambda i8: binary("MUL", (1, 28, 28, 24), (24,), i8)),
    ("MAX_POOL 2x2/2 [16,8,8,16]", lambda i8: pool("MAX_POOL_2D", (16, 8, 8, 16), 2, 2, i8)),
    ("MAX_POOL 2x2/2 [16,4,4,32]", lambda i8: pool("MAX_POOL_2D", (16, 4, 4, 32), 2, 2, i8)),
    ("MAX_POOL 3x3/2 [1,56,56,64]", lambda i8: pool("MAX_POOL_2D", (1, 56, 56, 64), 3, 2, i8)),
    ("AVG_POOL 3x3/2 [1,56,56,64]", lambda i8: pool("AVERAGE_POOL_2D", (1, 56, 56, 64), 3, 2, i8)),
    ("AVG_POOL 7x7 [1,7,7,256]", lambda i8: pool("AVERAGE_POOL_2D", (1, 7, 7, 256), 7, 1, i8)),
]


CONVERSIONS = [
    ("QUANTIZE [16,8,8,1]", lambda: convert("QUANTIZE", (16, 8, 8, 1))),
    ("QUANTIZE [1,56,56,64]", lambda: convert("QUANTIZE", (1, 56, 56, 64))),
    ("DEQUANTIZE [1,10]", lambda: convert("DEQUANTIZE", (1, 10))),
    ("DEQUANTIZE [1,56,56,64]", lambda: convert("DEQUANTIZE", (1, 56, 56, 64))),
]


def ready(interpreter_class, model: bytes, inputs: int, isa: str | None = None):
    """The invoke of a ready interpreter; `isa` forces rillet's kernel path (read when the plan is made)."""
    saved = os.environ.get("RILLET_ISA")
    if isa:
        os.environ["RILLET_ISA"] = isa
    try:
        it = interpreter_class(model_content=model, num_threads=1)
    finally:
        if saved is None:
            os.environ.pop("RILLET_ISA", None)
        else:
            os.environ["RILLET_ISA"] = saved
    it.allocate_tensors()
    rng = np.random.default_rng(1)
    for d in it.get_input_details()[:inputs]:
        value = rng.integers(-128, 128, d["shape"]) if d["dtype"] == np.int8 else rng.uniform(-1, 1, d["shape"])
        it.set_tensor(d["index"], value.astype(d["dtype"]))
    return it.invoke


def train_step(interpreter_class, model: bytes, batch: int):
    rng = np.random.default_rng(0)
    feeds = {"image": rng.uniform(0, 16, (batch, 8, 8, 1)).astype(F32), "y": rng.integers(0, 10, batch).astype(np.int32)}
    train = interpreter_class(model_content=model).get_signature_runner("train")
    return lambda: train(**feeds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    plan = ffi.new("rl_plan **")
    lib.rl_plan_create(plan, 1)
    print(f"rillet from {Path(rillet.__file__).parent}, path {ffi.string(lib.rl_plan_isa(plan[0])).decode()}; "
          f"medians of {args.runs} invokes, microseconds")
    lib.rl_plan_destroy(plan[0])
    print(f"{'case':<30} {'rl f32':>8} {'rl f32 ref':>10} {'rl int8':>8} {'LR f32':>8} {'LR int8':>8} "
          f"{'rl/LR f32':>9} {'rl/LR int8':>10} {'int8/f32 rl':>11} {'int8/f32 LR':>11}")
    for name, build in CASES:
        invokes = {}
        for int8 in (False, True):
            model, inputs = build(int8)
            tag = "int8" if int8 else "f32"
            invokes[f"rl {tag}"] = ready(Interpreter, model, inputs)
            invokes[f"LR {tag}"] = ready(LiteRT, model, inputs)
            if not int8:
                invokes["rl f32 ref"] = ready(Interpreter, model, inputs, isa="scalar")
        us = {k: v["median_ms"] * 1e3 for k, v in _time_interleaved(invokes, args.runs).items()}
        print(f"{name:<30} {us['rl f32']:8.2f} {us['rl f32 ref']:10.2f} {us['rl int8']:8.2f} {us['LR f32']:8.2f} "
              f"{us['LR int8']:8.2f} {us['rl f32'] / us['LR f32']:9.2f} {us['rl int8'] / us['LR int8']:10.2f} "
              f"{us['rl int8'] / us['rl f32']:11.2f} {us['LR int8'] / us['LR f32']:11.2f}")
    print(f"\n{'conversion':<30} {'rl':>8} {'rl ref':>10} {'LR':>8} {'rl/LR':>9}")
    for name, build in CONVERSIONS:
        model, inputs = build()
        invokes = {"rl": ready(Interpreter, model, inputs), "rl ref": ready(Interpreter, model, inputs, isa="scalar"),
                   "LR": ready(LiteRT, model, inputs)}
        us = {k: v["median_ms"] * 1e3 for k, v in _time_interleaved(invokes, args.runs).items()}
        print(f"{name:<30} {us['rl']:8.2f} {us['rl ref']:10.2f} {us['LR']:8.2f} {us['rl'] / us['LR']:9.2f}")
    for batch in (16,):
        steps = {}
        for int8 in (False, True):
            model = head_training_file(0.01, frozen_int8=int8)
            tag = "int8" if int8 else "f32"
            steps[f"rl {tag}"] = train_step(Interpreter, model, batch)
            steps[f"LR {tag}"] = train_step(LiteRT, model, batch)
        us = {k: v["median_ms"] * 1e3 for k, v in _time_interleaved(steps, args.runs).items()}
        print(f"{'digits train step, batch ' + str(batch):<30} {us['rl f32']:8.2f} {us['rl int8']:8.2f} "
              f"{us['LR f32']:8.2f} {us['LR int8']:8.2f} {us['rl int8'] / us['LR int8']:10.2f} "
              f"{us['rl int8'] / us['rl f32']:11.2f} {us['LR int8'] / us['LR f32']:11.2f}")


if __name__ == "__main__":
    main()
