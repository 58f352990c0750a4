"""UNIDIRECTIONAL_SEQUENCE_LSTM against LiteRT, float32, int8 (`quantize --mode int8`: TFLite's integer LSTM)
and hybrid (`--mode dynamic`: int8 weights, float activations), at keyword-spotting sizes: 40 input features,
64 to 256 cells, with and without a projection, batch 1, tens of time steps. One interleaved run per model
(rillet, LiteRT's default Interpreter, LiteRT's builtin kernels), medians and the ratio rillet / LiteRT
(below 1: rillet is faster). XNNPACK does not take the op, so both LiteRT columns run TFLite's own kernel.

    python bench/bench_lstm.py [--threads 1] [--runs 40] [--steps 50] [--forms float int8 hybrid] [--profile]

--profile also prints where rillet's time goes in one model of each form (Interpreter.profile).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from rillet.commands.bench import bench_model
from rillet.converter.format import (
    BUILTIN_CODES,
    Buffer,
    ModelFile,
    Operator,
    OperatorCode,
    Options,
    SubGraph,
    Tensor,
    save,
)
from rillet.native import kernel_path
from rillet.quant import quantize

# (cells, outputs): outputs != cells means a projection
SHAPES = [(64, 64), (128, 128), (256, 256), (256, 128)]
N_INPUT = 40


def float_lstm(steps: int, n_cell: int, n_output: int, n_input: int = N_INPUT, seed: int = 0) -> bytes:
    """A batch-1, batch-major float LSTM with tanh, weights scaled as a trained layer's (Glorot-like), so the
    gates are neither saturated nor flat and the int8 calibration sees realistic ranges."""
    rng = np.random.default_rng(seed)
    buffers = [Buffer(data=None)]
    tensors: list[Tensor] = []

    def add(shape, value=None, variable=False, name=None) -> int:
        buffer = 0
        if value is not None:
            buffer = len(buffers)
            buffers.append(Buffer(data=np.ascontiguousarray(value, np.float32).view(np.uint8).reshape(-1)))
        tensors.append(Tensor(shape=list(shape), type=0, buffer=buffer, is_variable=variable,
                              name=name or f"t{len(tensors)}"))
        return len(tensors) - 1

    def w(rows, cols):
        return add([rows, cols], rng.uniform(-1, 1, (rows, cols)) * np.sqrt(3.0 / (rows + cols)))

    x = add([1, steps, n_input], name="x")
    w_x = [w(n_cell, n_input) for _ in range(4)]
    w_h = [w(n_cell, n_output) for _ in range(4)]
    bias = [add([n_cell], rng.uniform(-0.1, 0.1, n_cell) + (1.0 if g == 1 else 0.0)) for g in range(4)]
    proj = w(n_output, n_cell) if n_output != n_cell else -1
    proj_b = add([n_output], np.zeros(n_output)) if n_output != n_cell else -1
    h = add([1, n_output], variable=True, name="h")
    c = add([1, n_cell], variable=True, name="c")
    y = add([1, steps, n_output], name="y")
    inputs = [x, *w_x, *w_h, -1, -1, -1, *bias, proj, proj_b, h, c, -1, -1, -1, -1]
    options = Options("UnidirectionalSequenceLSTMOptions", fused_activation_function=4, cell_clip=0.0,
                      proj_clip=0.0, time_major=False, asymmetric_quantize_inputs=False,
                      diagonal_recurrent_tensors=False)
    code = BUILTIN_CODES["UNIDIRECTIONAL_SEQUENCE_LSTM"]
    return save(ModelFile(
        operator_codes=[OperatorCode(deprecated_builtin_code=code, builtin_code=code, version=1)], buffers=buffers,
        subgraphs=[SubGraph(tensors=tensors, inputs=[x], outputs=[y], name="main",
                            operators=[Operator(opcode_index=0, inputs=inputs, outputs=[y],
                                                builtin_options=options)])]))


def model_of(form: str, steps: int, n_cell: int, n_output: int) -> bytes:
    content = float_lstm(steps, n_cell, n_output)
    if form == "float":
        return content
    if form == "hybrid":
        return quantize(content, mode="dynamic", progress=False)
    rng = np.random.default_rng(1)
    samples = [rng.uniform(-1, 1, (1, steps, N_INPUT)).astype(np.float32) for _ in range(8)]
    return quantize(content, samples, io="int8", progress=False)


def ms(result) -> str:
    return f"{result['median_ms']:.3f}" if isinstance(result, dict) else "—"


def ratio(ours, peer) -> str:
    if isinstance(ours, dict) and isinstance(peer, dict):
        return f"{ours['median_ms'] / peer['median_ms']:.2f}"
    return "—"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--forms", nargs="+", default=["float", "int8", "hybrid"], choices=["float", "int8", "hybrid"])
    parser.add_argument("--profile", action="store_true", help="also print rillet's per-op times")
    args = parser.parse_args()

    print(f"UNIDIRECTIONAL_SEQUENCE_LSTM, batch 1, {args.steps} steps, {N_INPUT} inputs, {args.threads} thread(s), "
          f"median of {args.runs} invokes; rillet's kernel path: {kernel_path()}; ratio > 1: rillet is slower.\n")
    print("| form | cells | outputs | rillet ms | LiteRT ms | LiteRT builtin ms | rillet/LiteRT | rillet/builtin |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for form in args.forms:
            for n_cell, n_output in SHAPES:
                path = Path(tmp) / f"lstm_{form}_{n_cell}_{n_output}.tflite"
                path.write_bytes(model_of(form, args.steps, n_cell, n_output))
                r = bench_model(str(path), args.threads, args.runs)
                ours, litert, builtin = r.get("rillet"), r.get("litert_xnnpack"), r.get("litert_builtin")
                print(f"| {form} | {n_cell} | {n_output} | {ms(ours)} | {ms(litert)} | {ms(builtin)} "
                      f"| {ratio(ours, litert)} | {ratio(ours, builtin)} |", flush=True)
                for name, v in r.items():
                    if isinstance(v, str):
                        print(f"  {name}: {v}")
        if args.profile:
            from rillet.runtime import Interpreter

            for form in args.forms:
                path = Path(tmp) / f"lstm_{form}_256_256.tflite"
                it = Interpreter(model_path=str(path), num_threads=args.threads)
                it.allocate_tensors()
                detail = it.get_input_details()[0]
                rng = np.random.default_rng(0)
                x = (rng.uniform(-1, 1, detail["shape"]) if detail["dtype"] == np.float32
                     else rng.integers(-128, 128, detail["shape"]))
                it.set_tensor(detail["index"], x.astype(detail["dtype"]))
                rows = it.profile(runs=args.runs)
                print(f"\n{form} 256 cells, rillet per op: " + ", ".join(
                    f"{r['op']} {r['seconds'] * 1e3:.3f} ms" for r in rows if not r["folded"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
