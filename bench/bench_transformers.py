"""The transformer models bench/make_transformers.py writes (issue 28): does rillet run each, how far its
outputs are from LiteRT's (float: max abs and relative error; int8 models: whether every output is the same
bits), and its latency against LiteRT with XNNPACK and with its builtin kernels, same process, same inputs,
runs interleaved (rillet.commands.bench.bench_model_threads, as bench/bench_models.py uses), medians.

    python bench/bench_transformers.py [--models /work/txmodels] [--threads 1 2] [--runs 20] [--profile]
        [--warmup 2] [--only NAME ...] [--markdown out.md] [--readme]

Needs only rillet and ai-edge-litert. The latency is that of the signature on subgraph 0 (the KV-cache GPT-2's
prefill) through the tensor API, fed the inputs stored in MODEL.npz; any other signature (its decode) is timed
through each runtime's signature runner, and, where outputs are named as inputs (a KV cache), also through
rillet's runner with SignatureRunner.carry feeding them back (the row "... carried", same interleaved run).
--profile adds rillet's ten slowest ops per model (Interpreter.profile, one thread).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from rillet.commands.bench import bench_model_threads
from rillet.native import kernel_path
from rillet.runtime import Interpreter

RTOL = 1e-5


def stored_signatures(npz) -> dict[str, tuple[dict[str, np.ndarray], dict[str, np.ndarray]]]:
    """{signature: (inputs, LiteRT's outputs)} from the SIG/in/NAME and SIG/out/NAME arrays."""
    result: dict[str, tuple[dict, dict]] = {}
    for key in npz.files:
        sig, kind, name = key.split("/", 2)
        result.setdefault(sig, ({}, {}))[0 if kind == "in" else 1][name] = npz[key]
    return result


def first_line(e: BaseException) -> str:
    return (str(e).splitlines() or [type(e).__name__])[0][:400]


def compare(path: Path, signatures: dict) -> tuple[str, str]:
    """(runs?, accuracy) of rillet against the stored LiteRT outputs, every signature."""
    try:
        it = Interpreter(model_path=str(path))
        it.allocate_tensors()
    except Exception as e:  # noqa: BLE001 - the reason is the result
        return "no", first_line(e)
    exact = "int8" in path.stem
    notes = []
    for sig, (inputs, expected) in signatures.items():
        try:
            got = it.get_signature_runner(sig)(**inputs)
        except Exception as e:  # noqa: BLE001
            return "no", f"{sig}: {first_line(e)}"
        for name, want in expected.items():
            have = np.asarray(got[name])
            if exact and want.dtype.kind in "iu":
                differ = int(np.count_nonzero(have != want))
                worst = int(np.abs(have.astype(np.int64) - want).max())
                notes.append(f"{sig}/{name}: " + ("bit-exact" if differ == 0 else
                                                  f"{differ}/{want.size} differ, max {worst}"))
                continue
            diff = np.abs(have.astype(np.float64) - want.astype(np.float64))
            scale = max(float(np.abs(want).max()), 1e-30)
            # Elementwise rtol (the tests' check on the small fixtures) fails at full size on outputs near
            # zero whose neighbours are large, from summation order alone; the verdict is relative to max|y|.
            ok = bool(diff.max() <= RTOL * scale)
            same = exact and have.tobytes() == want.tobytes()
            verdict = "bit-exact" if same else ("within 1e-5 of max|y|" if ok else "OUTSIDE 1e-5 of max|y|")
            notes.append(f"{sig}/{name}: {verdict}, max abs {diff.max():.2e}, "
                         f"max abs/max|y| {diff.max() / scale:.2e}")
    return "yes", "; ".join(notes)


def first_signature(path: Path) -> str:
    """The signature on subgraph 0, the one the tensor-index API (and bench_model_threads) runs."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    it = LiteRT(model_path=str(path))
    return next(k for k in it.get_signature_list() if it.get_signature_runner(k)._subgraph_index == 0)


def bench_inputs(path: Path, signatures: dict, folder: Path) -> str:
    """An .npz of the stored inputs of the signature on subgraph 0, keyed by its input names."""
    sig = first_signature(path)
    target = folder / f"{path.stem}.inputs.npz"
    np.savez(target, **signatures[sig][0])
    return str(target)


def bench_signature(path: Path, sig: str, inputs: dict[str, np.ndarray], thread_counts: list[int], runs: int,
                    warmup: int) -> dict[int, dict]:
    """bench_model_threads for a signature off subgraph 0 (the KV-cache GPT-2's decode): each runtime's
    signature runner called with the stored inputs, every runtime at every thread count taking turns in one
    interleaved loop. A runner call also copies its inputs in and outputs out, in every runtime alike."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT
    from ai_edge_litert.interpreter import OpResolverType

    from rillet.commands.bench import _time_interleaved

    builtin = OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    makers = {"rillet": lambda n: Interpreter(model_path=str(path), num_threads=n),
              "litert_xnnpack": lambda n: LiteRT(model_path=str(path), num_threads=n),
              "litert_builtin": lambda n: LiteRT(model_path=str(path), num_threads=n,
                                                 experimental_op_resolver_type=builtin)}
    results: dict = {}
    calls = {}
    for threads in thread_counts:
        for name, make in makers.items():
            try:
                runner = make(threads).get_signature_runner(sig)
                runner(**inputs)
                calls[(threads, name)] = lambda runner=runner: runner(**inputs)
            except Exception as e:  # noqa: BLE001 - the reason is the result
                results[(threads, name)] = f"cannot run: {first_line(e)}"
        # Outputs named as inputs (a KV cache): rillet's SignatureRunner.carry feeds them back inside the
        # runtime, as a generation loop would, and each call passes the other inputs only.
        runner = makers["rillet"](threads).get_signature_runner(sig)
        carried = sorted(set(runner.get_output_details()) & set(inputs))
        if carried:
            runner.carry(**{name: name for name in carried})
            runner(**inputs)
            rest = {name: value for name, value in inputs.items() if name not in carried}
            calls[(threads, "rillet_carried")] = lambda runner=runner: runner(**rest)
    results.update(_time_interleaved(calls, runs, warmup=warmup))
    names = [*makers, "rillet_carried"]
    return {t: {name: results[(t, name)] for name in names if (t, name) in results} for t in thread_counts}


def cell(result) -> str:
    return f"{result['median_ms']:.3f}" if isinstance(result, dict) else "—"


def ratio(ours, peer) -> str:
    if isinstance(ours, dict) and isinstance(peer, dict):
        return f"{ours['median_ms'] / peer['median_ms']:.2f}"
    return "—"


def profile_top(path: Path, inputs: str, top: int = 10) -> list[str]:
    from rillet.commands.run import prepare_inputs

    it = Interpreter(model_path=str(path), num_threads=1)
    prepare_inputs(it, [inputs])
    it.invoke()
    rows = [r for r in it.profile(runs=5) if not r["folded"]]
    total = sum(r["seconds"] for r in rows) or 1.0
    lines = [f"  {path.stem}: total {total * 1e3:.2f} ms over {len(rows)} ops"]
    for r in sorted(rows, key=lambda r: -r["seconds"])[:top]:
        lines.append(f"    #{r['index']:<4} {r['op']:<20} {str(r['output_shape']):<18} "
                     f"{r['seconds'] * 1e3:8.3f} ms {100 * r['seconds'] / total:5.1f}%")
    return lines


def inventory(paths: list[Path]) -> str:
    """The folder's README: each model's size, signatures, op counts (rillet's own reader), and whether
    rillet runs it with LiteRT's results."""
    from collections import Counter

    from rillet.converter.format import load
    from rillet.converter.format.summary import summarize

    lines = ["# Transformer models for rillet (issue 28)", "",
             "Written by bench/make_transformers.py (random weights, today's converters); each MODEL.npz "
             "holds SIG/in/NAME and LiteRT's SIG/out/NAME for every signature. Regenerate this file with "
             "`python bench/bench_transformers.py --models DIR --readme`; the latency table with "
             "`python bench/bench_transformers.py --models DIR`.", ""]
    before = paths[0].parent / "bench_main_before.md" if paths else None
    if before and before.exists():
        lines += [f"{before.name}: rillet main's accuracy, latency and slowest ops on these models before issue "
                  "28's kernels.", ""]
    for path in paths:
        model = load(path)
        summary = summarize(model)
        signatures = stored_signatures(np.load(path.with_suffix(".npz")))
        runs, note = compare(path, signatures)
        lines.append(f"## {path.name} ({path.stat().st_size / 1e6:.2f} MB)")
        for sig in summary["signatures"]:
            ins = ", ".join(f"{k} {v['dtype']}{v['shape']}" for k, v in sig["inputs"].items())
            outs = ", ".join(f"{k} {v['dtype']}{v['shape']}" for k, v in sig["outputs"].items())
            lines.append(f"- signature `{sig['key']}` (subgraph {sig['subgraph']}): {ins} -> {outs}")
        for index, sg in enumerate(model.subgraphs):
            # An op's type is its first input's (QUANTIZE: float -> int8 shows as float).
            counts = Counter(f"{model.op_name(op)} {sg.tensors[op.inputs[0]].dtype}"
                             if op.inputs and op.inputs[0] >= 0 else model.op_name(op) for op in sg.operators)
            lines.append(f"- subgraph {index} ops ({len(sg.operators)}), by first input's type: "
                         + ", ".join(f"{name} x{n}" for name, n in sorted(counts.items())))
        lines.append(f"- rillet runs it: **{runs}**: {note}")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=Path("/work/txmodels"))
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=2, help="untimed invokes before each turn (default 2)")
    parser.add_argument("--only", nargs="+", help="model names (file stems) to run")
    parser.add_argument("--profile", action="store_true",
                        help="also print rillet's ten slowest ops per model")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    parser.add_argument("--readme", action="store_true",
                        help="only write MODELS/README.md (each model's ops and whether rillet runs it), "
                             "no timing")
    args = parser.parse_args()

    paths = [p for p in sorted(args.models.glob("*.tflite")) if not args.only or p.stem in args.only]
    if args.readme:
        text = inventory(paths)
        (args.models / "README.md").write_text(text + "\n")
        print(text)
        return 0
    accuracy = ["| model | rillet runs it | outputs against LiteRT |", "|---|---|---|"]
    speed = ["| model | threads | rillet ms | LiteRT+XNNPACK ms | LiteRT builtin ms | rillet/XNNPACK "
             "| rillet/builtin |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    profiles: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            signatures = stored_signatures(np.load(path.with_suffix(".npz")))
            runs, note = compare(path, signatures)
            accuracy.append(f"| {path.stem} | {runs} | {note} |")
            print(accuracy[-1], flush=True)
            inputs = bench_inputs(path, signatures, Path(tmp))
            timings = {path.stem: bench_model_threads(str(path), args.threads, args.runs, warmup=args.warmup,
                                                      inputs=[inputs])}
            for sig in sorted(signatures):
                if len(signatures) > 1 and sig != first_signature(path):
                    timings[f"{path.stem} `{sig}`"] = bench_signature(path, sig, signatures[sig][0],
                                                                      args.threads, args.runs, args.warmup)
            for label, by_threads in timings.items():
                for threads in args.threads:
                    r = by_threads[threads]
                    xnn, builtin = r.get("litert_xnnpack"), r.get("litert_builtin")
                    for ours, named in ((r.get("rillet"), label), (r.get("rillet_carried"), f"{label} carried")):
                        if ours is None and named != label:
                            continue
                        speed.append(f"| {named} | {threads} | {cell(ours)} | {cell(xnn)} | {cell(builtin)} "
                                     f"| {ratio(ours, xnn)} | {ratio(ours, builtin)} |")
                        print(speed[-1], flush=True)
            if args.profile and runs == "yes":
                profiles += profile_top(path, inputs)
                print("\n".join(profiles[-11:]), flush=True)
    text = "\n".join([f"rillet's kernel path: {kernel_path()}; {args.runs} runs per runtime, interleaved in "
                      "5 blocks, medians; ratio > 1 means rillet is slower. A shared machine: repeat before "
                      "trusting a ratio within ~10%.", "", *accuracy, "", *speed,
                      *(["", "rillet's ten slowest ops per model (one thread, median of 5):", *profiles]
                        if profiles else [])])
    print()
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
