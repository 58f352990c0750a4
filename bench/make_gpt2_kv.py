"""A GPT-2-shaped decoder with an external KV cache, written by litert-torch's generative API as its LLM
examples export it (prefill_N and decode signatures), with seeded random weights that give a varied greedy
continuation: the model bench/generate_gpt2.py and tests/runtime/test_gpt2_kv_generate.py run.

    /work/txenv/bin/python bench/make_gpt2_kv.py OUT.tflite [--tiny]

Needs torch and litert-torch (not rillet's dependencies). The weights are set here because DecoderOnlyModel
leaves its parameters uninitialised (torch.empty): converted as they come, the activations overflow, and the
converter may fold the logits to a constant (gpt2_kv_f32.tflite of bench/make_transformers.py: every logit 0,
layer 1's cache NaN in LiteRT and inf in rillet). --tiny: vocabulary 53, width 16, one layer, prefill 8, a
cache of 48 (room for 32 decode steps): the ~130 KB fixture tests/data/decoders/gpt2_kv_tiny.tflite."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

SIZES = {  # vocab, prefill length, width, heads, layers, cache length
    "small": (1000, 64, 128, 2, 2, 128),
    "tiny": (53, 8, 16, 2, 1, 48),
}


def make(out: Path, vocab: int, seq: int, embd: int, heads: int, layers: int, kv_len: int) -> None:
    import torch
    from litert_torch.generative.layers import model_config as cfg
    from litert_torch.generative.utilities import converter as gen_converter
    from litert_torch.generative.utilities import export_config as export_cfg
    from litert_torch.generative.utilities.model_builder import DecoderOnlyModel

    torch.manual_seed(0)
    norm = cfg.NormalizationConfig(type=cfg.NormalizationType.LAYER_NORM, enable_hlfb=False, epsilon=1e-5)
    attn = cfg.AttentionConfig(num_heads=heads, head_dim=embd // heads, num_query_groups=heads,
                               rotary_percentage=1.0, qkv_use_bias=True, output_proj_use_bias=True)
    ff = cfg.FeedForwardConfig(type=cfg.FeedForwardType.SEQUENTIAL,
                               activation=cfg.ActivationConfig(cfg.ActivationType.GELU_TANH),
                               intermediate_size=4 * embd, use_bias=True)
    block = cfg.TransformerBlockConfig(attn_config=attn, ff_config=ff, pre_attention_norm_config=norm,
                                       post_attention_norm_config=norm)
    config = cfg.ModelConfig(vocab_size=vocab, num_layers=layers, max_seq_len=kv_len, embedding_dim=embd,
                             block_configs=block, final_norm_config=norm, lm_head_use_bias=False, enable_hlfb=False)
    model = DecoderOnlyModel(config, mask_cache_size=kv_len).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1 and "norm" in name and name.endswith("weight"):
                p.copy_(1 + 0.1 * torch.randn_like(p))  # layer norm gains near 1, not all 1: the test sees them
            else:  # embeddings large enough that the logits tell tokens apart, the rest small
                p.copy_(torch.randn_like(p) * (1.0 if "embedding" in name else 0.3))
    with tempfile.TemporaryDirectory() as tmp:
        path = gen_converter.convert_to_tflite(model, output_path=tmp, output_name_prefix="gpt2_kv",
                                               prefill_seq_len=seq, kv_cache_max_len=kv_len, quantize="none",
                                               config=config,
                                               export_config=export_cfg.ExportConfig(output_logits_on_prefill=True))
        out.write_bytes(Path(path).read_bytes())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--tiny", action="store_true", help="the test fixture's sizes")
    args = parser.parse_args()
    make(args.out, *SIZES["tiny" if args.tiny else "small"])
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
