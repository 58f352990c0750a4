"""Guest instructions per invoke of each op type of an int8 model, rillet against LiteRT (+XNNPACK), counted
under qemu-aarch64 on a chosen -cpu: the loop for closing rillet's Arm gap op by op, where time under
emulation means nothing and a whole-model count does not say which op to work on.

Each op type's ops are cut from the model into one file (every op with its own inputs as graph inputs, its
weights as constants, its quantization as in the model), and both runtimes run it in the Debian arm64 root
(tools/arm_root.sh) under bench/qemu_insn_count.c, as bench/bench_start_instructions.py does a start: a Python
with -S, rillet laid out as a wheel installs it around an aarch64 librillet.so built here (incrementally, in
build/arm64/), LiteRT from its aarch64 wheel, one CPU faked in a private mount for LiteRT's cpuinfo. Each
runtime runs 1 and 1+K invokes: the difference over K is one invoke (loading and preparing cancel out).
Both runtimes get the same inputs and their outputs must agree bit for bit (int8), or the line says so.

    python bench/arm_op_instructions.py MODEL.tflite [--cpu cortex-a76] [--ops MUL,HARD_SWISH] [--each]
        [--litert-arm-wheel ai_edge_litert-2.3.0-cp311-cp311-manylinux_2_27_aarch64.whl] [--isa neondot]

Needs qemu-user, aarch64-linux-gnu-gcc, gcc, unshare (root) and LiteRT's aarch64 wheel (`pip download --no-deps
--only-binary=:all: --platform manylinux_2_27_aarch64 --python-version 3.11 --implementation cp --abi cp311
ai-edge-litert==2.3.0`).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import compileall
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from rillet.converter.format import Buffer, ModelFile, OperatorCode, SubGraph, load, save
from rillet.converter.format.model import builtin_name

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "native"))
sys.path.insert(0, str(ROOT / "bench"))
import build_ffi  # native/'s build, a plain file
from bench_start_instructions import _quote, lay_out_rillet

INT8 = 9
# The guest's program: feed every input the same seeded values, invoke n times, save the outputs.
GUEST = """
import sys
import numpy as np
runtime, model, invokes, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
if runtime == "rillet":
    from rillet.runtime import Interpreter
else:
    from ai_edge_litert.interpreter import Interpreter
it = Interpreter(model_path=model, num_threads=1)
it.allocate_tensors()
rng = np.random.default_rng(7)
for d in it.get_input_details():
    it.set_tensor(d["index"], rng.integers(-128, 128, size=d["shape"]).astype(d["dtype"]))
for _ in range(invokes):
    it.invoke()
np.savez(out, *[it.get_tensor(d["index"]) for d in it.get_output_details()])
"""


def cut(model: ModelFile, op_indices: list[int]) -> bytes:
    """A file holding only the given operators of subgraph 0: their constant inputs stay constants, every
    other input becomes a graph input and every output a graph output."""
    sg = model.subgraphs[0]
    codes: list[OperatorCode] = []
    buffers = [Buffer()]
    tensors, remap = [], {}
    inputs, outputs, operators = [], [], []

    def tensor(index: int, is_output: bool) -> int:
        if index < 0:
            return index
        if index not in remap:
            t = sg.tensors[index]
            data = model.buffers[t.buffer].data if t.buffer else None
            constant = data is not None and len(data) > 0 and not is_output
            buffer = 0
            if constant:
                buffers.append(Buffer(data=data))
                buffer = len(buffers) - 1
            tensors.append(dataclasses.replace(t, buffer=buffer))
            remap[index] = len(tensors) - 1
            if not constant:
                (outputs if is_output else inputs).append(remap[index])
        return remap[index]

    for i in op_indices:
        op = sg.operators[i]
        code = model.operator_codes[op.opcode_index]
        if code not in codes:
            codes.append(code)
        new_inputs = [tensor(t, False) for t in op.inputs]
        new_outputs = [tensor(t, True) for t in op.outputs]
        operators.append(dataclasses.replace(op, opcode_index=codes.index(code), inputs=new_inputs,
                                             outputs=new_outputs))
    return bytes(save(ModelFile(version=3, operator_codes=codes, buffers=buffers,
                                subgraphs=[SubGraph(tensors=tensors, inputs=inputs, outputs=outputs,
                                                    operators=operators, name="main")])))


def is_constant(model: ModelFile, tensor) -> bool:
    data = model.buffers[tensor.buffer].data if tensor.buffer else None
    return data is not None and len(data) > 0


def int8_ops(model: ModelFile) -> dict[str, list[int]]:
    """Op type -> indices of the ops whose every non-constant input is an int8 activation (not the shape
    arithmetic, nor a RESHAPE whose shape is computed)."""
    sg = model.subgraphs[0]
    groups: dict[str, list[int]] = collections.defaultdict(list)
    for i, op in enumerate(sg.operators):
        activations = [sg.tensors[t] for t in op.inputs if t >= 0 and not is_constant(model, sg.tensors[t])]
        if activations and all(t.type == INT8 for t in activations):
            groups[builtin_name(model.operator_codes[op.opcode_index].builtin_code)].append(i)
    return groups


def build_arm_library() -> Path:
    """librillet.so for aarch64 from this checkout, compiled incrementally into build/arm64/."""
    out = ROOT / "build" / "arm64"
    build_ffi.build_library(str(out / "librillet.so"), str(out / "obj"), compiler=["aarch64-linux-gnu-gcc"],
                            arch="aarch64")
    return out


class Guest:
    def __init__(self, tmp: Path, arm_root: Path, cpu: str, litert_wheel: Path, isa: str | None) -> None:
        self.tmp, self.arm_root, self.cpu, self.isa = tmp, arm_root, cpu, isa
        native = build_arm_library()
        shutil.copy2(ROOT / "native" / "_librillet.py", native / "_librillet.py")  # ABI mode: any arch
        layout = lay_out_rillet(tmp / "arm", native)
        import flatbuffers
        shutil.copytree(Path(flatbuffers.__file__).parent, layout / "flatbuffers")
        litert = tmp / "arm_litert"
        zipfile.ZipFile(litert_wheel).extractall(litert)
        compileall.compile_dir(str(layout), quiet=1, workers=1)
        compileall.compile_dir(str(litert), quiet=1, workers=1)
        self.plugin = tmp / "qemu_insn_count.so"
        subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(self.plugin),
                        str(ROOT / "bench" / "qemu_insn_count.c")], check=True)
        self.env = {**os.environ, "PYTHONHASHSEED": "0",
                    "PYTHONPATH": os.pathsep.join([str(layout), str(litert), "/usr/lib/python3/dist-packages"])}
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        if isa:
            self.env["RILLET_ISA"] = isa

    def count(self, runtime: str, model: Path, invokes: int, out: Path) -> int:
        fake_cpu = ("mount -t tmpfs none /sys/devices/system/cpu && mkdir -p /sys/devices/system/cpu/cpu0 && "
                    "for f in possible present online; do echo 0 > /sys/devices/system/cpu/$f; done && ")
        libraries = "LD_LIBRARY_PATH=/usr/lib/aarch64-linux-gnu/blas:/usr/lib/aarch64-linux-gnu/lapack"
        extra = f"-E RILLET_ISA={self.isa} " if self.isa else ""
        command = " ".join(["exec", "qemu-aarch64", "-L", str(self.arm_root), "-E", libraries, extra, "-cpu",
                            self.cpu, "-plugin", str(self.plugin), "-d", "plugin",
                            str(self.arm_root / "usr/bin/python3"), "-S", "-c", _quote(GUEST),
                            *map(_quote, [runtime, str(model), str(invokes), str(out)])])
        done = subprocess.run(["unshare", "-m", "sh", "-c", fake_cpu + command], capture_output=True, text=True,
                              env=self.env, cwd=self.tmp, check=False)
        counted = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("insns ")]
        if done.returncode != 0 or not counted:
            sys.exit(f"qemu {runtime} {model.name}:\n{done.stdout}{done.stderr[-3000:]}")
        return int(counted[-1].split()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--cpu", default="cortex-a76")
    parser.add_argument("--ops", default="", help="comma-separated op types (default: every int8 one)")
    parser.add_argument("--each", action="store_true", help="one line per op, not per op type")
    parser.add_argument("--extra-invokes", type=int, default=2)
    parser.add_argument("--isa", help="RILLET_ISA for rillet (default: what the -cpu offers)")
    parser.add_argument("--arm-root", type=Path, default=Path("/var/cache/rillet-arm/arm64-bookworm"))
    parser.add_argument("--litert-arm-wheel", type=Path,
                        default=Path("/tmp/armstart_arm/ai_edge_litert-2.3.0-cp311-cp311-manylinux_2_27_aarch64.whl"))
    args = parser.parse_args()
    model = load(args.model.read_bytes())
    groups = int8_ops(model)
    wanted = [o for o in args.ops.split(",") if o] or sorted(groups)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        guest = Guest(tmp, args.arm_root, args.cpu, args.litert_arm_wheel, args.isa)
        jobs = []
        for name in wanted:
            indices = groups.get(name, [])
            for part in ([[i] for i in indices] if args.each else [indices] if indices else []):
                label = f"{name}#{part[0]}" if args.each else f"{name} x{len(part)}"
                path = tmp / f"{label.replace(' ', '_').replace('#', '_')}.tflite"
                path.write_bytes(cut(model, part))
                jobs.append((label, path))
        print(f"{args.model.name}, -cpu {args.cpu}: guest instructions per invoke (thousands), "
              f"1 thread; rillet ISA {args.isa or 'best'}")
        print(f"{'ops':24} {'rillet':>10} {'LiteRT':>10} {'ratio':>7}  outputs")
        totals = [0.0, 0.0]
        for label, path in jobs:
            def one(runtime: str, n: int) -> int:
                return guest.count(runtime, path, n, tmp / f"{path.stem}_{runtime}_{n}.npz")
            runs = [(r, n) for r in ("rillet", "litert") for n in (1, 1 + args.extra_invokes)]
            with ThreadPoolExecutor(max_workers=2) as pool:
                counts = dict(zip(runs, pool.map(lambda rn: one(*rn), runs)))
            per = [(counts[(r, 1 + args.extra_invokes)] - counts[(r, 1)]) / args.extra_invokes
                   for r in ("rillet", "litert")]
            a, b = (np.load(tmp / f"{path.stem}_{r}_1.npz") for r in ("rillet", "litert"))
            same = all(np.array_equal(a[k], b[k]) for k in a.files)
            diff = "bit-exact" if same else "DIFFER: max |d| " + str(max(
                int(np.abs(a[k].astype(np.int64) - b[k].astype(np.int64)).max()) for k in a.files))
            totals[0] += per[0]
            totals[1] += per[1]
            print(f"{label:24} {per[0] / 1e3:10.1f} {per[1] / 1e3:10.1f} {per[0] / per[1]:6.2f}x  {diff}",
                  flush=True)
        print(f"{'sum':24} {totals[0] / 1e3:10.1f} {totals[1] / 1e3:10.1f} {totals[0] / totals[1]:6.2f}x")


if __name__ == "__main__":
    main()
