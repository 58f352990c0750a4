"""`rillet.quant` on the real .tflite files bench/real_models.py fetches: each model quantized in int8 (random
calibration data), dynamic-range and float16 mode; each quantized file run in LiteRT's default Interpreter
and in rillet on the same random inputs. Prints one row per model and mode: whether it quantizes (or what
stops it), whether LiteRT and rillet run the result, how many int8-mode output values differ between them
(they must be equal: rillet's int8 kernels are LiteRT's arithmetic) or, for the float modes, the largest
difference scaled by the output's magnitude, and the SQNR of LiteRT's quantized output against the float
model's (random data: a coarse check that the quantized model still computes the same function).

Dynamic-range files give LiteRT's bits too (0 in the last column): each hybrid op quantizes its float input
on the fly, where one ulp upstream would move a value across a rounding step, so rillet's hybrid and float
kernels follow LiteRT's arithmetic exactly. Their distance from the float model is the scheme's own, the same
in LiteRT: on BirdNET (23 dB) nearly all of it comes from hybrid DEPTHWISE_CONV_2D, which quantizes its whole
input with one scale while each output channel reads only its own channel (its first depthwise alone gives
21 dB); --keep-float DEPTHWISE_CONV_2D gives 31 dB for 1.3% more bytes.

    python bench/real_quantize.py [--cache DIR] [--samples N] [--only SUBSTRING ...] [--markdown]
                                  [--keep-float-blockers]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_models import (  # the sibling script: the same packages, inputs and runner
    DEFAULT_CACHE,
    PACKAGES,
    fetch,
    fix_dynamic_inputs,
    random_inputs,
    run,
    scaled_difference,
)

MODES = ("int8", "dynamic", "float16")


def sqnr_db(reference: list[list[np.ndarray]], approx: list[list[np.ndarray]]) -> float:
    ref = np.concatenate([np.ravel(o).astype(np.float64) for outs in reference for o in outs])
    got = np.concatenate([np.ravel(o).astype(np.float64) for outs in approx for o in outs])
    noise = float(np.sum((ref - got) ** 2))
    return float("inf") if noise == 0 else 10 * float(np.log10(np.sum(ref ** 2) / noise))


def first_line(e: BaseException) -> str:
    return f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:150]}"


def quantize_and_compare(content: bytes, mode: str, samples: int, keep_blockers: bool) -> dict[str, Any]:
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.quant import quantize
    from rillet.runtime import Interpreter

    row: dict[str, Any] = {"mode": mode}
    rng = np.random.default_rng(0)
    probe = LiteRT(model_content=content)
    fix_dynamic_inputs(probe)
    probe.allocate_tensors()
    details = probe.get_input_details()
    calibration = [random_inputs(details, rng) for _ in range(samples)] if mode == "int8" else None
    feeds = [random_inputs(details, rng) for _ in range(3)]
    kept: list[str] = []
    while True:
        try:
            data = quantize(content, calibration, mode=mode, progress=False, keep_float=kept or None)
            break
        except Exception as e:  # noqa: BLE001 - what stops the quantizer is the row's point
            blocker = re.search(r"keep_float=\['([^']+)'\]", str(e))
            if not keep_blockers or blocker is None or blocker.group(1) in kept:
                row["note"] = first_line(e)
                return row
            kept.append(blocker.group(1))  # an op with no int8 rule: keep it float and try again
    if kept:
        row["note"] = "kept float: " + ", ".join(kept)
    row["bytes"] = (len(content), len(data))
    try:
        theirs = run(LiteRT(model_content=data), feeds)
    except Exception as e:  # noqa: BLE001
        row["note"] = "LiteRT refuses the quantized file: " + first_line(e)
        return row
    row["sqnr"] = sqnr_db(run(LiteRT(model_content=content), feeds), theirs)
    try:
        ours = run(Interpreter(model_content=data), feeds)
    except Exception as e:  # noqa: BLE001
        row["note"] = "rillet refuses the quantized file: " + first_line(e)
        return row
    if mode == "int8":
        differ = sum(int(np.count_nonzero(g != w)) for go, wo in zip(ours, theirs) for g, w in zip(go, wo))
        total = sum(w.size for wo in theirs for w in wo)
        row["diff"] = f"{differ} of {total} differ"
        row["exact"] = differ == 0
    else:
        row["diff"] = f"{scaled_difference(ours, theirs)[0]:.2g}"
    return row


def table(rows: list[tuple[str, dict[str, Any]]], markdown: bool) -> str:
    header = ("model", "mode", "bytes", "SQNR vs float (dB)", "rillet vs LiteRT", "note")
    lines = [header]
    for name, r in rows:
        size = f"{r['bytes'][0]:,} -> {r['bytes'][1]:,}" if "bytes" in r else ""
        sqnr = f"{r['sqnr']:.1f}" if "sqnr" in r else ""
        lines.append((name, r["mode"], size, sqnr, r.get("diff", ""), r.get("note", "")))
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(line) + " |" for line in lines[1:]]
        return "\n".join(out)
    widths = [max(len(line[k]) for line in lines) for k in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--samples", type=int, default=16, help="random calibration samples for int8")
    parser.add_argument("--only", nargs="*", default=[], help="models whose file name holds one of these")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--keep-float-blockers", action="store_true",
                        help="where int8 refuses an op, keep that op type float and quantize the rest")
    args = parser.parse_args(argv)
    rows = []
    for requirement, pattern in PACKAGES:
        try:
            paths = fetch(requirement, pattern, args.cache)
        except Exception as e:  # noqa: BLE001 - offline: say so and go on
            print(f"{requirement}: not fetched ({first_line(e)})", file=sys.stderr)
            continue
        for path in paths:
            if args.only and not any(s in path.name for s in args.only):
                continue
            content = path.read_bytes()
            for mode in MODES:
                try:
                    row = quantize_and_compare(content, mode, args.samples, args.keep_float_blockers)
                except Exception as e:  # noqa: BLE001 - LiteRT cannot run the float model itself
                    row = {"mode": mode, "note": "LiteRT cannot run the float model: " + first_line(e)}
                rows.append((path.name.removesuffix(".tflite"), row))
                print(f"{rows[-1][0]} {mode}: {row.get('diff', '')} {row.get('note', '')}", file=sys.stderr,
                      flush=True)
    print(table(rows, args.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
