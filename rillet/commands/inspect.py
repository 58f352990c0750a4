"""`rillet inspect model.tflite [--json]`: signatures, operators, shapes, MACs and totals, and the ops of every
subgraph that rillet has no kernel for (at their dtypes), before anyone invokes the model."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from .common import UsageError, WorkError, existing_file

CUSTOM_CODE = 32  # TFLite's BuiltinOperator.CUSTOM: a custom op is known by its name


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("inspect", help="describe a .tflite model",
        description=("Reads a .tflite file without running it and prints its signatures (names, "
                     "shapes, dtypes, quantization), a table of its operators with their input and "
                     "output shapes and multiply-accumulates, the totals (parameters, weight bytes, "
                     "MACs), custom ops, and every op of every subgraph that rillet cannot run (no "
                     "kernel, or none at its dtype). Without a model it describes the bundled digits"
                     " model."))
    p.add_argument("model", nargs="?", help="path to a .tflite file (default: the bundled demo model)")
    p.add_argument("--json", action="store_true", help="print the description as JSON")
    p.add_argument("--batch-size", type=int, metavar="N",
                   help="a training file: the batch its step memory is planned for (default: the file's own)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rillet.bundled import bundled_model_path
    from rillet.converter.format import ModelError, load
    from rillet.converter.format.summary import format_summary, summarize

    path = existing_file(args.model, "model") if args.model else bundled_model_path()
    if not args.model and not args.json:
        print(f"model: {path} (bundled with rillet)")
    try:
        model = load(path)
        summary = summarize(model)
    except ModelError as e:
        raise WorkError(f"{path}: {e}") from None
    mark_unsupported(summary, Path(path).read_bytes())
    summary["kernel_path"] = _kernel_path()
    batch = getattr(args, "batch_size", None)
    if batch is not None and batch < 1:
        raise UsageError(f"--batch-size {batch}: must be at least 1")
    if any(sig["key"] == "train" for sig in summary["signatures"]) and not summary["unsupported"]:
        summary["training"] = training_memory(path, batch)
    elif batch is not None:
        raise UsageError(f"--batch-size: {path} has no train signature rillet runs (it plans a training step)")
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    if "training" in summary and not args.json:
        print(format_training(summary["training"]))
    if not args.json:
        print(f"kernel path on this machine: {summary['kernel_path']} (RILLET_ISA=ref|avx2|avx512|... forces one)")
    return 0


def mark_unsupported(summary: dict[str, Any], data: bytes) -> None:
    """Gives each op of every subgraph in `summary` a "rillet" entry: true, or why rillet cannot run it (no
    kernel, or none at the dtype of the data it computes on), as librillet's own checks say when it reads the
    file, before any op is prepared. summary["unsupported"] lists the ops it cannot run."""
    from rillet.converter.format import ModelView

    view = ModelView(data)
    reasons = _unknown_ops(view) or _dtype_reasons(data, len(view.subgraphs))
    unsupported = []
    for sg in summary["subgraphs"]:
        for op in sg["operators"]:
            why = reasons.get((sg["index"], op["index"]))
            op["rillet"] = True if why is None else why
            if why is not None:
                unsupported.append({"subgraph": sg["index"], "index": op["index"], "op": op["op"], "why": why})
    summary["unsupported"] = unsupported


def _unknown_ops(view: Any) -> dict[tuple[int, int], str]:
    """(subgraph, op) -> "no kernel" for every op librillet has no kernel for at all (its reader then refuses
    the whole file, so no dtype is checked)."""
    from rillet.native import lib

    found = {}
    for s, sg in enumerate(view.subgraphs):
        for i, k in enumerate(sg.operator_columns().opcode_index.tolist()):
            code = int(view.opcode_codes[k])
            known = (lib.rl_custom_op_is_known(view.opcode_name(k).encode()) if code == CUSTOM_CODE
                     else lib.rl_op_is_known(code))
            if not known:
                found[(s, i)] = "no kernel"
    return found


def _dtype_reasons(data: bytes, n_subgraphs: int) -> dict[tuple[int, int], str]:
    """(subgraph, op) -> why, for the ops whose kernel does not take their dtypes: every subgraph read into
    one program, as the Interpreter reads them (variables and calls between subgraphs resolve there)."""
    from rillet.native import ffi, lib

    program_out, plans, found = ffi.new("rl_program **"), [], {}
    if lib.rl_program_create(program_out) != lib.RL_OK:
        raise MemoryError("librillet could not create a program")
    try:
        buffer = ffi.from_buffer("uint8_t[]", data)
        for s in range(n_subgraphs):
            out = ffi.new("rl_plan **")
            lib.rl_plan_create_on(out, 1, -1)
            if out[0] == ffi.NULL:
                raise MemoryError("librillet could not create a plan")
            plans.append(out[0])
            lib.rl_program_add_plan(program_out[0], s, out[0])
            if lib.rl_plan_build_from_tflite(out[0], buffer, len(data), s) != lib.RL_OK:
                failed = lib.rl_plan_failed_op(out[0])
                found[(s, max(int(failed), 0))] = ffi.string(lib.rl_plan_message(out[0])).decode(errors="replace")
                continue
            if lib.rl_plan_check_support(out[0]) == lib.RL_OK:
                continue
            # "op 3 (code 67, int16)": the dtype librillet's check read, its data input's.
            message = ffi.string(lib.rl_plan_message(out[0])).decode(errors="replace")
            named = {int(i): why for i, why in re.findall(r"op (\d+) \(code -?\d+, ([^)]+)\)", message)}
            for i in range(lib.rl_plan_op_count(out[0])):
                if not lib.rl_plan_op_supported(out[0], i):
                    why = named.get(i, "no kernel")
                    found[(s, i)] = why if why == "no kernel" else f"no kernel at {why}"
    finally:
        for plan in plans:  # before the program, which points at them
            lib.rl_plan_destroy(plan)
        lib.rl_program_destroy(program_out[0])
    return found


# What a step's plan holds; its packed weights are part of its op state (shown, not added again).
STEP_PARTS = ("arena_bytes", "op_state_bytes", "dynamic_bytes")


def training_memory(path: str | Path, batch_size: int | None = None) -> dict[str, Any]:
    """What a training step of the file at `path` needs, before any step runs: its variables (name, role,
    dtype, shape, bytes, from the file), the `train` signature's plan at `batch_size` (its arena of
    activations and gradients, op state with its packed weights; planned by allocating, not invoking) and
    step_bytes, their sum with every variable (the trained weights, the optimizer's slots, statistics,
    settings). The frozen weights are read in place from the file (weight_bytes), apart from the step."""
    from rillet.converter.format.variable_roles import decode_roles
    from rillet.converter.trainable import task_of
    from rillet.runtime import Interpreter

    it = Interpreter(model_path=str(path))
    view = it._model_view
    roles, types, sizes = decode_roles(view), it._variable_file_types(), it._variable_file_bytes()
    subgraph = it._signature_subgraphs()["train"]
    if batch_size is not None:
        for name, index in it._get_full_signature_list()["train"]["inputs"].items():
            shape = list(view.subgraphs[subgraph].tensors[index].shape or [])
            if shape:
                it._resize(index, np.array([batch_size, *shape[1:]], np.int32), False, subgraph)
    it.allocate_tensors()
    plan = it._plans[subgraph].memory()
    variables = [{"name": name, "role": roles.get(name, "unknown"),
                  "dtype": types[name][0].name if name in types else None,
                  "shape": list(types[name][1]) if name in types else None, "bytes": nbytes}
                 for name, nbytes in sizes.items()]
    by_role: dict[str, int] = {}
    for v in variables:
        by_role[v["role"]] = by_role.get(v["role"], 0) + v["bytes"]
    task = task_of(view) or {}
    batch = [list(view.subgraphs[subgraph].tensors[i].shape or [])[:1] for i in
             it._get_full_signature_list()["train"]["inputs"].values()]
    return {"batch_size": batch_size or next((b[0] for b in batch if b), 1), "loss": task.get("loss"),
            "optimizer": task.get("optimizer"), "layers": task.get("layers", []), "variables": variables,
            "variable_bytes_by_role": by_role, "train_plan": {k: plan[k] for k in (*STEP_PARTS, "packed_weight_bytes")},
            "weight_bytes": plan["weight_bytes"],
            "step_bytes": sum(plan[k] for k in STEP_PARTS) + sum(v["bytes"] for v in variables)}


def format_training(t: dict[str, Any]) -> str:
    lines = ["training (the train signature)"]
    if t["loss"]:
        lines.append(f"  loss {t['loss']}, optimizer {t['optimizer']}; trained layers: {', '.join(t['layers'])}")
    for v in sorted(t["variables"], key=lambda v: (v["role"] != "trained", v["role"], v["name"])):
        shape = ("x".join(map(str, v["shape"])) or "scalar") if v["shape"] is not None else "?"
        lines.append(f"  {v['role']:<16} {v['name']:<48} {v['dtype'] or '?':<8} {shape:<14} {v['bytes']:>10,} B")
    roles = ", ".join(f"{role} {n:,}" for role, n in t["variable_bytes_by_role"].items())
    plan = t["train_plan"]
    lines.append(f"  a step at batch {t['batch_size']}: {t['step_bytes']:,} bytes = variables ({roles}) + arena "
                 f"{plan['arena_bytes']:,} + op state {plan['op_state_bytes']:,} (packed weights "
                 f"{plan['packed_weight_bytes']:,} of it); frozen weights {t['weight_bytes']:,} read in place from the "
                 "file")
    return "\n".join(lines)


def _kernel_path() -> str:
    from rillet.native import kernel_path

    try:
        return kernel_path()
    except RuntimeError as e:
        return f"unavailable: {e}"
