"""`rillet run model.tflite --input x.npy [--output y.npy]`: one inference with rillet's runtime."""

from __future__ import annotations

import argparse
import sys

import numpy as np


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("run", help="run a .tflite model on inputs from .npy files")
    p.add_argument("model", help="path to a .tflite file")
    p.add_argument("--input", action="append", required=True, metavar="X.npy",
                   help="an input array (.npy), once per model input in order; a .npz gives them all by name")
    p.add_argument("--output", metavar="Y.npy", help="write the output (.npy; .npz for every output by name)")
    p.add_argument("--threads", type=int, default=1, help="threads for the interpreter (default 1)")
    p.add_argument("--profile", action="store_true", help="print time and output shape per op")
    p.set_defaults(func=run)


def _inputs(paths: list[str], details: list[dict]) -> list[np.ndarray]:
    if len(paths) == 1 and paths[0].endswith(".npz"):
        archive = np.load(paths[0])
        names = [d["name"] for d in details]
        return [archive[n] if n in archive else archive[archive.files[i]] for i, n in enumerate(names)]
    return [np.load(p) for p in paths]


def run(args: argparse.Namespace) -> int:
    from rillet.runtime import Interpreter, InterpreterError

    try:
        it = Interpreter(model_path=args.model, num_threads=args.threads)
        details = it.get_input_details()
        values = _inputs(args.input, details)
        if len(values) != len(details):
            print(f"rillet run: the model has {len(details)} inputs, got {len(values)}", file=sys.stderr)
            return 2
        for d, v in zip(details, values):
            if list(v.shape) != list(d["shape"]):
                it.resize_tensor_input(d["index"], v.shape)
        it.allocate_tensors()
        for d, v in zip(details, values):
            it.set_tensor(d["index"], v.astype(d["dtype"], copy=False))
        it.invoke()
    except (InterpreterError, ValueError) as e:
        print(f"rillet run: {e}", file=sys.stderr)
        return 2
    outputs = {d["name"]: it.get_tensor(d["index"]) for d in it.get_output_details()}
    if args.output:
        if args.output.endswith(".npz"):
            np.savez(args.output, **outputs)
        else:
            np.save(args.output, next(iter(outputs.values())))
    for name, y in outputs.items():
        print(f"{name}: {y.dtype.name}{list(y.shape)}" + ("" if args.output else f"\n{y}"))
    if args.profile:
        print(f"{'#':>3}  {'op':<24} {'output shape':<20} {'ms':>9}")
        for row in it.profile(runs=5):
            ms = "folded" if row["folded"] else f"{row['seconds'] * 1e3:9.3f}"
            print(f"{row['index']:>3}  {row['op']:<24} {row['output_shape']!s:<20} {ms:>9}")
        memory = it.memory_report()
        print(f"arena {memory['arena_bytes']} bytes, weights {memory['weight_bytes']} bytes (in place), "
              f"folded constants {memory['folded_bytes']} bytes")
    return 0
