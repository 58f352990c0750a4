"""A KV-cache decoder as litert-torch's generative API exports it (tests/data/decoders/gpt2_kv_tiny.tflite, written
by bench/make_gpt2_kv.py --tiny: prefill_8 and decode signatures, a cache of 48 passed in and out), run in rillet
and in LiteRT's default Interpreter: 32 greedy tokens the same, every step's logits and the caches within 1e-5.
It runs EMBEDDING_LOOKUP, REDUCE_ALL, DYNAMIC_UPDATE_SLICE, GATHER_ND, SELECT_V2, SIN/COS among others."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from rillet.runtime import Interpreter

pytest.importorskip("ai_edge_litert")
from ai_edge_litert.interpreter import Interpreter as LiteRT  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "tests" / "data" / "decoders" / "gpt2_kv_tiny.tflite"


def generate_gpt2():
    if "generate_gpt2" not in sys.modules:
        spec = importlib.util.spec_from_file_location("generate_gpt2", ROOT / "bench" / "generate_gpt2.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["generate_gpt2"] = module
        spec.loader.exec_module(module)
    return sys.modules["generate_gpt2"]


def runs_here() -> None:
    """Skips where this build lacks EMBEDDING_LOOKUP (it comes with branch int8-attn); any other refusal fails."""
    from rillet.runtime.plan import UnsupportedOpsError

    try:
        Interpreter(model_path=str(MODEL)).allocate_tensors()
    except UnsupportedOpsError as e:
        if "EMBEDDING_LOOKUP" in str(e) and "REDUCE_ALL" not in str(e) and "DYNAMIC_UPDATE_SLICE" not in str(e):
            pytest.skip(f"needs EMBEDDING_LOOKUP: {e}")
        raise


def interpreters():
    return [LiteRT(model_path=str(MODEL)), Interpreter(model_path=str(MODEL))]


@pytest.mark.parametrize("seed", [0, 1])
def test_greedy_tokens_are_litert_s(seed):
    runs_here()
    prompt = np.random.default_rng(seed).integers(0, 53, 8)
    tokens, differences, _ = generate_gpt2().generate(interpreters, prompt, 32)
    assert tokens[1] == tokens[0]
    assert len(tokens[0]) == 33 and max(differences) < 1e-5, differences


def test_every_step_s_logits_and_cache_with_varied_tokens():
    """Greedy decoding of random weights settles on a few tokens; here each step is fed a random token, so every
    step's embedding row, cache slot and mask differ, and both caches are compared whole after each step."""
    runs_here()
    module = generate_gpt2()
    reference, ours = (module.Decoder(it) for it in interpreters())
    rng = np.random.default_rng(2)
    prompt = rng.integers(0, 53, (1, 8))
    runs = [(d.prefill, prompt, np.arange(8)) for d in (reference, ours)]
    for position in range(8, 49):
        expected, got = reference.step(*runs[0]), ours.step(*runs[1])
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * float(np.abs(expected).max()))
        for name, value in reference.cache.items():
            np.testing.assert_allclose(ours.cache[name], value, rtol=1e-5, atol=1e-5 * float(np.abs(value).max()))
        token = rng.integers(0, 53, (1, 1))
        runs = [(d.decode, token, np.array([position])) for d in (reference, ours)]
    assert np.abs(ours.cache["kv_cache_k_0"][:, 47]).max() > 0  # the last decode step wrote the cache's last slot
