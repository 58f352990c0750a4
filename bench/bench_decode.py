"""A KV-cache decoder's per-token step (bench/make_gpt2_kv.py's gpt2_kv_f32: signature `decode`), rillet
against LiteRT (XNNPACK, its default), the same process, interleaved; medians and ratios. Each runtime's
signature runner is called with the stored inputs, as a generation loop calls it; rillet's also with
SignatureRunner.carry, its KV cache fed back inside the runtime and each call passing the token and position
only. The row "Python" is the part of rillet's carried call spent outside librillet: the same call with the
invoke left out, which is what the Python API adds to a token.

    python bench/bench_decode.py [--model /work/txmodels/gpt2_kv_f32.tflite] [--runs 2000] [--threads 1]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import rillet.runtime.interpreter as rillet_interpreter
from rillet.commands.bench import _time_interleaved
from rillet.runtime import Interpreter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=Path("/work/txmodels/gpt2_kv_f32.tflite"))
    parser.add_argument("--signature", default="decode")
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    stored = np.load(args.model.with_suffix(".npz"))
    prefix = f"{args.signature}/in/"
    inputs = {key[len(prefix):]: stored[key] for key in stored.files if key.startswith(prefix)}

    litert = LiteRT(model_path=str(args.model), num_threads=args.threads).get_signature_runner(args.signature)
    def rillet_runner():
        interpreter = Interpreter(model_path=str(args.model), num_threads=args.threads)
        return interpreter.get_signature_runner(args.signature)

    plain, carried_runner = rillet_runner(), rillet_runner()
    carried = sorted(set(carried_runner.get_output_details()) & set(inputs))
    carried_runner.carry(**{name: name for name in carried})
    rest = {name: value for name, value in inputs.items() if name not in carried}
    for runner, feed in ((litert, inputs), (plain, inputs), (carried_runner, inputs)):
        runner(**feed)

    invoke = rillet_interpreter._invoke_plan

    def python_only() -> None:
        # the carried call with librillet's invoke replaced by a call that returns at once
        rillet_interpreter._invoke_plan = _no_invoke
        try:
            carried_runner(**rest)
        finally:
            rillet_interpreter._invoke_plan = invoke

    calls = {"LiteRT runner": lambda: litert(**inputs), "rillet runner": lambda: plain(**inputs),
             "rillet carried": lambda: carried_runner(**rest), "rillet carried, Python": python_only}
    results = _time_interleaved(calls, args.runs, warmup=20)
    base = results["LiteRT runner"]["median_ms"]
    print(f"{args.model.name} signature {args.signature!r}, {args.threads} thread(s), medians of {args.runs} "
          f"calls (carried: {', '.join(carried) or 'none'})")
    for name, result in results.items():
        median = result["median_ms"]
        print(f"  {name:24} {median * 1e3:9.1f} us   {median / base:5.2f}x LiteRT's")


def _no_invoke(plan: object) -> int:
    return 0


if __name__ == "__main__":
    main()
