"""Greedy generation from a KV-cache decoder (litert-torch's prefill_N / decode signatures) in rillet and in
LiteRT side by side: prefill a prompt, then N decode steps, each feeding back the cache the last step returned
and the token it chose. rillet runs twice: carrying the cache inside the runtime (SignatureRunner.carry: the
decode runner feeds its cache outputs back as its next inputs, so the loop passes only the token and position)
and fed back by hand as LiteRT's users must (each step's cache copied out, then in again). The tokens must be
the same; prints each step's logits difference and the decode step's median time in each runtime
(interleaved, same run, over --rounds generations) with the ratios to LiteRT+XNNPACK.

    python bench/generate_gpt2.py [MODEL.tflite] [--steps 32] [--seed 0] [--threads 1] [--rounds 5]

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
    """One runtime's prefill and decode runners and the cache it feeds back between steps: by hand (each step's
    cache outputs passed to the next step) or, with `carry` (rillet only), by the decode runner itself after
    the first decode step has been given the prefill's cache."""

    def __init__(self, interpreter, carry: bool = False) -> None:
        names = list(interpreter.get_signature_list())
        self.prefill = interpreter.get_signature_runner(next(n for n in names if n.startswith("prefill")))
        self.decode = interpreter.get_signature_runner("decode")
        details = self.prefill.get_input_details()
        self.prompt_length = int(details["tokens"]["shape"][-1])
        self.cache = {name: np.zeros(d["shape"], d["dtype"]) for name, d in details.items()
                      if name.startswith("kv_cache")}
        self.cache_length = int(next(iter(self.cache.values())).shape[1]) if self.cache else 0
        self.carry = carry
        self.carrying = False  # the decode runner holds the cache now; self.cache stays the prefill's
        if carry:
            self.decode.carry(**{name: name for name in self.cache})

    def step(self, runner, tokens: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Runs one signature; keeps its cache outputs for the next (or leaves them in a carrying decode runner);
        the logits of the last position. The runners' outputs are copies already, kept as they are."""
        carried = self.carry and runner is self.decode
        cache = {} if carried and self.carrying else self.cache
        out = runner(tokens=tokens.astype(np.int32), input_pos=positions.astype(np.int32), **cache)
        if carried:
            self.carrying = True
        else:
            self.cache = {name: out[name] for name in self.cache}
        return out["logits"][0, -1]


def generate(make_interpreters, prompt: np.ndarray, steps: int,
             carry: tuple[int, ...] = ()) -> tuple[list[list[int]], list[float], list[list[float]]]:
    """Every runtime's greedy tokens, each step's largest max |logits diff| / max |logits| against the first
    runtime, and each runtime's decode times; make_interpreters gives the interpreters, the first is the
    reference; those whose positions are in `carry` carry their cache in the decode runner (rillet's)."""
    decoders = [Decoder(it, carry=k in carry) for k, it in enumerate(make_interpreters())]
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

    def difference() -> float:
        return max(float(np.abs(v - logits[0]).max() / np.abs(logits[0]).max()) for v in logits[1:])

    differences = [difference()]
    times: list[list[float]] = [[] for _ in decoders]
    for step in range(steps):
        position = np.array([n + step])
        for k, d in enumerate(decoders):  # each runtime feeds back its own token and cache
            start = time.perf_counter()
            logits[k] = d.step(d.decode, np.array([[tokens[k][-1]]]), position)
            times[k].append(time.perf_counter() - start)
            tokens[k].append(int(np.argmax(logits[k])))
        differences.append(difference())
    return tokens, differences, times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, nargs="?", default=Path("/work/txmodels/gpt2_kv_f32.tflite"))
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0, help="the prompt's random tokens")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5, help="generations timed, each from fresh interpreters")
    args = parser.parse_args()

    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter as Rillet

    names = ["LiteRT", "rillet carried", "rillet by hand"]

    def make_interpreters():
        return [LiteRT(model_path=str(args.model), num_threads=args.threads),
                Rillet(model_path=str(args.model), num_threads=args.threads),
                Rillet(model_path=str(args.model), num_threads=args.threads)]

    probe = Decoder(Rillet(model_path=str(args.model)))
    vocabulary = int(probe.decode.get_output_details()["logits"]["shape"][-1])
    prompt = np.random.default_rng(args.seed).integers(0, vocabulary, probe.prompt_length)
    times: list[list[float]] = [[] for _ in names]
    differences: list[float] = []
    same = True
    try:
        for _ in range(max(1, args.rounds)):
            tokens, round_differences, round_times = generate(make_interpreters, prompt, args.steps, carry=(1,))
            same = same and all(t == tokens[0] for t in tokens[1:])
            differences = [max(a, b) for a, b in zip(differences, round_differences)] or round_differences
            for k, t in enumerate(round_times):
                times[k] += t
    except ArithmeticError as e:
        print(f"{args.model.name}: {e}")
        return 2
    print(f"{args.model.name}: prompt of {len(prompt)}, {args.steps} greedy decode steps, {args.threads} thread(s), "
          f"{args.rounds} round(s)")
    for name, t in zip(names, tokens):
        print(f"{name}: {t}")
    print(f"logits max |diff| / max |LiteRT's|: prefill {differences[0]:.2e}, decode steps max "
          f"{max(differences[1:], default=0):.2e}")
    medians = [statistics.median(t) * 1e3 for t in times]
    print("decode step median: " + ", ".join(f"{name} {ms:.3f} ms" for name, ms in zip(names, medians)))
    print("per token, rillet / LiteRT+XNNPACK: " + ", ".join(
        f"{name[7:]} {ms / medians[0]:.2f}" for name, ms in zip(names[1:], medians[1:])))
    print("tokens: the same in every round" if same else "tokens differ")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
