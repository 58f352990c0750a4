"""The per-layer quantization report: every tensor of the float model against its int8 twin, over the
same inputs (SQNR, cosine similarity, RMSE in units of the int8 scale), layers ranked by the error they
add, and which to keep float; the whole model's agreement with the float model (each output's SQNR and top-1
agreement over the calibration inputs). JSON, a terminal table, and a self-contained HTML page
(quant/report_html.py).

Subgraphs that IF, WHILE and CALL_ONCE call are measured too, at each call, where the interpreter runs one
subgraph at a time (rillet's; quant/subgraphs.py replays the calls in both models, as calibration does): a
call of the int8 model is set beside the float model's call of the same subgraph in the same order, until
the two models' control flow parts. Their tensors and layers are named "SUBGRAPH/NAME"; keep-float
suggestions come from subgraph 0."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from rillet.converter.format import ModelFile, load

from .calibrate import allocate_for, float_activations, progress, run_model
from .rewrite import QuantizationError
from .subgraphs import can_replay, replay_calls, subgraph_values

# A layer that costs this many dB of SQNR (its output against its worst input) is worth keeping float.
SUGGEST_ADDED_DB = 6.0
SUGGEST_MAX = 3
# The terminal table's columns, in a line above it (the HTML page explains them at more length).
TABLE_LEGEND = ("SQNR dB: the layer's int8 output against the float model's, 10*log10(signal power / error "
                "power); higher is better, 6 dB ~ 1 bit\nin dB: the same for its worst input; added: in dB - SQNR dB, "
                "the error the layer adds itself (exact: no error at all)")


@dataclass
class TensorError:
    name: str  # "SUBGRAPH/NAME" outside subgraph 0
    dtype: str  # of the tensor in the quantized model
    scale: float | None
    zero_point: int | None
    sqnr_db: float | None  # None: no error at all (identical values)
    cosine: float
    rmse_over_scale: float | None


@dataclass
class LayerError:
    index: int
    op: str
    output: str
    sqnr_db: float | None
    input_sqnr_db: float | None  # the worst of its activation inputs; None: exact inputs
    added_db: float
    subgraph: int = 0


@dataclass
class Report:
    tensors: list[TensorError]
    layers: list[LayerError]  # ranked: the layer that adds the most error first
    keep_float_suggestion: list[str] = field(default_factory=list)
    samples: int = 0
    # Plain dicts, so a field added later (and the HTML page reading it) merges easily:
    # agreement: per output of subgraph 0, {"output", "sqnr_db", "top1_agree", "top1_rows"} (top-1: the argmax
    # over the last axis, per row, float model against int8; top1_rows 0 where the output has one value per row).
    agreement: list[dict[str, Any]] = field(default_factory=list)
    # calibration: {"samples", "inputs": [{"name", "shape", "dtype", "min", "max"}]}: what the report ran over.
    calibration: dict[str, Any] = field(default_factory=dict)
    # meta: what the caller knows and the report does not: {"model", "output", "calibration_file", "options":
    # {...}} (rillet quantize fills it); shown as given.
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "samples": self.samples,
            "meta": self.meta,
            "calibration": self.calibration,
            "agreement": self.agreement,
            "tensors": {t.name: {k: v for k, v in asdict(t).items() if k != "name"} for t in self.tensors},
            "layers": [asdict(layer) for layer in self.layers],
            "keep_float_suggestion": self.keep_float_suggestion,
            "added_db_by_op": self.added_by_op(),
        }

    def added_by_op(self) -> list[dict[str, Any]]:
        """Where the dB go, by op type: the dB its layers add summed, their count and the worst one's, the
        type that adds most first (what --keep-float TYPE would buy back, at most)."""
        found: dict[str, dict[str, Any]] = {}
        for layer in self.layers:
            row = found.setdefault(layer.op, {"op": layer.op, "layers": 0, "added_db": 0.0, "worst_added_db": 0.0})
            row["layers"] += 1
            row["added_db"] = round(row["added_db"] + layer.added_db, 3)
            row["worst_added_db"] = max(row["worst_added_db"], layer.added_db)
        return sorted((row for row in found.values() if row["added_db"] > 0),
                      key=lambda row: (-row["added_db"], row["op"]))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=False)

    def table(self, limit: int = 15) -> str:
        rows = [f"{'rank':>4}  {'op':<18} {'SQNR dB':>8} {'in dB':>8} {'added':>7}  output"]
        legend = [TABLE_LEGEND]
        for rank, layer in enumerate(self.layers[:limit], 1):
            rows.append(f"{rank:>4}  {layer.op:<18} {_db(layer.sqnr_db):>8} {_db(layer.input_sqnr_db):>8} "
                        f"{layer.added_db:>7.1f}  {_short(layer.output)}")
        if len(self.layers) > limit:
            rows.append(f"      ... {len(self.layers) - limit} more layers in the JSON report")
        by_op = self.added_by_op()[:8]
        if by_op:
            rows.append("added dB by op type: " + ", ".join(
                f"{row['op']} {row['added_db']:.1f} ({row['layers']})" for row in by_op))
        if self.keep_float_suggestion:
            rows.append("suggest keeping float: " + ", ".join(self.keep_float_suggestion)
                        + "  (--keep-float NAME, keep_float=[...])")
        else:
            rows.append(f"no layer adds {SUGGEST_ADDED_DB:.0f} dB or more of error: nothing to keep float")
        for a in self.agreement:
            top1 = (f", top-1 agrees on {a['top1_agree']}/{a['top1_rows']} calibration inputs"
                    if a["top1_rows"] else "")
            rows.append(f"output {_short(a['output'], 40)}: SQNR {_db(a['sqnr_db'])} dB{top1}")
        return "\n".join(legend + rows)

    def to_html(self) -> str:
        """A self-contained page (inline CSS and SVG, nothing fetched): quant/report_html.py."""
        from .report_html import render

        return render(self)


def _db(v: float | None) -> str:
    return "exact" if v is None else f"{v:.1f}"


def _short(name: str, n: int = 60) -> str:
    return name if len(name) <= n else "…" + name[-(n - 1):]


@dataclass
class _Sums:
    f2: float = 0.0
    e2: float = 0.0
    q2: float = 0.0
    fq: float = 0.0
    count: int = 0

    def add(self, f: np.ndarray, q: np.ndarray) -> None:
        f = f.astype(np.float64).reshape(-1)
        q = q.astype(np.float64).reshape(-1)
        finite = np.isfinite(f)
        if not finite.all():  # a max pool's -inf padding: int8 holds its minimum there, which is no error
            f, q = f[finite], q[finite]
        self.f2 += float(f @ f)
        self.q2 += float(q @ q)
        self.fq += float(f @ q)
        self.e2 += float((f - q) @ (f - q))
        self.count += f.size


def _sqnr(s: _Sums) -> float | None:
    if s.e2 == 0:
        return None
    ratio = s.f2 / s.e2 if s.f2 > 0 and math.isfinite(s.e2) else 0.0  # an inf or NaN in the int8 model's values
    return 10 * math.log10(ratio) if ratio > 0 else -math.inf


def _twins(float_model: ModelFile, quant_model: ModelFile, k: int = 0) -> dict[int, int]:
    """Float tensor of subgraph k -> its counterpart in the quantized model's subgraph k: the same name (the
    int8 or int16 tensor keeps it), else the int8 (int16) view the rewrite added at a float boundary."""
    qsg = quant_model.subgraphs[k]
    by_name: dict[str, int] = {}
    for i, t in enumerate(qsg.tensors):
        by_name.setdefault(t.name, i)
    twins = {}
    for i in float_activations(float_model, k):
        name = float_model.subgraphs[k].tensors[i].name
        q = by_name.get(name)
        view = by_name.get(f"{name}/int8", by_name.get(f"{name}/int16"))
        if view is not None and (q is None or qsg.tensors[q].type not in QUANTIZED):
            q = view
        if q is not None:
            twins[i] = q
    return twins


QUANTIZED = {9: "int8", 7: "int16"}  # TensorTypes of quantized activations: int8, and int16 (16x8)


def _as_float(value: np.ndarray, details: dict[str, Any]) -> np.ndarray:
    if value.dtype in (np.int8, np.int16):
        scale, zero_point = details["quantization"]
        return (value.astype(np.float64) - zero_point) * scale
    return value


def compare(float_bytes: bytes, quant_bytes: bytes, samples: list[dict[int, np.ndarray]], *,
            interpreter_class: Callable, show_progress: bool = True) -> Report:
    """Runs both models over `samples` (feeds keyed by the float model's input indices) and measures."""
    float_model, quant_model = load(float_bytes), load(quant_bytes)
    fi = interpreter_class(model_content=float_bytes, experimental_preserve_all_tensors=True)
    qi = interpreter_class(model_content=quant_bytes, experimental_preserve_all_tensors=True)
    called = (len(float_model.subgraphs) > 1 and len(quant_model.subgraphs) == len(float_model.subgraphs)
              and can_replay(fi) and can_replay(qi))
    twins = {k: _twins(float_model, quant_model, k) for k in range(len(float_model.subgraphs) if called else 1)}
    first = [samples[0][i].shape for i in float_model.subgraphs[0].inputs]
    allocate_for(fi, first)
    allocate_for(qi, first)
    q_details = {d["index"]: d for d in qi.get_tensor_details()}
    q_inputs = [d["index"] for d in qi.get_input_details()]
    sums = {(k, i): _Sums() for k, pairs in twins.items() for i in pairs}
    outputs = [o for o in float_model.subgraphs[0].outputs if o in twins[0]]
    top1 = {o: [0, 0] for o in outputs}  # rows whose argmax agrees, rows

    def add(k: int, fvals: dict[int, np.ndarray], qvals: dict[int, np.ndarray]) -> None:
        for i, q in twins[k].items():
            if i in fvals and q in qvals:
                scale = quant_model.subgraphs[k].tensors[q].quantization if k else None
                qv = qvals[q]
                if k and qv.dtype in (np.int8, np.int16) and scale is not None and scale.scale:
                    qv = (qv.astype(np.float64) - int(scale.zero_point[0])) * float(scale.scale[0])
                elif not k:
                    qv = _as_float(qv, q_details[q])
                sums[(k, i)].add(np.asarray(fvals[i]), np.asarray(qv))

    for feed in progress(samples, len(samples), "report", show_progress):
        fvals = run_model(fi, feed, sorted(twins[0]))
        qfeed = {}
        for (index, value), q_index in zip(sorted(feed.items(), key=lambda kv: float_model.subgraphs[0].inputs
                                                  .index(kv[0])), q_inputs):
            d = q_details[q_index]
            if d["dtype"] == np.int8:
                scale, zero_point = d["quantization"]
                value = np.clip(np.round(value / scale) + zero_point, -128, 127).astype(np.int8)
            qfeed[q_index] = value
        qvals = run_model(qi, qfeed, sorted(set(twins[0].values())))
        add(0, fvals, qvals)
        for o in outputs:
            if o in fvals and twins[0][o] in qvals and np.ndim(fvals[o]) and np.shape(fvals[o])[-1] > 1:
                f = np.asarray(fvals[o], np.float64)
                q = _as_float(np.asarray(qvals[twins[0][o]]), q_details[twins[0][o]])
                f, q = f.reshape(-1, f.shape[-1]), np.asarray(q, np.float64).reshape(-1, f.shape[-1])
                top1[o][0] += int((f.argmax(axis=1) == q.argmax(axis=1)).sum())
                top1[o][1] += f.shape[0]
        if called:
            called = _add_calls(fi, qi, float_model, quant_model, add)
    tensors, sqnr = [], {}
    for (k, i), s in sorted(sums.items()):
        if not s.count:
            continue
        q = twins[k][i]
        t = quant_model.subgraphs[k].tensors[q]
        quant = t.quantization if t.type in QUANTIZED and t.quantization and t.quantization.scale else None
        scale = float(quant.scale[0]) if quant else None
        cosine = s.fq / math.sqrt(s.f2 * s.q2) if s.f2 > 0 and s.q2 > 0 else (1.0 if s.e2 == 0 else 0.0)
        sqnr[(k, i)] = _sqnr(s)
        tensors.append(TensorError(
            name=_name(float_model, k, float_model.subgraphs[k].tensors[i].name),
            dtype=QUANTIZED[t.type] if quant else "float32",
            scale=scale, zero_point=int(quant.zero_point[0]) if quant else None, sqnr_db=sqnr[(k, i)],
            cosine=cosine, rmse_over_scale=math.sqrt(s.e2 / s.count) / scale if scale else None,
        ))
    layers = []
    for k in twins:
        fsg = float_model.subgraphs[k]
        for j, op in enumerate(fsg.operators):
            outs = [o for o in op.outputs or [] if (k, o) in sqnr]
            if not outs:
                continue
            ins = [sqnr[(k, i)] for i in op.inputs or [] if (k, i) in sqnr]
            finite_ins = [v for v in ins if v is not None]
            worst_in = min(finite_ins) if finite_ins else None
            out = sqnr[(k, outs[0])]
            added = (worst_in if worst_in is not None else 100.0) - (out if out is not None else 100.0)
            layers.append(LayerError(j, float_model.op_name(op), _name(float_model, k, fsg.tensors[outs[0]].name), out,
                                     worst_in, round(max(added, 0.0), 3), k))
    layers.sort(key=lambda layer: (-layer.added_db, layer.subgraph, layer.index))
    suggestion = [layer.output for layer in layers
                  if layer.added_db >= SUGGEST_ADDED_DB and layer.subgraph == 0][:SUGGEST_MAX]
    agreement = [{"output": float_model.subgraphs[0].tensors[o].name, "sqnr_db": sqnr.get((0, o)),
                  "top1_agree": top1[o][0], "top1_rows": top1[o][1]} for o in outputs if (0, o) in sqnr]
    return Report(tensors, layers, suggestion, len(samples), agreement, _calibration_summary(float_model, samples))


def _calibration_summary(model: ModelFile, samples: list[dict[int, np.ndarray]]) -> dict[str, Any]:
    """How many samples, and each input's name, shape, type and the range of its values over them."""
    inputs = []
    for i in model.subgraphs[0].inputs:
        values = [np.asarray(s[i]) for s in samples if i in s]
        if not values:
            continue
        finite = [v[np.isfinite(v)] if v.dtype.kind == "f" else v for v in values]
        inputs.append({"name": model.subgraphs[0].tensors[i].name, "shape": [int(n) for n in values[0].shape],
                       "dtype": str(values[0].dtype), "min": float(min(v.min() for v in finite if v.size)),
                       "max": float(max(v.max() for v in finite if v.size))})
    return {"samples": len(samples), "inputs": inputs}


def _name(model: ModelFile, k: int, tensor: str) -> str:
    return tensor if k == 0 else f"{model.subgraphs[k].name or f'subgraph{k}'}/{tensor}"


def _add_calls(fi: Any, qi: Any, float_model: ModelFile, quant_model: ModelFile,
               add: Callable[[int, dict, dict], None]) -> bool:
    """Replays the called subgraphs in both models and measures each pair of calls, in order, while both
    models call the same subgraph; False when a call cannot be replayed (measure subgraph 0 only)."""
    fcalls: list[tuple[int, dict]] = []
    qcalls: list[tuple[int, dict]] = []
    try:
        replay_calls(fi, float_model, 0, subgraph_values(fi, float_model, 0), lambda k, v: fcalls.append((k, v)))
        replay_calls(qi, quant_model, 0, subgraph_values(qi, quant_model, 0), lambda k, v: qcalls.append((k, v)))
    except QuantizationError:  # a branch that assigns a variable: replaying it would assign it again
        return False
    for (kf, fv), (kq, qv) in zip(fcalls, qcalls):
        if kf != kq:
            break
        add(kf, fv, qv)
    return True


def output_sqnr(report: Report, float_model: ModelFile) -> float:
    """The worst SQNR (dB) of subgraph 0's outputs in `report`; inf where they came out exact."""
    sg = float_model.subgraphs[0]
    names = {sg.tensors[o].name for o in sg.outputs}
    found = [t.sqnr_db for t in report.tensors if t.name in names]
    return min((math.inf if v is None else v for v in found), default=math.inf)
