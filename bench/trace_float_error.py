"""Where a float model's difference from LiteRT grows: every op's output compared twice against LiteRT's
default Interpreter (XNNPACK), once as the whole model computes it (accumulated error) and once with the op
alone fed LiteRT's own inputs to it (the op's own error). Each is max |diff| / max |LiteRT's tensor|.

    python bench/trace_float_error.py MODEL.tflite [--seed 0] [--top 25] [--all]

Intermediate tensors are read by rewriting the model's outputs to every op's output (the values do not
change: XNNPACK only stops fusing an activation into its producer, which gives the same numbers); an op
alone is the op and the DEQUANTIZE ops that make its weights, with its other inputs as model inputs."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

from rillet.converter.format import io
from rillet.converter.format.model import ModelFile
from rillet.converter.format.prune import drop_unused_buffers, drop_unused_tensors


def with_outputs(m: ModelFile, inputs: list[int], outputs: list[int], op_indices: list[int]) -> bytes:
    sg = m.subgraphs[0]
    sub = dataclasses.replace(sg, inputs=inputs, outputs=outputs, operators=[sg.operators[k] for k in op_indices])
    return io.save(drop_unused_buffers(drop_unused_tensors(dataclasses.replace(m, subgraphs=[sub],
                                                                             signature_defs=None))))


def weight_producers(m: ModelFile) -> dict[int, int]:
    """Tensor -> the DEQUANTIZE op that makes it from a constant (fp16 weights)."""
    sg = m.subgraphs[0]
    made = {}
    for k, op in enumerate(sg.operators):
        if m.op_name(op) == "DEQUANTIZE" and m.tensor_data(0, op.inputs[0]) is not None:
            made[op.outputs[0]] = k
    return made


def scaled(got: np.ndarray, want: np.ndarray) -> float:
    scale = max(float(np.abs(want).max(initial=0.0)), 1e-30)
    return float(np.abs(got.astype(np.float64) - want.astype(np.float64)).max(initial=0.0)) / scale


def invoke(runtime: str, content: bytes, feeds: list[np.ndarray]) -> list[np.ndarray]:
    if runtime == "litert":
        from ai_edge_litert.interpreter import Interpreter
    else:
        from rillet.runtime import Interpreter
    it = Interpreter(model_content=content)
    it.allocate_tensors()
    for d, v in zip(it.get_input_details(), feeds):
        it.set_tensor(d["index"], v)
    it.invoke()
    return [np.array(it.get_tensor(d["index"])) for d in it.get_output_details()]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--top", type=int, default=25, help="rows of the ops with the largest own error")
    parser.add_argument("--all", action="store_true", help="every op, in model order")
    args = parser.parse_args(argv)

    m = io.load(args.model.read_bytes())
    sg = m.subgraphs[0]
    made = weight_producers(m)
    traced = [k for k, op in enumerate(sg.operators) if m.op_name(op) != "DEQUANTIZE"]
    outs = [sg.operators[k].outputs[0] for k in traced]
    rng = np.random.default_rng(args.seed)
    feeds = [rng.uniform(-1, 1, sg.tensors[i].shape).astype(np.float32) for i in sg.inputs]
    everything = with_outputs(m, list(sg.inputs), outs, list(range(len(sg.operators))))
    theirs = dict(zip(outs, invoke("litert", everything, feeds)))
    ours = dict(zip(outs, invoke("rillet", everything, feeds)))
    known = {**theirs, **dict(zip(sg.inputs, feeds))}

    rows = []
    for k in traced:
        op = sg.operators[k]
        activations = list(dict.fromkeys(i for i in op.inputs if i >= 0 and i not in made
                                         and m.tensor_data(0, i) is None))  # once each: x * x reads x twice
        ops = sorted({made[i] for i in op.inputs if i in made}) + [k]
        try:
            alone = with_outputs(m, activations, [op.outputs[0]], ops)
            own = scaled(invoke("rillet", alone, [known[i] for i in activations])[0], theirs[op.outputs[0]])
        except Exception:  # noqa: BLE001 - an input no traced op gives, or an op that needs its neighbours
            own = float("nan")
        acc = scaled(ours[op.outputs[0]], theirs[op.outputs[0]])
        shape = "x".join(map(str, sg.tensors[op.outputs[0]].shape))
        rows.append((k, m.op_name(op), shape, own, acc))

    print(f"{args.model.name}, seed {args.seed}: op's own error | accumulated error (max |diff| / max |LiteRT|)")
    shown = rows if args.all else sorted(rows, key=lambda r: -np.nan_to_num(r[3], nan=-1.0))[:args.top]
    for k, name, shape, own, acc in shown:
        print(f"{k:4d} {name:28s} {shape:16s} own {own:9.2e}  accumulated {acc:9.2e}")
    by_kind: dict[str, list[float]] = {}
    for _, name, _, own, _ in rows:
        by_kind.setdefault(name, []).append(own)
    print("by op kind: count, max own error, median own error (nan: the op could not run alone)")
    for name, errs in sorted(by_kind.items(), key=lambda kv: -np.nanmax(kv[1] + [-1.0])):
        print(f"  {name:28s} {len(errs):4d} {max(errs, key=np.nan_to_num):9.2e} {float(np.median(errs)):9.2e}")
    print(f"final output: accumulated {rows[-1][4]:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
