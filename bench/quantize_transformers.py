"""`rillet quantize` against litert-torch's PT2E int8 on the transformers bench/make_transformers.py writes
(issue 28): each recipe's file and PT2E's run in LiteRT's default Interpreter on held-out inputs, SQNR of
their outputs against the float model's (LiteRT's too); rillet runs every file rillet wrote, and its int8
outputs are compared with LiteRT's bit for bit.

Calibration is PT2E's own: make_transformers.py calibrated on 8 inputs, standard normal from
numpy.random.default_rng(seed) for seeds 1..8; evaluation takes seeds 100.. (never calibrated on).

    python bench/quantize_transformers.py [--models /work/txmodels] [--only vit whisper t5] [--eval N]
        [--recipe NAME=FLAGS ...]   # e.g. --recipe "mse=--calibration mse"

Measured (LiteRT 2.3, 3 held-out inputs; rillet's files run in rillet too):

| file | ViT-tiny (4 blocks, 224) | Whisper-tiny encoder (1500 frames) |
|---|---|---|
| PT2E int8 (litert-torch) | 34.0 | 39.9 |
| rillet int8 default (quant/auto.py: the transformer's layer norms, softmax, GELU, residual stream and stem float, mse) | 38.9 | 40.0 |
| rillet int8 --no-auto (every op int8, minmax: the default before) | 26.7 | 31.7 |
| rillet int8 --calibration mse | 27.8 | 32.9 |
| rillet int8, the flags of TRANSFORMER_INT8 | 38.9 | 40.0 |
| rillet int8 --min-sqnr 35 --calibration mse | 35.9 | (not run: an hour here) |
| rillet int16x8 | 41.4 | 45.0 |

The default and --no-auto rows: two runs (2026-11-28, a loaded 2-core machine) with the same results, PT2E
33.97 / 39.91 in the same run, default 38.86 / 40.03, --no-auto 26.73 / 31.72, rillet's outputs LiteRT's bit for
bit in all four files. Quantization time, second run (histograms without a sort, mse's candidates in one numpy
pass): default 8 s / 152 s (mse), --no-auto 2 s / 52 s (first run, before: 21 s / 534 s and 4 s / 86 s).
T5 encoder (bench/make_more_transformers.py's t5_encoder_tiny, token inputs; `--only t5`): litert-torch's PT2E
cannot quantize it (histogram_cpu on its int64 position buckets), and rillet's quantizer refused it until the
ops that read constants alone (the relative position buckets: ABS, CAST, LOG, MULs, CAST back, the bias table's
EMBEDDING_LOOKUP) stayed float (quant/rewrite.py constant_ops). 8 held-out inputs, LiteRT 2.3 (2026-11-28): int8
default 33.0 dB, --no-auto 30.0, int16x8 40.2; rillet's outputs LiteRT's bit for bit in each.
Tried on the Whisper-sized encoder and left out: the P.V BATCH_MATMULs float too, 40.01 dB; every
BATCH_MATMUL float, 40.02 (the int8 error is in the FULLY_CONNECTEDs). On ViT: minmax ranges 37.61,
percentile 38.64, mse 38.86.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import numpy as np

MODELS = {"vit": "vit_tiny", "whisper": "whisper_tiny_encoder", "t5": "more/t5_encoder_tiny"}
# Token inputs: the vocabulary bench/make_more_transformers.py's token_input draws from (and calibrated on)
VOCABULARY = {"t5": 1000}
CALIBRATION_SEEDS = range(1, 9)  # make_transformers.py's float_and_int8: make_input(1 + i), 8 samples
EVAL_SEED = 100
# PT2E's split: the residual stream, layer norms and softmax float, int8 around the matrix products (README)
TRANSFORMER_INT8 = ("--calibration mse --keep-float ADD --keep-float SUB --keep-float MUL --keep-float MEAN "
                    "--keep-float SQUARED_DIFFERENCE --keep-float RSQRT --keep-float SOFTMAX "
                    "--keep-float GELU --keep-float CONV_2D")
DEFAULT_RECIPES = {
    "int8 default": "",
    "int8 --no-auto (the default before)": "--no-auto",
    "int8 transformer flags (README)": TRANSFORMER_INT8,
    "int16x8": "--mode int16x8",
    "int16x8 (LiteRT's int16 ops)": "litert-int16x8",  # the same file where rillet runs every int16 op
}


def sqnr_db(reference: list[np.ndarray], approx: list[np.ndarray]) -> float:
    f = np.concatenate([r.reshape(-1).astype(np.float64) for r in reference])
    q = np.concatenate([a.reshape(-1).astype(np.float64) for a in approx])
    noise = float(np.sum((f - q) ** 2))
    return float("inf") if noise == 0 else 10 * float(np.log10(np.sum(f ** 2) / noise))


def run(interpreter, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The first output for each input (float; an integer output dequantized), in one interpreter."""
    interpreter.allocate_tensors()
    i, o = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    found = []
    for x in inputs:
        if i["dtype"] in (np.int8, np.int16):  # a quantized input (PT2E's ViT): quantized with its parameters
            scale, zero_point = i["quantization"]
            info = np.iinfo(i["dtype"])
            x = np.clip(np.round(x / scale) + zero_point, info.min, info.max).astype(i["dtype"])
        interpreter.set_tensor(i["index"], x)
        interpreter.invoke()
        found.append(np.array(interpreter.get_tensor(o["index"])))
    return found


def as_float(values: list[np.ndarray], interpreter) -> list[np.ndarray]:
    detail = interpreter.get_output_details()[0]
    if detail["dtype"] == np.float32:
        return values
    scale, zero_point = detail["quantization"]
    return [(v.astype(np.float64) - zero_point) * scale for v in values]


def quantize(float_path: Path, calib: Path, out: Path, flags: str) -> tuple[float, str]:
    from rillet.cli import main as rillet_main

    start = time.perf_counter()
    if flags == "litert-int16x8":  # the 16x8 file over every op LiteRT runs int16 (rillet.quant's API only)
        from rillet.quant import quantize as rillet_quantize
        from rillet.quant.rewrite import INT16_OPS

        data = np.load(calib)
        out.write_bytes(rillet_quantize(str(float_path), dict(data), mode="int16x8", progress=False,
                                        int16_ops=INT16_OPS))
        return time.perf_counter() - start, ""
    argv = ["quantize", str(float_path), "--calib", str(calib), "-o", str(out), "--quiet",
            *shlex.split(flags)]
    code = rillet_main(argv)
    if code:
        raise RuntimeError(f"rillet quantize {' '.join(argv[1:])} exited {code}")
    return time.perf_counter() - start, ""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="/work/txmodels", type=Path)
    parser.add_argument("--only", nargs="*", choices=sorted(MODELS), default=sorted(MODELS, reverse=True))
    parser.add_argument("--eval", type=int, default=3, help="held-out inputs to measure on")
    parser.add_argument("--recipe", action="append", default=[], metavar="NAME=FLAGS")
    parser.add_argument("--work", type=Path, default=Path("/tmp/quantize_transformers"))
    args = parser.parse_args(argv)
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    recipes = dict(r.split("=", 1) for r in args.recipe) if args.recipe else DEFAULT_RECIPES
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    for key in args.only:
        stem = MODELS[key]
        float_path, pt2e_path = args.models / f"{stem}_f32.tflite", args.models / f"{stem}_int8.tflite"
        probe = LiteRT(model_path=str(float_path))
        detail = probe.get_input_details()[0]
        shape = tuple(detail["shape"])

        def make_input(seed: int) -> np.ndarray:
            rng = np.random.default_rng(seed)
            if key in VOCABULARY:  # token ids, as make_more_transformers.py's token_input
                return rng.integers(0, VOCABULARY[key], shape).astype(detail["dtype"])
            return rng.standard_normal(shape).astype(np.float32)

        calib = args.work / f"{Path(stem).name}_calib.npz"
        np.savez(calib, **{detail["name"]: np.stack([make_input(s) for s in CALIBRATION_SEEDS])})
        inputs = [make_input(EVAL_SEED + k) for k in range(args.eval)]
        reference = run(LiteRT(model_path=str(float_path)), inputs)
        if pt2e_path.exists():
            pt2e = LiteRT(model_path=str(pt2e_path))
            rows.append((stem, "PT2E int8 (litert-torch)", sqnr_db(reference, as_float(run(pt2e, inputs), pt2e)),
                         "", ""))
        else:  # T5: PT2E's histogram observer fails on its int64 position buckets (histogram_cpu on Long)
            rows.append((stem, "PT2E int8 (litert-torch)", float("nan"), "", "no file: PT2E cannot quantize it"))
        print(rows[-1], flush=True)
        for name, flags in recipes.items():
            out = args.work / f"{Path(stem).name}_{name.replace(' ', '_').replace('-', '')}.tflite"
            try:
                seconds, _ = quantize(float_path, calib, out, flags)
            except Exception as e:  # noqa: BLE001 - what stops the quantizer is the row's point
                rows.append((stem, f"rillet {name}", float("nan"), "", f"{type(e).__name__}: {e}"[:200]))
                print(rows[-1], flush=True)
                continue
            theirs_it = LiteRT(model_path=str(out))
            theirs = run(theirs_it, inputs)
            db = sqnr_db(reference, as_float(theirs, theirs_it))
            try:
                ours = run(Interpreter(model_path=str(out)), inputs)
                same = sum(int(np.count_nonzero(a != b)) for a, b in zip(ours, theirs))
                exact = "bit-exact" if same == 0 else f"{same} of {sum(t.size for t in theirs)} differ"
                if theirs[0].dtype == np.float32 and same:
                    worst = max(float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30))
                                for a, b in zip(ours, theirs))
                    exact = f"float out, {worst:.2g} of max |y|"
            except Exception as e:  # noqa: BLE001
                exact = f"rillet refuses: {type(e).__name__}: {str(e)[:120]}"
            rows.append((stem, f"rillet {name}", db, exact, f"{seconds:.0f} s"))
            print(rows[-1], flush=True)
    print(f"\nSQNR in LiteRT against the float model, {args.eval} held-out inputs, calibration on PT2E's 8\n")
    print("| model | file | SQNR dB | rillet vs LiteRT | quantize time |")
    print("|---|---|---|---|---|")
    for stem, name, db, exact, note in rows:
        print(f"| {stem} | {name} | {db:.1f} | {exact} | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
