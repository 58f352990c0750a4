"""What `rillet inspect` reports about a model: signatures, operators with shapes and MACs, totals."""

from __future__ import annotations

from typing import Any

import numpy as np

from .model import ModelFile, Operator, SubGraph, Tensor, tensor_type_name


def summarize(model: ModelFile) -> dict[str, Any]:
    """A JSON-ready description of `model`; `format_summary` renders it for a terminal."""
    subgraphs = [_subgraph(model, s, sg) for s, sg in enumerate(model.subgraphs)]
    constant_buffers: dict[int, int] = {}  # buffer -> element count, each buffer counted once
    for sg in model.subgraphs:
        for t in sg.tensors:
            data = model.buffers[t.buffer].data
            if data is not None and data.size and not t.is_variable:
                constant_buffers[t.buffer] = int(np.prod(t.shape or [], dtype=np.int64))
    custom = sorted({c.name for c in model.operator_codes if c.is_custom})
    return {
        "description": model.description,
        "signatures": _signatures(model),
        "subgraphs": subgraphs,
        "custom_ops": custom,
        "totals": {
            "operators": sum(len(sg["operators"]) for sg in subgraphs),
            "parameters": sum(constant_buffers.values()),
            "weight_bytes": sum(int(model.buffers[b].data.size) for b in constant_buffers),
            "macs": sum(op["macs"] for sg in subgraphs for op in sg["operators"]),
        },
    }


def tensor_info(sg: SubGraph, index: int) -> dict[str, Any]:
    t = sg.tensors[index]
    info: dict[str, Any] = {
        "index": index,
        "name": t.name,
        "shape": _display_shape(t),
        "dtype": tensor_type_name(t.type).lower(),
    }
    q = t.quantization
    if q is not None and q.scale:
        info["quantization"] = {
            "scale": q.scale if len(q.scale) <= 4 else f"{len(q.scale)} per-channel scales "
            f"in [{min(q.scale):.3g}, {max(q.scale):.3g}]",
            "zero_point": q.zero_point if q.zero_point is None or len(q.zero_point) <= 4 else
            f"{len(q.zero_point)} zero points",
            "axis": q.quantized_dimension,
        }
    if t.is_variable:
        info["variable"] = True
    return info


def _display_shape(t: Tensor) -> list[int]:
    """The shape with -1 where the batch (or any dimension) is dynamic."""
    if t.shape_signature and len(t.shape_signature) == len(t.shape or []):
        return list(t.shape_signature)
    return list(t.shape or [])


def _signatures(model: ModelFile) -> list[dict[str, Any]]:
    out = []
    for sig in model.signature_defs or []:
        sg = model.subgraphs[sig.subgraph_index]
        out.append({
            "key": sig.signature_key,
            "subgraph": sig.subgraph_index,
            "inputs": {tm.name: tensor_info(sg, tm.tensor_index) for tm in sig.inputs or []},
            "outputs": {tm.name: tensor_info(sg, tm.tensor_index) for tm in sig.outputs or []},
        })
    if not out:  # files without SignatureDefs are called through subgraph 0's inputs and outputs
        sg = model.subgraphs[0]
        out.append({
            "key": None,
            "subgraph": 0,
            "inputs": {sg.tensors[i].name: tensor_info(sg, i) for i in sg.inputs},
            "outputs": {sg.tensors[i].name: tensor_info(sg, i) for i in sg.outputs},
        })
    return out


def _subgraph(model: ModelFile, s: int, sg: SubGraph) -> dict[str, Any]:
    ops = []
    for j, op in enumerate(sg.operators):
        code = model.operator_codes[op.opcode_index]
        ops.append({
            "index": j,
            "op": code.name,
            "custom": code.is_custom,
            "version": code.version,
            "inputs": [_display_shape(sg.tensors[i]) if i >= 0 else None for i in op.inputs or []],
            "outputs": [_display_shape(sg.tensors[i]) for i in op.outputs or []],
            "macs": operator_macs(code.name, op, sg),
        })
    return {"index": s, "name": sg.name, "operators": ops}


def operator_macs(name: str, op: Operator, sg: SubGraph) -> int:
    """Multiply-accumulates of one run of `op` at the file's static shapes (0 for non-MAC ops)."""
    def shape(k: int, of: str = "inputs") -> list[int]:
        indices = getattr(op, of) or []
        return list(sg.tensors[indices[k]].shape or []) if k < len(indices) and indices[k] >= 0 else []

    def numel(dims: list[int]) -> int:
        return int(np.prod(dims, dtype=np.int64)) if dims else 0

    out = numel(shape(0, "outputs"))
    if name == "CONV_2D":  # filter [out_ch, kh, kw, in_ch]
        return out * numel(shape(1)[1:])
    if name == "DEPTHWISE_CONV_2D":  # filter [1, kh, kw, channels]
        return out * numel(shape(1)[1:3])
    if name == "FULLY_CONNECTED":  # weights [out_features, in_features]
        weights = shape(1)
        return out * weights[-1] if weights else 0
    if name == "BATCH_MATMUL":
        lhs = shape(0)
        adj_x = bool(getattr(op.builtin_options, "adj_x", False))
        return out * (lhs[-2] if adj_x else lhs[-1]) if len(lhs) >= 2 else 0
    if name == "TRANSPOSE_CONV":  # inputs: output_shape, filter [out_ch, kh, kw, in_ch], input
        return numel(shape(2)) * numel(shape(1)[:3])
    if name == "CONV_3D":  # filter [kd, kh, kw, in_ch, out_ch]
        return out * numel(shape(1)[:4])
    return 0


def format_summary(summary: dict[str, Any]) -> str:
    lines: list[str] = []
    if summary["description"]:
        lines.append(f"description: {summary['description']}")
    for sig in summary["signatures"]:
        title = f"signature {sig['key']!r}" if sig["key"] is not None else "inputs and outputs"
        lines.append(f"{title} (subgraph {sig['subgraph']})")
        for role in ("inputs", "outputs"):
            for name, t in sig[role].items():
                quant = ""
                if "quantization" in t:
                    q = t["quantization"]
                    quant = f"  scale={q['scale']} zero_point={q['zero_point']}"
                lines.append(f"  {role[:-1]:6} {name}: {t['dtype']}{t['shape']}{quant}")
    for sg in summary["subgraphs"]:
        lines.append("")
        lines.append(f"subgraph {sg['index']}" + (f" {sg['name']!r}" if sg["name"] else "") +
                     f": {len(sg['operators'])} operators")
        rows = [("#", "op", "inputs", "outputs", "MACs")]
        for op in sg["operators"]:
            rows.append((
                str(op["index"]),
                op["op"] + (" (custom)" if op["custom"] else "") +
                (f" [rillet: {op['rillet']}]" if isinstance(op.get("rillet"), str) else ""),
                " ".join(_shape_text(s) for s in op["inputs"]),
                " ".join(_shape_text(s) for s in op["outputs"]),
                f"{op['macs']:,}" if op["macs"] else "",
            ))
        lines.extend(_table(rows))
    t = summary["totals"]
    lines.append("")
    lines.append(
        f"totals: {t['operators']} operators, {t['parameters']:,} parameters, "
        f"{t['weight_bytes']:,} weight bytes, {t['macs']:,} MACs"
    )
    if summary["custom_ops"]:
        lines.append("custom ops (need a runtime that registers them): " + ", ".join(summary["custom_ops"]))
    if "unsupported" in summary:  # rillet inspect's check of every subgraph (rillet/commands/inspect.py)
        missing = summary["unsupported"]
        several = len(summary["subgraphs"]) > 1
        lines.append("rillet runs every op" + (f" of all {len(summary['subgraphs'])} subgraphs" if several else "")
                     if not missing else f"rillet cannot run {len(missing)} op{'s' if len(missing) > 1 else ''}: " +
                     "; ".join((f"subgraph {m['subgraph']} " if several else "") + f"op {m['index']} {m['op']} "
                               f"({m['why']})" for m in missing))
    return "\n".join(lines)


def _shape_text(shape: list[int] | None) -> str:
    return "-" if shape is None else "[" + ",".join("?" if d < 0 else str(d) for d in shape) + "]"


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    last = len(widths) - 1  # the MACs column, right-aligned so magnitudes line up
    return [
        "  " + "  ".join(c.rjust(w) if i == last else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
        for r in rows
    ]
