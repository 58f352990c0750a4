"""int8 attention's two BATCH_MATMULs (scores = Q K^T, then scores V) against LiteRT, in one interleaved run:
BERT-tiny (sequence 64, 2 heads of 64), ViT-tiny (sequence 197, 3 heads of 64) and Whisper-tiny's encoder scores
(sequence 1500, 6 heads of 64; a twentieth of the runs), both operands activations,
y's zero point 0 (LiteRT's default Interpreter hands the op to XNNPACK) and 5 (XNNPACK declines; TFLite's
builtin kernel runs), at 1 and 2 threads on both sides. Medians of invoke times (the Python call included);
a ratio below 1 means rillet is faster.

    python bench/bench_int8_attention.py [--runs 200]
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
from single_op import Input, Quant, op_model

I8 = np.int8


def attention_matmul(heads: int, m: int, k: int, n: int, adj_y: bool, zy: int) -> bytes:
    x_shape = (1, heads, m, k)
    y_shape = (1, heads, n, k) if adj_y else (1, heads, k, n)
    return op_model("BATCH_MATMUL", [Input(x_shape, I8, Quant(0.04, -7)), Input(y_shape, I8, Quant(0.03, zy))],
                    [((1, heads, m, n), I8, Quant(0.5, 3))], {"adj_x": False, "adj_y": adj_y}, version=4)


CASES = [  # name, heads, m, k, n, adj_y
    ("BERT-tiny Q K^T [2,64,64]x[2,64,64]^T", 2, 64, 64, 64, True),
    ("BERT-tiny scores V [2,64,64]x[2,64,64]", 2, 64, 64, 64, False),
    ("ViT-tiny Q K^T [3,197,64]x[3,197,64]^T", 3, 197, 64, 197, True),
    ("ViT-tiny scores V [3,197,197]x[3,197,64]", 3, 197, 197, 64, False),
    # litert-torch's Whisper-tiny encoder: K arrives transposed, [6,64,1500] (its file's layout)
    ("Whisper-tiny Q K^T [6,1500,64]x[6,64,1500]", 6, 1500, 64, 1500, False),
]


def ready(interpreter_class, model: bytes, threads: int):
    it = interpreter_class(model_content=model, num_threads=threads)
    it.allocate_tensors()
    rng = np.random.default_rng(1)
    for d in it.get_input_details():
        it.set_tensor(d["index"], rng.integers(-128, 128, d["shape"]).astype(I8))
    return it.invoke


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    plan = ffi.new("rl_plan **")
    lib.rl_plan_create(plan, 1)
    print(f"rillet from {Path(rillet.__file__).parent}, path {ffi.string(lib.rl_plan_isa(plan[0])).decode()}; "
          f"medians of {args.runs} invokes, microseconds; LiteRT's default Interpreter")
    lib.rl_plan_destroy(plan[0])
    print(f"{'case':<42} {'zy':>3} {'thr':>3} {'rillet':>9} {'LiteRT':>9} {'rl/LR':>6}")
    for name, heads, m, k, n, adj_y in CASES:
        for zy in (0, 5):
            model = attention_matmul(heads, m, k, n, adj_y, zy)
            invokes = {}
            for threads in (1, 2):
                invokes[f"rl{threads}"] = ready(Interpreter, model, threads)
                invokes[f"LR{threads}"] = ready(LiteRT, model, threads)
            runs = args.runs if m * n < 10**6 else max(5, args.runs // 20)
            us = {key: v["median_ms"] * 1e3 for key, v in _time_interleaved(invokes, runs).items()}
            for threads in (1, 2):
                rl, lr = us[f"rl{threads}"], us[f"LR{threads}"]
                print(f"{name:<42} {zy:>3} {threads:>3} {rl:9.1f} {lr:9.1f} {rl / lr:6.2f}")


if __name__ == "__main__":
    main()
