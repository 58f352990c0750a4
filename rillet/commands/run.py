"""`rillet run model.tflite --input x.npy [--signature NAME] [--output y.npy] [--profile] [--json]`: one
inference with rillet's runtime, the inputs matched to the model's by name (checked against its shapes) and
quantized when the model takes int8; the outputs named as the signature names them."""

from __future__ import annotations

import argparse
import io
import json
from typing import Any

import numpy as np

from .common import (
    UsageError,
    as_model_input,
    check_input_shape,
    open_interpreter,
    output_file,
    positive_int,
    read_inputs,
    signature_inputs,
    write_file,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "run", help="run a .tflite model on inputs from .npy/.npz files",
        description="Float inputs to an int8 model are quantized with the input's scale and zero point; a .npz "
                    "or NAME=FILE.npy is matched to the model's inputs by name (the signature's or the tensor's).")
    p.add_argument("model", help="path to a .tflite file")
    p.add_argument("--input", action="append", required=True, metavar="X.npy",
                   help="X.npz (arrays keyed by input name), NAME=X.npy, or X.npy (one per model input, in order)")
    p.add_argument("--signature", metavar="NAME",
                   help="the signature to run (default: the one on the model's main graph, or the graph itself)")
    p.add_argument("--output", metavar="Y.npy", help="write the output (.npy; .npz for every output by name)")
    p.add_argument("--threads", type=positive_int, default=1, help="threads for the interpreter (default 1)")
    p.add_argument("--profile", action="store_true", help="print time and output shape per op, and the memory")
    p.add_argument("--json", action="store_true", help="print the outputs (and the profile) as JSON")
    p.set_defaults(func=run)


def model_inputs(it: Any, specs: list[str], signature: str | None = None) -> dict[int, np.ndarray]:
    """The input files' arrays by tensor index (of subgraph 0, or of `signature`), each checked against the
    input's shape (a dynamic dimension may differ) and converted to its type."""
    if signature is None:
        details = {d["index"]: d for d in it.get_input_details()}
        alias = {i: n for n, i in _main_signature_names(it, "_inputs").items()}
    else:
        listed, _ = signature_inputs(it, signature)
        details = {d["index"]: d for d in listed}
        alias = {i: n for n, i in it.get_signature_runner(signature)._inputs.items()}
    values = {}
    for index, value in read_inputs(specs, it, signature).items():
        label = alias.get(index, details[index]["name"])
        check_input_shape(value, details[index], label)
        values[index] = as_model_input(value, details[index], f"input {label!r}")
    return values


def prepare_inputs(it: Any, specs: list[str]) -> None:
    """Reads the input files, checks their shapes, resizes the inputs whose shape differs (a dynamic batch),
    allocates and sets them."""
    details = {d["index"]: d for d in it.get_input_details()}
    values = model_inputs(it, specs)
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


def _main_signature_names(it: Any, which: str) -> dict[str, int]:
    """The name -> tensor index map (`_inputs` or `_outputs`) of the signature on subgraph 0, if any."""
    for key in it.get_signature_list():
        runner = it.get_signature_runner(key)
        if runner._subgraph_index == 0:
            return dict(getattr(runner, which))
    return {}


def _signature(it: Any, name: str | None, profile: bool) -> str | None:
    """--signature checked against the model's (UsageError naming them); None: run subgraph 0 itself."""
    signatures = it.get_signature_list()
    if name is None:
        return None
    if name not in signatures:
        raise UsageError(f"--signature {name!r}: the model has {', '.join(repr(k) for k in signatures) or 'no signatures'}")
    if profile and it.get_signature_runner(name)._subgraph_index != 0:
        raise UsageError(f"--profile times the main graph; signature {name!r} runs another subgraph")
    return name


def run(args: argparse.Namespace) -> int:
    it = open_interpreter(args.model, num_threads=args.threads)
    signature = _signature(it, args.signature, args.profile)
    if args.output:
        output_file(args.output)
    if signature is not None:
        runner = it.get_signature_runner(signature)
        by_index = model_inputs(it, args.input, signature)
        name_of = {i: n for n, i in runner._inputs.items()}
        outputs = {k: np.asarray(v) for k, v in runner(**{name_of[i]: v for i, v in by_index.items()}).items()}
        if args.profile:  # the signature runs subgraph 0 (_signature checked): the profile needs its tensors set
            prepare_inputs(it, args.input)
    else:
        prepare_inputs(it, args.input)
        it.invoke()
        names = {i: n for n, i in _main_signature_names(it, "_outputs").items()}
        outputs = {names.get(d["index"], d["name"]): np.asarray(it.get_tensor(d["index"]))
                   for d in it.get_output_details()}
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
