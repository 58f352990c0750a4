"""TFLite's 16x8 mode outside the GEMMs: rillet's int16 ops against LiteRT's default Interpreter in one
interleaved run, at a small transformer's sizes (sequence 128, width 256, 4 heads), plus the converter's
attention block from tests/data/int16x8_ops. Medians of invoke times (the Python call included, as an app sees
it); rl/LR below 1 means rillet is faster. LiteRT runs these on its builtin kernels (XNNPACK takes no int16 op),
one thread on both sides.

    python bench/bench_int16x8_ops.py [--runs 200]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from rillet.commands.bench import _time_interleaved
from rillet.runtime import Interpreter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "runtime"))
from single_op import OPTIONS_TYPES, Input, Quant, op_model

I16 = np.int16
OPTIONS_TYPES.update({"GELU": "GeluOptions"})


def x16(shape, scale=0.001):
    return Input(shape, I16, Quant(scale, 0))


def cases() -> dict[str, tuple[bytes, list[np.ndarray]]]:
    rng = np.random.default_rng(0)
    rows, width, heads = 128, 256, 4

    def r(shape):
        return rng.integers(-20000, 20000, shape).astype(I16)

    out = lambda shape, scale=0.002: [(shape, I16, Quant(scale, 0))]
    t = (rows, width)
    s = (1, heads, rows, rows)
    made = {
        "QUANTIZE f32->s16 128x256": (op_model("QUANTIZE", [Input(t, np.float32)], out(t)),
                                      [rng.standard_normal(t).astype(np.float32)]),
        "DEQUANTIZE 128x256": (op_model("DEQUANTIZE", [x16(t)], [(t, np.float32)]), [r(t)]),
        "ADD 128x256 (general)": (op_model("ADD", [x16(t), x16(t, 0.0015)], out(t), {"pot_scale_int16": False}),
                                  [r(t), r(t)]),
        "ADD 128x256 + [256]": (op_model("ADD", [x16(t), x16((width,), 0.0015)], out(t), {"pot_scale_int16": False}),
                                [r(t), r((width,))]),
        "MUL 128x256 * [256]": (op_model("MUL", [x16(t), x16((width,), 0.0015)], out(t), {}), [r(t), r((width,))]),
        "SUB 128x256 - [128,1]": (op_model("SUB", [x16(t), x16((rows, 1), 0.0015)], out(t), {"pot_scale_int16": False}),
                                  [r(t), r((rows, 1))]),
        "SOFTMAX 4x128x128": (op_model("SOFTMAX", [x16(s)], [(s, I16, Quant(1 / 32768, 0))], {"beta": 1.0}), [r(s)]),
        "MEAN 128x256 over 256": (op_model("MEAN", [x16(t), np.array([1], np.int32)], out((rows, 1)),
                                           {"keep_dims": True}), [r(t)]),
        "RSQRT 128x1": (op_model("RSQRT", [x16((rows, 1))], out((rows, 1))), [np.abs(r((rows, 1)))]),
        "GELU 128x1024": (op_model("GELU", [x16((rows, 4 * width))], out((rows, 4 * width)), {"approximate": True}),
                          [r((rows, 4 * width))]),
        "LOGISTIC 128x256": (op_model("LOGISTIC", [x16(t)], [(t, I16, Quant(1 / 32768, 0))]), [r(t)]),
        "TANH 128x256": (op_model("TANH", [x16(t)], [(t, I16, Quant(1 / 32768, 0))]), [r(t)]),
    }
    block = (ROOT / "tests" / "data" / "int16x8_ops" / "attention_block.tflite").read_bytes()
    made["converter's attention block 8x16"] = (block, [rng.standard_normal((1, 8, 16)).astype(np.float32)])
    return made


def ready(interpreter_class, content: bytes, feeds: list[np.ndarray], **kwargs):
    it = interpreter_class(model_content=content, num_threads=1, **kwargs)
    it.allocate_tensors()
    for detail, value in zip(it.get_input_details(), feeds):
        it.set_tensor(detail["index"], value)
    return it.invoke


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    print(f"{'case':<34} {'rl us':>9} {'LR us':>9} {'rl/LR':>7}")
    for name, (content, feeds) in cases().items():
        invokes = {"rl": ready(Interpreter, content, feeds), "LR": ready(LiteRT, content, feeds)}
        us = {k: v["median_ms"] * 1e3 for k, v in _time_interleaved(invokes, args.runs).items()}
        print(f"{name:<34} {us['rl']:9.1f} {us['LR']:9.1f} {us['rl'] / us['LR']:7.2f}", flush=True)


if __name__ == "__main__":
    main()
