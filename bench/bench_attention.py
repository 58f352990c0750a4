"""Attention's float BATCH_MATMULs against LiteRT + XNNPACK (ai_edge_litert's default Interpreter): single-op
models of Q·Kᵀ ([1,h,s,d] x [1,h,s,d] with adj_y, as litert-torch writes it) and P·V ([1,h,s,s] x [1,h,s,d]),
both operands graph inputs, at BERT-tiny (seq 64, 2 heads, d 64), ViT-tiny (seq 197, 3 heads, d 64) and
Whisper-tiny's encoder (seq 1500, 6 heads, d 64) sizes. rillet and LiteRT take turns in one interleaved loop
per model and thread count (rillet.commands.bench's timing); medians and the ratio rillet / LiteRT (below 1:
rillet is faster).

    python bench/bench_attention.py [--threads 1 2] [--runs 30] [--models bert vit whisper]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "runtime"))

from single_op import Input, op_model  # noqa: E402

from rillet.commands.bench import _ready, _time_interleaved  # noqa: E402
from rillet.native import kernel_path  # noqa: E402

SIZES = {"bert": ("BERT-tiny", 64, 2, 64), "vit": ("ViT-tiny", 197, 3, 64),
         "whisper": ("Whisper-tiny", 1500, 6, 64)}  # label, seq, heads, d


def products(seq: int, heads: int, d: int) -> dict[str, bytes]:
    qk = op_model("BATCH_MATMUL", [Input((1, heads, seq, d)), Input((1, heads, seq, d))],
                  [((1, heads, seq, seq), "float32")], {"adj_x": False, "adj_y": True})
    pv = op_model("BATCH_MATMUL", [Input((1, heads, seq, seq)), Input((1, heads, seq, d))],
                  [((1, heads, seq, d), "float32")], {"adj_x": False, "adj_y": False})
    return {"Q·Kᵀ": qk, "P·V": pv}


def bench(path: str, threads: list[int], runs: int) -> dict[int, dict[str, float]]:
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    invokes, keep = {}, []
    for n in threads:
        for name, make in (("rillet", lambda: Interpreter(model_path=path, num_threads=n)),
                           ("litert", lambda: LiteRT(model_path=path, num_threads=n))):
            interpreter = make()
            invokes[(n, name)] = _ready(interpreter)
            keep.append(interpreter)
    stats = _time_interleaved(invokes, runs, warmup=2)
    return {n: {name: stats[(n, name)]["median_ms"] for name in ("rillet", "litert")} for n in threads}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--models", nargs="+", choices=list(SIZES), default=list(SIZES))
    args = parser.parse_args()
    print(f"rillet path {kernel_path()}; medians of {args.runs} interleaved invokes; "
          "ratio = rillet / LiteRT+XNNPACK")
    print(f"{'shape':<28} {'threads':>7} {'rillet ms':>10} {'LiteRT ms':>10} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as folder:
        for key in args.models:
            label, seq, heads, d = SIZES[key]
            for product, content in products(seq, heads, d).items():
                path = Path(folder) / f"{key}.tflite"
                path.write_bytes(content)
                for n, t in bench(str(path), args.threads, args.runs).items():
                    print(f"{label + ' ' + product:<28} {n:>7} {t['rillet']:>10.3f} {t['litert']:>10.3f} "
                          f"{t['rillet'] / t['litert']:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
