"""More transformer architectures as litert-torch writes them, with LiteRT's outputs, beyond
bench/make_transformers.py's BERT / ViT / Whisper / GPT-2: the op patterns other families bring (rotary
embeddings, RMSNorm and SiLU gates, grouped-query attention, relative position buckets, convolution-attention
hybrids). Random weights from transformers' configs; nothing is downloaded. Same .tflite + .npz layout as
make_transformers.py (SIG/in/NAME, SIG/out/NAME), float32 and litert-torch's PT2E int8 of each.

    /work/txenv/bin/python bench/make_more_transformers.py [--out /work/txmodels/more] [--only llama ...]

- llama_tiny: LlamaModel (2 layers, hidden 128, 4 heads, 2 KV heads (GQA), RoPE, RMSNorm, SiLU MLP, seq 32).
- distilbert_tiny: DistilBertModel (2 layers, dim 128, 2 heads, seq 32).
- mobilevit_xxs: MobileViTModel at mobilevit-xx-small's widths, 128x128 input.
- t5_encoder_tiny: T5EncoderModel (2 layers, d_model 128, relative position buckets, seq 32).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_transformers import FULL, FirstOutput, float_and_int8  # noqa: E402


def token_input(vocab: int, seq: int):
    import torch

    def make(seed: int):
        return torch.from_numpy(np.random.default_rng(seed).integers(0, vocab, (1, seq)).astype(np.int64))
    return make


def llama(out: Path) -> None:
    import torch
    from transformers import LlamaConfig, LlamaModel

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=1000, hidden_size=128, intermediate_size=344, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                         attn_implementation="eager")
    float_and_int8(out, "llama_tiny", FirstOutput.wrap(LlamaModel(config).eval()), token_input(1000, 32), FULL,
                   int_high=1000)


def distilbert(out: Path) -> None:
    import torch
    from transformers import DistilBertConfig, DistilBertModel

    torch.manual_seed(0)
    config = DistilBertConfig(vocab_size=1000, dim=128, hidden_dim=512, n_layers=2, n_heads=2,
                              attn_implementation="eager")
    float_and_int8(out, "distilbert_tiny", FirstOutput.wrap(DistilBertModel(config).eval()), token_input(1000, 32),
                   FULL, int_high=1000)


def mobilevit(out: Path) -> None:
    import torch
    from transformers import MobileViTConfig, MobileViTModel

    torch.manual_seed(0)
    config = MobileViTConfig(image_size=128, hidden_sizes=[64, 80, 96], neck_hidden_sizes=[16, 16, 24, 48, 64, 80, 320],
                             expand_ratio=2.0)

    def make(seed: int):
        return torch.from_numpy(np.random.default_rng(seed).standard_normal((1, 3, 128, 128)).astype(np.float32))
    float_and_int8(out, "mobilevit_xxs", FirstOutput.wrap(MobileViTModel(config).eval()), make, FULL)


def t5_encoder(out: Path) -> None:
    import torch
    from transformers import T5Config, T5EncoderModel

    torch.manual_seed(0)
    config = T5Config(vocab_size=1000, d_model=128, d_kv=32, d_ff=256, num_layers=2, num_heads=4,
                      attn_implementation="eager")
    float_and_int8(out, "t5_encoder_tiny", FirstOutput.wrap(T5EncoderModel(config).eval()), token_input(1000, 32),
                   FULL, int_high=1000)


MAKERS = {"llama": llama, "distilbert": distilbert, "mobilevit": mobilevit, "t5": t5_encoder}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="/work/txmodels/more")
    p.add_argument("--only", nargs="+", choices=sorted(MAKERS))
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    failed = []
    for name in args.only or MAKERS:
        try:
            MAKERS[name](out)
        except Exception as e:  # one family's converter failure must not stop the others
            print(f"{name}: {type(e).__name__}: {str(e)[:400]}", flush=True)
            failed.append(name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
