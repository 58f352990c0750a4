"""A transformer's element-wise parts, rillet against LiteRT's default Interpreter (XNNPACK where it takes the
op) in one interleaved run: SOFTMAX over [1, heads, seq, seq], GELU over [1, seq, 4d] (erf form), and a layer
norm over [1, seq, d] as Keras and as a PyTorch export lower it (tests/runtime/transformer_graphs.py), at
BERT-tiny (seq 64, d 128, 2 heads), ViT-tiny (seq 197, d 192, 3 heads) and Whisper-tiny encoder (seq 1500,
d 384, 6 heads) sizes. Medians of invoke times; the ratio is rillet / LiteRT (below 1: rillet is faster).

    python bench/bench_transformer_ops.py [--runs 40] [--threads 1]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from ai_edge_litert.interpreter import Interpreter as LiteRT

from rillet.commands.bench import _ready, _time_interleaved
from rillet.runtime import Interpreter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "runtime"))
from transformer_graphs import gelu_model, layer_norm_model, softmax_model

SIZES = {"bert-tiny": (64, 128, 2), "vit-tiny": (197, 192, 3), "whisper-tiny": (1500, 384, 6)}


def cases(only: str | None):
    for name, (seq, d, heads) in SIZES.items():
        if only and only not in name:
            continue
        yield f"{name} SOFTMAX [1,{heads},{seq},{seq}]", softmax_model((1, heads, seq, seq))
        yield f"{name} GELU [1,{seq},{4 * d}]", gelu_model((1, seq, 4 * d))
        yield f"{name} layer norm keras [1,{seq},{d}]", layer_norm_model(seq, d, "keras")
        yield f"{name} layer norm torch [1,{seq},{d}]", layer_norm_model(seq, d, "torch")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--only", help="only the sizes whose name holds this")
    args = parser.parse_args()
    print(f"{'case':44s} {'rillet ms':>10s} {'LiteRT ms':>10s} {'ratio':>6s}")
    for label, content in cases(args.only):
        invokes = {"rillet": _ready(Interpreter(model_content=content, num_threads=args.threads)),
                   "litert": _ready(LiteRT(model_content=content, num_threads=args.threads))}
        stats = _time_interleaved(invokes, args.runs)
        r, l_ = stats["rillet"]["median_ms"], stats["litert"]["median_ms"]
        print(f"{label:44s} {r:10.3f} {l_:10.3f} {r / l_:6.2f}", flush=True)


if __name__ == "__main__":
    np.random.seed(0)
    main()
