"""Transformer models as today's converters write them (tests/data/transformers, made by
bench/make_transformers.py --fixtures: BERT through tf.lite, ViT, a Whisper encoder and GPT-2 through
litert-torch, small but with the full models' op patterns): every signature of each gives LiteRT's outputs,
float within 1e-5 relative, int8 models the same bits.

A model rillet cannot run yet on main is marked xfail(strict) naming the missing kernel: when the kernel
lands the test passes, strict turns that into a failure, and the mark goes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rillet.runtime import Interpreter

DATA = Path(__file__).resolve().parents[1] / "data" / "transformers"
RTOL, ATOL = 1e-5, 1e-6
LIVE_INPUTS = 5

MISSING: dict[str, str] = {}
MODELS = sorted(p.stem for p in DATA.glob("*.tflite"))


def stored(name: str) -> dict[str, tuple[dict[str, np.ndarray], dict[str, np.ndarray]]]:
    """{signature: (inputs, LiteRT's outputs)} from NAME.npz's SIG/in/X and SIG/out/Y arrays."""
    result: dict[str, tuple[dict, dict]] = {}
    with np.load(DATA / f"{name}.npz") as npz:
        for key in npz.files:
            sig, kind, tensor = key.split("/", 2)
            result.setdefault(sig, ({}, {}))[0 if kind == "in" else 1][tensor] = npz[key]
    return result


def marked(names: list[str]) -> list:
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=f"rillet has no {MISSING[n]} yet"))
            if n in MISSING else n for n in names]


def assert_same(name: str, what: str, got: dict, expected: dict) -> None:
    assert sorted(got) == sorted(expected), what
    for key, want in expected.items():
        have = np.asarray(got[key])
        assert have.dtype == want.dtype and have.shape == want.shape, f"{what} {key}"
        # An int8 model's integer outputs are LiteRT's bits; PT2E files end in float ops (the last layer norm runs
        # float), whose outputs agree as float ones do: a one-step int8 difference before them is far past 1e-5.
        if want.dtype.kind in "iu":
            if have.tobytes() != want.tobytes():
                diff = np.abs(have.astype(np.float64) - want.astype(np.float64))
                pytest.fail(f"{what} {key}: {np.count_nonzero(diff)} of {diff.size} elements differ "
                            f"(max {diff.max()})")
        else:
            np.testing.assert_allclose(have, want, rtol=RTOL, atol=ATOL, err_msg=f"{what} {key}")


def test_every_fixture_is_here_and_small():
    assert {"bert_tiny_f32", "bert_tiny_dynamic", "bert_tiny_int8", "vit_tiny_f32", "vit_tiny_dynamic",
            "vit_tiny_int8", "whisper_tiny_encoder_f32", "whisper_tiny_encoder_dynamic",
            "whisper_tiny_encoder_int8", "gpt2_small_f32", "gpt2_kv_f32"} <= set(MODELS)
    assert sum(p.stat().st_size for p in DATA.iterdir()) < 4_000_000


@pytest.mark.parametrize("name", marked(MODELS))
def test_transformer_gives_litert_outputs_on_every_signature(name):
    it = Interpreter(model_path=str(DATA / f"{name}.tflite"))
    it.allocate_tensors()
    signatures = stored(name)
    assert sorted(signatures) == sorted(it.get_signature_list())
    for sig, (inputs, expected) in signatures.items():
        assert_same(name, sig, it.get_signature_runner(sig)(**inputs), expected)


def live_input(rng: np.random.Generator, stored_value: np.ndarray) -> np.ndarray:
    """A new input like the stored one: token ids and positions are drawn from the stored ones' range (an id
    past the vocabulary is an error in both runtimes), floats and int8 anywhere."""
    if stored_value.dtype.kind == "f":
        return rng.standard_normal(stored_value.shape).astype(stored_value.dtype)
    if stored_value.dtype == np.int8:
        return rng.integers(-128, 128, stored_value.shape).astype(np.int8)
    return rng.permutation(stored_value.ravel()).reshape(stored_value.shape).astype(stored_value.dtype)


@pytest.mark.parametrize("name", marked(MODELS))
def test_transformer_matches_litert_live(name):
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    path = str(DATA / f"{name}.tflite")
    ours, theirs = Interpreter(model_path=path), litert.Interpreter(model_path=path)
    ours.allocate_tensors()
    theirs.allocate_tensors()
    rng = np.random.default_rng(28)
    for sig, (inputs, _) in stored(name).items():
        for trial in range(LIVE_INPUTS):
            # Positions and cache contents keep their stored values: the cache a prefill wrote, the slot a
            # decode writes next. Token ids and activations are new.
            x = {k: v if k.startswith(("input_pos", "kv_cache")) else live_input(rng, v)
                 for k, v in inputs.items()}
            expected = {k: np.array(v) for k, v in theirs.get_signature_runner(sig)(**x).items()}
            assert_same(name, f"{sig} input {trial}", ours.get_signature_runner(sig)(**x), expected)
