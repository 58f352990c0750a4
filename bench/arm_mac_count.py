"""Per reference model: how many multiply-accumulates run in the NEON micro-kernels on a Pi, and how many in
scalar code.

Instruction-level speed cannot be measured under qemu, so this counts work instead. Each op's MACs come from
its shapes as the planner prepared them (CONV_2D: output elements x filter taps x input channels;
DEPTHWISE_CONV_2D: output elements x taps; FULLY_CONNECTED: output elements x depth; BATCH_MATMUL:
output elements x k). An op goes to a micro-kernel (float32 GEMM/IGEMM/depthwise; int8 with per-channel
weights) under the same rules the drivers use (native/ops/conv_gemm.c, dwconv_driver.c): every such op runs
on NEON on aarch64 and armv7 (int8 GEMM/IGEMM with sdot on a Pi 5, int8 depthwise without: it has no 4-byte
sums), and on scalar C on a Pi Zero (armv6). Everything else (hybrid int8-weight ops, a depth multiplier
above 1, constants folded at prepare) runs the scalar reference.

The rules are checked, not trusted: on the scalar path every micro-kernel op packs its weights into panels of
a known size and no other op packs anything, so the packed bytes this script predicts must equal what the
library reports (Interpreter.memory_report); the script stops if they differ.

    python bench/arm_mac_count.py [model.tflite ...]   (default: the reference models in tests/data/models)
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ["RILLET_ISA"] = "scalar"  # the scalar tiles below; the split of ops is the same on every path

import numpy as np

from rillet.runtime import Interpreter

MODELS = Path(__file__).resolve().parents[1] / "tests" / "data" / "models"
FLOAT32, INT8 = np.float32, np.int8
# The scalar configs' tiles (f32_configs.c, qs8_configs.c): GEMM nr 4 (int8 kr 1), depthwise channel tile 4.
NR, CT = 4, 4
FC_ROWDOT_MAX_ROWS = 2  # native/ops/fc_rowdot.h
POINTER = struct.calcsize("P")  # the int8 depthwise tap table's entries (dwconv_driver.c)


def round_up(n: int, tile: int) -> int:
    return (n + tile - 1) // tile * tile


def op_work(interp: Interpreter, op: dict, folded: bool) -> tuple[int, bool, int]:
    """(MACs, runs in a micro-kernel, packed bytes the scalar path's micro-kernel packs for it). An int8
    micro-kernel op other than DEPTHWISE_CONV_2D runs the sdot GEMM/IGEMM on a Pi 5."""
    tensors = {t["index"]: t for t in interp.get_tensor_details()}
    name, inputs, outputs = op["op_name"], op["inputs"], op["outputs"]
    if name not in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "BATCH_MATMUL"):
        return 0, False, 0
    x, w, out = tensors[inputs[0]], tensors[inputs[1]], tensors[outputs[0]]
    bias = tensors[inputs[2]] if len(inputs) > 2 and inputs[2] >= 0 else None
    out_elements = int(np.prod(out["shape"]))
    weights_constant = w["index"] not in {t for o in interp.get_ops_details() for t in o["outputs"]}
    float_op = x["dtype"] == w["dtype"] == out["dtype"] == FLOAT32
    # int8 throughout with per-channel filter scales (quantized_dimension over the output channels)
    int8_op = (x["dtype"] == w["dtype"] == out["dtype"] == INT8
               and len(w["quantization_parameters"]["scales"]) > 1)
    if name == "BATCH_MATMUL":
        k = int(x["shape"][-1])
        one_product = int(np.prod(out["shape"][:-2])) == 1
        return out_elements * k, float_op and one_product and not folded, 0
    if name == "DEPTHWISE_CONV_2D":
        taps, channels = int(w["shape"][1] * w["shape"][2]), int(w["shape"][3])
        depth_one = channels == int(x["shape"][3])
        eligible = (float_op or int8_op) and depth_one and weights_constant and not folded
        # int8 reads its weights in place: a bias and a scale per channel, and a pointer per tap to find them
        packed = (round_up(channels, CT) * (1 + taps) * 4 if float_op
                  else round_up(channels, CT) * (4 + 4) + taps * POINTER) if eligible else 0
        return out_elements * taps, eligible, packed
    n, depth = int(w["shape"][0]), int(np.prod(w["shape"][1:]))  # [n][kh][kw][c] or [units][depth]
    eligible = (float_op or int8_op) and weights_constant and (bias is None or bias["index"] not in
                {t for o in interp.get_ops_details() for t in o["outputs"]}) and not folded
    packed = (round_up(n, NR) * (1 + depth) * 4 if float_op else round_up(n, NR) * (4 + depth + 4)) if eligible else 0
    if name == "FULLY_CONNECTED" and out_elements // n <= FC_ROWDOT_MAX_ROWS:
        packed = 0  # a few rows run the row-dot kernels on the weights where the file holds them
    return out_elements * depth, eligible, packed


def count(path: Path) -> dict[str, int]:
    interp = Interpreter(model_path=str(path))
    interp.allocate_tensors()
    folded = {row["index"]: row["folded"] for row in interp.profile()}
    total = kernel = dot = predicted_packed = 0
    for op in interp.get_ops_details():
        macs, in_kernel, packed = op_work(interp, op, folded[op["index"]])
        total += macs
        kernel += macs if in_kernel else 0
        int8_gemm = op["op_name"] != "DEPTHWISE_CONV_2D" and op["operand_types"][0] is np.int8
        dot += macs if in_kernel and int8_gemm else 0
        predicted_packed += packed
    reported = interp.memory_report()["packed_weight_bytes"]
    if reported != predicted_packed:
        sys.exit(f"{path.name}: the library packed {reported} bytes, this script's rules predict {predicted_packed}: "
                 "they no longer match the drivers; fix op_work before trusting the counts")
    return {"total": total, "kernel": kernel, "dot": dot}


def main(paths: list[str]) -> None:
    files = [Path(p) for p in paths] or sorted(p for p in MODELS.glob("*.tflite") if p.stem != "train_mlp")
    print(f"{'model':26} {'MACs':>11} {'NEON (Pi 2-5)':>14} {'of which sdot (Pi 5)':>21} {'scalar':>8} "
          f"{'NEON share':>10}  Pi Zero (armv6)")
    for path in files:
        c = count(path)
        share = c["kernel"] / c["total"] if c["total"] else 0.0
        print(f"{path.stem:26} {c['total']:>11,} {c['kernel']:>14,} {c['dot']:>21,} {c['total'] - c['kernel']:>8,} "
              f"{share:>10.1%}  all scalar")


if __name__ == "__main__":
    main(sys.argv[1:])
