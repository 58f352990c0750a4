"""Greedy generation from a KV-cache decoder (litert-torch's prefill_N / decode signatures) in rillet and in
LiteRT side by side: prefill a prompt, then N decode steps, each feeding back the cache the last step returned
and the token it chose. The tokens must be the same; prints each step's logits difference and the decode
step's median time in each runtime (interleaved, same run) with the ratio.

    python bench/generate_gpt2.py [MODEL.tflite] [--steps 32] [--seed 0] [--threads 1]

MODEL defaults to /work/txmodels/gpt2_kv_f32.tflite; bench/make_gpt2_kv.py writes one with working weights.
Exit 1 when the tokens differ, 2 when the model's logits do not depend on its input (uninitialised weights)."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np


class Decoder:
    """One runtime's prefill and decode runners and the cache it carries between steps."""

    def __init__(self, interpreter) -> None:
        names = list(interpreter.get_signature_list())
        self.prefill = interpreter.get_signature_runner(next(n for n in names if n.startswith("prefill")))
        self.decode = interpreter.get_signature_runner("decode")
        details = self.prefill.get_input_details()
        self.prompt_length = int(details["tokens"]["shape"][-1])
        self.cache = {name: np.zeros(d["shape"], d["dtype"]) for name, d in details.items()
                      if name.startswith("kv_cache")}
        self.cache_length = int(next(iter(self.cache.values())).shape[1]) if self.cache else 0

    def step(self, runner, tokens: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Runs one signature; keeps its cache outputs for the next; the logits of the last position."""
        out = runner(tokens=tokens.astype(np.int32), input_pos=positions.astype(np.int32), **self.cache)
        self.cache = {name: np.array(out[name]) for name in self.cache}
        return np.array(out["logits"])[0, -1]


def generate(make_interpreters, prompt: np.ndarray,
             steps: int) -> tuple[list[list[int]], list[float], list[list[float]]]:
    """Both runtimes' greedy tokens, each step's max |logits diff| / max |logits| (against the first runtime),
    and each runtime's decode times; make_interpreters gives the interpreters, the first is the reference."""
    decoders = [Decoder(it) for it in make_interpreters()]
    n = decoders[0].prompt_length
    if len(prompt) != n:
        raise ValueError(f"the prompt has {len(prompt)} tokens, the prefill signature takes {n}")
    if n + steps > decoders[0].cache_length:
        raise ValueError(f"{n} prompt tokens and {steps} steps do not fit a cache of {decoders[0].cache_length}")
    logits = [d.step(d.prefill, prompt[None], np.arange(n)) for d in decoders]
    tokens = [[int(np.argmax(v))] for v in logits]
    if not np.isfinite(logits[0]).all() or np.ptp(logits[0]) == 0:
        raise ArithmeticError("the reference's prefill logits are not finite or all the same: the model's weights "
                              "look uninitialised (bench/make_gpt2_kv.py writes one that works)")
    differences = [float(np.abs(logits[1] - logits[0]).max() / np.abs(logits[0]).max())]
    times: list[list[float]] = [[] for _ in decoders]
    for step in range(steps):
        position = np.array([n + step])
        for k, d in enumerate(decoders):  # each runtime feeds back its own token and cache
            start = time.perf_counter()
            logits[k] = d.step(d.decode, np.array([[tokens[k][-1]]]), position)
            times[k].append(time.perf_counter() - start)
            tokens[k].append(int(np.argmax(logits[k])))
        differences.append(float(np.abs(logits[1] - logits[0]).max() / np.abs(logits[0]).max()))
    return tokens, differences, times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, nargs="?", default=Path("/work/txmodels/gpt2_kv_f32.tflite"))
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0, help="the prompt's random tokens")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter as Rillet

    def make_interpreters():
        return [LiteRT(model_path=str(args.model), num_threads=args.threads),
                Rillet(model_path=str(args.model), num_threads=args.threads)]

    probe = Decoder(Rillet(model_path=str(args.model)))
    vocabulary = int(probe.decode.get_output_details()["logits"]["shape"][-1])
    prompt = np.random.default_rng(args.seed).integers(0, vocabulary, probe.prompt_length)
    try:
        tokens, differences, times = generate(make_interpreters, prompt, args.steps)
    except ArithmeticError as e:
        print(f"{args.model.name}: {e}")
        return 2
    print(f"{args.model.name}: prompt of {len(prompt)}, {args.steps} greedy decode steps, {args.threads} thread(s)")
    print(f"LiteRT: {tokens[0]}")
    print(f"rillet: {tokens[1]}")
    print(f"logits max |diff| / max |LiteRT's|: prefill {differences[0]:.2e}, decode steps max "
          f"{max(differences[1:], default=0):.2e}")
    litert_ms, rillet_ms = (statistics.median(t) * 1e3 for t in times)
    print(f"decode step median: LiteRT {litert_ms:.3f} ms, rillet {rillet_ms:.3f} ms, "
          f"rillet / LiteRT {rillet_ms / litert_ms:.2f}")
    same = tokens[0] == tokens[1]
    print("tokens: the same" if same else
          f"tokens differ first at step {next(i for i, (a, b) in enumerate(zip(*tokens)) if a != b)}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
