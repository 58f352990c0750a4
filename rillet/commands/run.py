"""`rillet run model.tflite --input x.npy [--output y.npy] [--profile] [--json]`: one inference with
rillet's runtime, the inputs matched to the model's by name and quantized when the model takes int8."""

from __future__ import annotations

import argparse
import io
import json
from typing import Any

import numpy as np

from .common import as_model_input, open_interpreter, positive_int, read_inputs, write_file


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "run", help="run a .tflite model on inputs from .npy/.npz files",
        description="Float inputs to an int8 model are quantized with the input's scale and zero point; a .npz "
                    "or NAME=FILE.npy is matched to the model's inputs by name (the signature's or the tensor's).")
    p.add_argument("model", help="path to a .tflite file")
    p.add_argument("--input", action="append", required=True, metavar="X.npy",
                   help="X.npz (arrays keyed by input name), NAME=X.npy, or X.npy (one per model input, in order)")
    p.add_argument("--output", metavar="Y.npy", help="write the output (.npy; .npz for every output by name)")
    p.add_argument("--threads", type=positive_int, default=1, help="threads for the interpreter (default 1)")
    p.add_argument("--profile", action="store_true", help="print time and output shape per op, and the memory")
    p.add_argument("--json", action="store_true", help="print the outputs (and the profile) as JSON")
    p.set_defaults(func=run)


def prepare_inputs(it: Any, specs: list[str]) -> None:
    """Reads the input files, resizes the inputs whose shape differs, allocates and sets them."""
    details = {d["index"]: d for d in it.get_input_details()}
    values = {i: as_model_input(v, details[i], f"input {details[i]['name']!r}") for i, v in read_inputs(specs, it).items()}
    for index, value in values.items():
        if list(value.shape) != list(details[index]["shape"]):
            it.resize_tensor_input(index, value.shape)
    it.allocate_tensors()
    for index, value in values.items():
        it.set_tensor(index, value)


def profile_rows(it: Any, runs: int) -> list[dict[str, Any]]:
    return [{**row, "ms": None if row["folded"] else row["seconds"] * 1e3} for row in it.profile(runs=runs)]


def format_profile(rows: list[dict[str, Any]], memory: dict[str, int]) -> str:
    lines = [f"{'#':>3}  {'op':<24} {'output shape':<20} {'ms':>9}"]
    for row in rows:
        ms = "folded" if row["ms"] is None else f"{row['ms']:9.3f}"
        lines.append(f"{row['index']:>3}  {row['op']:<24} {row['output_shape']!s:<20} {ms:>9}")
    lines.append(f"arena {memory['arena_bytes']} bytes, weights {memory['weight_bytes']} bytes (in place), "
                 f"folded constants {memory['folded_bytes']} bytes")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    it = open_interpreter(args.model, num_threads=args.threads)
    prepare_inputs(it, args.input)
    it.invoke()
    outputs = {d["name"]: np.asarray(it.get_tensor(d["index"])) for d in it.get_output_details()}
    if args.output:
        buffer = io.BytesIO()
        if args.output.endswith(".npz"):
            np.savez(buffer, **outputs)
        else:
            np.save(buffer, next(iter(outputs.values())))
        write_file(args.output, buffer.getvalue())
    rows = profile_rows(it, 5) if args.profile else None
    memory = it.memory_report() if args.profile else None
    if args.json:
        report: dict[str, Any] = {"outputs": {name: {"dtype": y.dtype.name, "shape": list(y.shape),
                                                     **({} if args.output else {"values": y.tolist()})}
                                              for name, y in outputs.items()}}
        if rows is not None:
            report["profile"] = [{k: r[k] for k in ("index", "op", "output_shape", "ms", "folded")} for r in rows]
            report["memory"] = memory
        print(json.dumps(report, indent=2))
        return 0
    for name, y in outputs.items():
        print(f"{name}: {y.dtype.name}{list(y.shape)}" + ("" if args.output else f"\n{y}"))
    if rows is not None:
        print(format_profile(rows, memory))
    return 0
