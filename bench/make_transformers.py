"""Writes small transformer models as today's converters write them, with LiteRT's outputs: the models rillet
must run with LiteRT's results (issue 28). Random weights only; nothing is downloaded.

Runs in a development venv outside the repository (TensorFlow and torch are not rillet dependencies):

    python3 -m venv /work/txenv
    /work/txenv/bin/pip install tensorflow-cpu torch litert-torch transformers ai-edge-litert numpy
    /work/txenv/bin/python bench/make_transformers.py [--out /work/txmodels] [--only bert vit whisper gpt2]
    /work/txenv/bin/python bench/make_transformers.py --fixtures   # the test copies: tests/data/transformers

Each MODEL.tflite comes with MODEL.npz: for every signature SIG of the model, `SIG/in/NAME` (the inputs given)
and `SIG/out/NAME` (what LiteRT's default Interpreter, XNNPACK included, returned), the names being the
signature's own. Models with one signature use it; the decode signature of the KV-cache GPT-2 is fed the
cache its prefill wrote, so its inputs are the ones a generation loop would give.

The models (full size; --fixtures shrinks sequence, width and vocabulary but keeps every op pattern):
- bert_tiny_{f32,dynamic,int8}: a BERT encoder (2 layers, hidden 128, 2 heads, seq 64, vocab 30522) written
  by hand in Keras (MultiHeadAttention, LayerNormalization, GELU) and converted by tf.lite: float32,
  dynamic-range (Optimize.DEFAULT with no data) and full int8 (representative data, int8 builtins, float I/O).
- vit_tiny_{f32,dynamic,int8}: transformers' ViTModel (4 blocks, 224x224, patch 16, hidden 192, 3 heads)
  through litert-torch; int8 by litert-torch's PT2E quantizer (static, per-channel weights); dynamic-range by
  ai_edge_quantizer's dynamic_wi8_afp32 recipe on the float file (per-channel int8 weights, float
  activations quantized per row at run time: hybrid FULLY_CONNECTED and CONV_2D), the path LiteRT documents
  for a torch model, whose graph TensorFlow's converter never sees.
- whisper_tiny_encoder_{f32,dynamic,int8}: transformers' WhisperEncoder at whisper-tiny's sizes (d_model 384,
  4 layers, 6 heads, input features [1, 80, 3000], 1500 frames after the conv stem), litert-torch, PT2E int8,
  dynamic-range as ViT's.
  `--only dynamic [--floats DIR]` makes both dynamic-range files from the float files already in DIR (default
  --out), on the same inputs.
- gpt2_small_f32: transformers' GPT2LMHeadModel (2 layers, n_embd 128, 2 heads, vocab 1000, seq 64), one
  forward over token ids through litert-torch.
- gpt2_kv_f32: a GPT-2-shaped decoder (layer norm, GELU-tanh, biases) from litert-torch's generative API with
  an external KV cache and its `prefill_64` / `decode` signatures, as its LLM examples export them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Sizes:
    """What --fixtures shrinks: every model family's width, depth and lengths."""
    bert_vocab: int = 30522
    bert_seq: int = 64
    bert_hidden: int = 128
    bert_heads: int = 2
    bert_layers: int = 2
    vit_image: int = 224
    vit_patch: int = 16
    vit_hidden: int = 192
    vit_heads: int = 3
    vit_layers: int = 4
    whisper_mels: int = 80
    whisper_frames: int = 3000
    whisper_d_model: int = 384
    whisper_heads: int = 6
    whisper_layers: int = 4
    gpt2_vocab: int = 1000
    gpt2_seq: int = 64
    gpt2_embd: int = 128
    gpt2_heads: int = 2
    gpt2_layers: int = 2
    gpt2_kv_len: int = 128
    calibration_samples: int = 8


FULL = Sizes()
FIXTURES = Sizes(bert_vocab=97, bert_seq=8, bert_hidden=16, bert_heads=2, bert_layers=1,
                 vit_image=32, vit_patch=8, vit_hidden=24, vit_heads=3, vit_layers=1,
                 whisper_mels=8, whisper_frames=32, whisper_d_model=24, whisper_heads=2, whisper_layers=1,
                 gpt2_vocab=53, gpt2_seq=8, gpt2_embd=16, gpt2_heads=2, gpt2_layers=1, gpt2_kv_len=16,
                 calibration_samples=4)


# ---------------------------------------------------------------------------------------------------------
# LiteRT's outputs


Arrays = dict[str, np.ndarray]


def litert_outputs(content: bytes, inputs_by_signature: dict[str, Arrays]) -> Arrays:
    """Runs each signature in LiteRT's default Interpreter; the arrays keyed SIG/in/NAME and SIG/out/NAME."""
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(model_content=content)
    arrays: dict[str, np.ndarray] = {}
    for sig, inputs in inputs_by_signature.items():
        runner = it.get_signature_runner(sig)
        outputs = runner(**inputs)
        arrays.update({f"{sig}/in/{k}": np.asarray(v) for k, v in inputs.items()})
        arrays.update({f"{sig}/out/{k}": np.array(v) for k, v in outputs.items()})
    return arrays


def signature_inputs(content: bytes, make: callable) -> dict[str, dict[str, np.ndarray]]:
    """One set of inputs per signature: make(name, detail) gives each input's value."""
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(model_content=content)
    result = {}
    for sig in it.get_signature_list():
        details = it.get_signature_runner(sig).get_input_details()
        result[sig] = {name: make(name, d) for name, d in details.items()}
    return result


def write_model(out: Path, name: str, content: bytes, inputs_by_signature: dict[str, Arrays]) -> None:
    arrays = litert_outputs(content, inputs_by_signature)
    (out / f"{name}.tflite").write_bytes(content)
    np.savez(out / f"{name}.npz", **arrays)
    print(f"wrote {out / name}.tflite ({len(content) / 1e6:.2f} MB), "
          f"signatures {sorted(inputs_by_signature)}", flush=True)


def random_like(rng: np.random.Generator, detail: dict, int_high: int) -> np.ndarray:
    shape, dtype = tuple(detail["shape"]), np.dtype(detail["dtype"])
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if dtype == np.int8:
        return rng.integers(-128, 128, shape).astype(dtype)
    return rng.integers(0, int_high, shape).astype(dtype)


# ---------------------------------------------------------------------------------------------------------
# BERT-tiny, TensorFlow 2 / Keras


def build_bert(s: Sizes):
    import tensorflow as tf
    from tensorflow import keras

    ids = keras.Input(shape=(s.bert_seq,), dtype="int32", batch_size=1, name="input_ids")
    x = keras.layers.Embedding(s.bert_vocab, s.bert_hidden, name="word_embeddings")(ids)
    positions = keras.layers.Embedding(s.bert_seq, s.bert_hidden, name="position_embeddings")
    x = x + positions(tf.range(s.bert_seq)[tf.newaxis, :])
    x = keras.layers.LayerNormalization(epsilon=1e-12, name="embeddings_norm")(x)
    for i in range(s.bert_layers):
        attention = keras.layers.MultiHeadAttention(s.bert_heads, s.bert_hidden // s.bert_heads,
                                                    name=f"layer{i}_attention")
        x = keras.layers.LayerNormalization(epsilon=1e-12, name=f"layer{i}_attention_norm")(
            x + attention(x, x))
        h = keras.layers.Dense(4 * s.bert_hidden, activation="gelu", name=f"layer{i}_intermediate")(x)
        h = keras.layers.Dense(s.bert_hidden, name=f"layer{i}_output")(h)
        x = keras.layers.LayerNormalization(epsilon=1e-12, name=f"layer{i}_output_norm")(x + h)
    pooled = keras.layers.Dense(s.bert_hidden, activation="tanh", name="pooler")(x[:, 0, :])
    model = keras.Model(ids, [x, pooled], name="bert_tiny")
    # Keras initialises LayerNormalization to the identity; random gains and offsets make the test see them.
    rng = np.random.default_rng(1)
    for layer in model.layers:
        if isinstance(layer, keras.layers.LayerNormalization):
            layer.set_weights([1 + 0.1 * rng.standard_normal(w.shape).astype(np.float32) if j == 0 else
                               0.1 * rng.standard_normal(w.shape).astype(np.float32)
                               for j, w in enumerate(layer.get_weights())])
    return model


def bert_models(out: Path, s: Sizes) -> None:
    import tensorflow as tf

    tf.keras.utils.set_random_seed(0)
    model = build_bert(s)
    rng = np.random.default_rng(2)

    def representative():
        for _ in range(s.calibration_samples):
            yield {"input_ids": rng.integers(0, s.bert_vocab, (1, s.bert_seq)).astype(np.int32)}

    def convert(kind: str) -> bytes:
        # from_keras_model freezes Keras 3's variables; from_concrete_functions and from_saved_model keep them
        # as VAR_HANDLE / READ_VARIABLE ops over uninitialised resources.
        converter = tf.lite.TFLiteConverter.from_keras_model(model)
        if kind in ("dynamic", "int8"):
            converter.optimizations = [tf.lite.Optimize.DEFAULT]
        if kind == "int8":
            converter.representative_dataset = representative
            converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        return converter.convert()

    for kind in ("f32", "dynamic", "int8"):
        content = convert(kind)
        inputs = signature_inputs(content,
                                  lambda n, d: random_like(np.random.default_rng(3), d, s.bert_vocab))
        write_model(out, f"bert_tiny_{kind}", content, inputs)


# ---------------------------------------------------------------------------------------------------------
# litert-torch models


def pt2e_int8(module, sample: tuple, calibration: list[tuple]):
    """litert-torch's PT2E recipe: static int8 activations, per-channel int8 weights."""
    import torch
    from litert_torch.quantize.pt2e_quantizer import PT2EQuantizer, get_symmetric_quantization_config
    from litert_torch.quantize.quant_config import QuantConfig
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    quantizer = PT2EQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))
    prepared = prepare_pt2e(torch.export.export(module, sample).module(), quantizer)
    with torch.no_grad():
        for args in calibration:
            prepared(*args)
    return convert_pt2e(prepared, fold_quantize=False), QuantConfig(pt2e_quantizer=quantizer)


def torch_to_tflite(module, sample: tuple, quant_config=None) -> bytes:
    import tempfile

    import litert_torch

    edge = litert_torch.convert(module, sample, quant_config=quant_config)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.tflite"
        edge.export(str(path))
        return path.read_bytes()


class FirstOutput:
    """Wraps a transformers model so that forward returns its first output tensor only."""

    @staticmethod
    def wrap(model):
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.model = model

            def forward(self, x):
                return self.model(x)[0]

        return Wrapped().eval()


def dynamic_range(content: bytes) -> bytes:
    """ai_edge_quantizer's dynamic-range recipe: int8 per-channel weights, float activations."""
    from ai_edge_quantizer import quantizer, recipe

    q = quantizer.Quantizer(bytearray(content))
    q.load_quantization_recipe(recipe.dynamic_wi8_afp32())
    return bytes(q.quantize().quantized_model)


def float_and_int8(out: Path, stem: str, module, make_input, s: Sizes, int_high: int = 0) -> None:
    import torch

    torch.manual_seed(0)
    sample = (make_input(0),)
    with torch.no_grad():
        content = torch_to_tflite(module, sample)
    inputs = signature_inputs(content, lambda n, d: random_like(np.random.default_rng(3), d, int_high))
    write_model(out, f"{stem}_f32", content, inputs)
    write_model(out, f"{stem}_dynamic", dynamic_range(content), inputs)
    calibration = [(make_input(1 + i),) for i in range(s.calibration_samples)]
    quantized, config = pt2e_int8(module, sample, calibration)
    content = torch_to_tflite(quantized, sample, quant_config=config)
    inputs = signature_inputs(content, lambda n, d: random_like(np.random.default_rng(3), d, int_high))
    write_model(out, f"{stem}_int8", content, inputs)


def vit_models(out: Path, s: Sizes) -> None:
    import torch
    from transformers import ViTConfig, ViTModel

    torch.manual_seed(0)
    config = ViTConfig(hidden_size=s.vit_hidden, num_hidden_layers=s.vit_layers,
                       num_attention_heads=s.vit_heads,
                       intermediate_size=4 * s.vit_hidden, image_size=s.vit_image, patch_size=s.vit_patch,
                       attn_implementation="eager")
    model = FirstOutput.wrap(ViTModel(config, add_pooling_layer=False).eval())

    def make_input(seed: int):
        return torch.from_numpy(np.random.default_rng(seed).standard_normal(
            (1, 3, s.vit_image, s.vit_image)).astype(np.float32))

    float_and_int8(out, "vit_tiny", model, make_input, s)


def whisper_models(out: Path, s: Sizes) -> None:
    import torch
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder

    torch.manual_seed(0)
    config = WhisperConfig(d_model=s.whisper_d_model, encoder_layers=s.whisper_layers,
                           encoder_attention_heads=s.whisper_heads, encoder_ffn_dim=4 * s.whisper_d_model,
                           num_mel_bins=s.whisper_mels, max_source_positions=s.whisper_frames // 2,
                           decoder_layers=1, decoder_attention_heads=s.whisper_heads, vocab_size=100,
                           attn_implementation="eager")
    model = FirstOutput.wrap(WhisperEncoder(config).eval())

    def make_input(seed: int):
        return torch.from_numpy(np.random.default_rng(seed).standard_normal(
            (1, s.whisper_mels, s.whisper_frames)).astype(np.float32))

    float_and_int8(out, "whisper_tiny_encoder", model, make_input, s)


def gpt2_plain(out: Path, s: Sizes) -> None:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=s.gpt2_vocab, n_positions=max(s.gpt2_seq, 64), n_embd=s.gpt2_embd,
                        n_layer=s.gpt2_layers, n_head=s.gpt2_heads, use_cache=False,
                        attn_implementation="eager")
    lm = GPT2LMHeadModel(config).eval()

    class Logits(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lm = lm

        def forward(self, input_ids):
            return self.lm(input_ids=input_ids, use_cache=False).logits

    sample = (torch.from_numpy(np.random.default_rng(0).integers(0, s.gpt2_vocab, (1, s.gpt2_seq))),)
    with torch.no_grad():
        content = torch_to_tflite(Logits().eval(), sample)
    inputs = signature_inputs(content, lambda n, d: random_like(np.random.default_rng(3), d, s.gpt2_vocab))
    write_model(out, "gpt2_small_f32", content, inputs)


def gpt2_kv(out: Path, s: Sizes) -> None:
    """The generative API's decoder with an external KV cache: prefill_N and decode, as its examples
    export them."""
    from ai_edge_litert.interpreter import Interpreter
    from make_gpt2_kv import make  # seeded weights: DecoderOnlyModel leaves its parameters uninitialised

    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "gpt2_kv.tflite"
        make(path, s.gpt2_vocab, s.gpt2_seq, s.gpt2_embd, s.gpt2_heads, s.gpt2_layers, s.gpt2_kv_len)
        content = path.read_bytes()

    it = Interpreter(model_content=content)
    sigs = list(it.get_signature_list())
    prefill_sig = next(x for x in sigs if x.startswith("prefill"))
    rng = np.random.default_rng(3)
    prefill_in = {}
    for name, d in it.get_signature_runner(prefill_sig).get_input_details().items():
        if name == "tokens":
            prefill_in[name] = rng.integers(0, s.gpt2_vocab, tuple(d["shape"])).astype(d["dtype"])
        elif name == "input_pos":
            prefill_in[name] = np.arange(s.gpt2_seq).astype(d["dtype"])
        else:
            prefill_in[name] = np.zeros(tuple(d["shape"]), d["dtype"])
    prefill_out = it.get_signature_runner(prefill_sig)(**prefill_in)
    decode_in = {}
    for name, d in it.get_signature_runner("decode").get_input_details().items():
        if name == "tokens":
            decode_in[name] = rng.integers(0, s.gpt2_vocab, tuple(d["shape"])).astype(d["dtype"])
        elif name == "input_pos":
            decode_in[name] = np.array([s.gpt2_seq], d["dtype"])
        else:
            decode_in[name] = np.array(prefill_out[name]).astype(d["dtype"])
    write_model(out, "gpt2_kv_f32", content, {prefill_sig: prefill_in, "decode": decode_in})


FLOATS: Path | None = None  # --floats: where dynamic_from_float finds the float files


def dynamic_from_float(out: Path, s: Sizes) -> None:
    """The litert-torch models' dynamic-range files from their float files, on the same inputs."""
    floats = FLOATS or out
    for stem in ("vit_tiny", "whisper_tiny_encoder"):
        content = (floats / f"{stem}_f32.tflite").read_bytes()
        with np.load(floats / f"{stem}_f32.npz") as saved:
            inputs: dict[str, Arrays] = {}
            for key in saved.files:
                sig, kind, name = key.split("/", 2)
                if kind == "in":
                    inputs.setdefault(sig, {})[name] = saved[key]
        write_model(out, f"{stem}_dynamic", dynamic_range(content), inputs)


FAMILIES = {"bert": bert_models, "vit": vit_models, "whisper": whisper_models, "gpt2": gpt2_plain,
            "gpt2_kv": gpt2_kv, "dynamic": dynamic_from_float}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="output folder (default /work/txmodels, or with --fixtures "
                                                 "tests/data/transformers)")
    parser.add_argument("--fixtures", action="store_true", help="the small copies the tests run")
    parser.add_argument("--only", nargs="+", choices=sorted(FAMILIES),
                        default=[f for f in FAMILIES if f != "dynamic"])  # vit and whisper make theirs
    parser.add_argument("--floats", type=Path, help="--only dynamic: the folder of the float files")
    args = parser.parse_args()
    out = args.out or (REPO / "tests" / "data" / "transformers" if args.fixtures else Path("/work/txmodels"))
    out.mkdir(parents=True, exist_ok=True)
    if len(args.only) > 1:
        # One process per family: TensorFlow and torch in one process crash it (a segfault in libc on the
        # first torch export after a tf.lite conversion, here).
        failed = []
        for family in args.only:
            command = [sys.executable, __file__, "--out", str(out), "--only", family]
            command += ["--floats", str(args.floats)] if args.floats else []
            if subprocess.run(command + (["--fixtures"] if args.fixtures else [])).returncode != 0:
                failed.append(family)
        if failed:
            print(f"FAILED: {' '.join(failed)}", file=sys.stderr)
        return 1 if failed else 0
    global FLOATS
    FLOATS = args.floats
    FAMILIES[args.only[0]](out, FIXTURES if args.fixtures else FULL)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
