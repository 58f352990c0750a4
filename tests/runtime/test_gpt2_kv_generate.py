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
    """bench/generate_gpt2.py's loop: rillet feeding the cache back by hand and carrying it in the runner."""
    runs_here()
    prompt = np.random.default_rng(seed).integers(0, 53, 8)
    tokens, differences, _ = generate_gpt2().generate(lambda: [*interpreters(), Interpreter(model_path=str(MODEL))],
                                                      prompt, 32, carry=(2,))
    assert tokens[1] == tokens[0] and tokens[2] == tokens[0]
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


def test_a_carried_cache_gives_the_steps_of_a_cache_fed_back_by_hand():
    """SignatureRunner.carry: the decode runner copies its cache outputs into its cache inputs itself; each step
    then gives the same bits as the loop that passes the returned cache back, with the cache left out of the
    call and out of the result. Passing the cache again starts over; a first call without it, a wrong name,
    a type or shape that differs are refused."""
    runs_here()
    by_hand, carried = Interpreter(model_path=str(MODEL)), Interpreter(model_path=str(MODEL))
    names = list(by_hand.get_signature_runner("decode").get_input_details())
    cache_names = [n for n in names if n.startswith("kv_cache")]
    prefill = next(k for k in by_hand.get_signature_list() if k.startswith("prefill"))
    rng = np.random.default_rng(5)
    prompt = rng.integers(0, 53, (1, 8)).astype(np.int32)
    first = by_hand.get_signature_runner(prefill)(tokens=prompt, input_pos=np.arange(8, dtype=np.int32),
                                                  **{n: np.zeros(by_hand.get_signature_runner(prefill)
                                                                 .get_input_details()[n]["shape"], np.float32)
                                                     for n in cache_names})
    decode, runner = by_hand.get_signature_runner("decode"), carried.get_signature_runner("decode")
    runner.carry(**{n: n for n in cache_names})
    tokens = [rng.integers(0, 53, (1, 1)).astype(np.int32) for _ in range(12)]
    with pytest.raises(ValueError, match="holds no output yet"):
        runner(tokens=tokens[0], input_pos=np.array([8], np.int32))
    for restart in (0, 1):  # the second pass starts again from the prefill's cache
        cache = {n: first[n] for n in cache_names}
        for step, token in enumerate(tokens):
            position = np.array([8 + step], np.int32)
            expected = decode(tokens=token, input_pos=position, **cache)
            cache = {n: expected[n] for n in cache_names}
            got = runner(tokens=token, input_pos=position, **({n: first[n] for n in cache_names} if step == 0 else {}))
            assert sorted(got) == ["logits"]
            assert got["logits"].tobytes() == expected["logits"].tobytes(), (restart, step)
    with pytest.raises(ValueError, match="not an output"):
        runner.carry(kv_cache="kv_cache_k_0")
    with pytest.raises(ValueError, match="not an input"):
        runner.carry(logits="cache")
    with pytest.raises(ValueError, match="float32, input 'tokens' int32"):
        runner.carry(logits="kv_cache_k_0", kv_cache_k_0="tokens")
    with pytest.raises(ValueError, match="fed by more than one output"):
        runner.carry(kv_cache_k_0="kv_cache_k_0", kv_cache_v_0="kv_cache_k_0")
    runner.carry(logits="kv_cache_k_0")
    with pytest.raises(ValueError, match="carried output 'logits' has shape"):
        runner(tokens=tokens[0], input_pos=np.array([8], np.int32), **{n: first[n] for n in cache_names})
    runner.carry()  # no longer carried: every input again, every output back
    got = runner(tokens=tokens[0], input_pos=np.array([8], np.int32), **{n: first[n] for n in cache_names})
    assert sorted(got) == sorted([*cache_names, "logits"])


def test_a_carried_cache_is_updated_in_place_and_only_when_carried():
    """With the cache carried, each DYNAMIC_UPDATE_SLICE writes its slot into the cache input itself (its output
    is that input's memory: the arena drops the four output caches) and the steps keep the bits of the loop that
    copies the cache by hand; the input holds each step's cache. A runner that does not carry, or no longer does,
    gets its own output caches again and its inputs stay as it set them."""
    runs_here()
    by_hand, carried = Interpreter(model_path=str(MODEL)), Interpreter(model_path=str(MODEL))
    decode, runner = by_hand.get_signature_runner("decode"), carried.get_signature_runner("decode")
    details = decode.get_input_details()
    cache_names = [n for n in details if n.startswith("kv_cache")]
    cache_bytes = sum(int(np.prod(details[n]["shape"])) * 4 for n in cache_names)
    rng = np.random.default_rng(7)
    cache = {n: rng.standard_normal(details[n]["shape"]).astype(np.float32) for n in cache_names}
    first = {n: v.copy() for n, v in cache.items()}

    def call(token, position, **given):
        return runner(tokens=np.array([[token]], np.int32), input_pos=np.array([position], np.int32), **given)

    call(3, 8, **first)
    plain_arena = carried.memory_report()["arena_bytes"]
    runner.carry(**{n: n for n in cache_names})
    subgraph = runner._subgraph_index
    for step in range(6):
        position = 8 + 3 * step  # not in order: every slot written lands where the position says
        expected = decode(tokens=np.array([[step]], np.int32), input_pos=np.array([position], np.int32), **cache)
        cache = {n: expected[n] for n in cache_names}
        got = call(step, position, **(first if step == 0 else {}))
        assert got["logits"].tobytes() == expected["logits"].tobytes(), step
        for n in cache_names:
            assert carried.get_tensor(details[n]["index"], subgraph).tobytes() == cache[n].tobytes(), (step, n)
    assert carried.memory_report()["arena_bytes"] <= plain_arena - cache_bytes
    for stop in (False, True):  # a runner that never carried, and one that stopped
        interpreter = by_hand if not stop else carried
        plain = interpreter.get_signature_runner("decode")
        if stop:
            plain.carry()
        out = plain(tokens=np.array([[1]], np.int32), input_pos=np.array([20], np.int32), **first)
        for n in cache_names:
            assert interpreter.get_tensor(details[n]["index"], subgraph).tobytes() == first[n].tobytes(), (stop, n)
            assert np.abs(out[n][:, 20] - first[n][:, 20]).max() > 0, (stop, n)  # the slot written is the output's
            assert out[n][:, :20].tobytes() == first[n][:, :20].tobytes()
    assert carried.memory_report()["arena_bytes"] == plain_arena
