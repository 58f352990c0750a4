"""Guest instructions one inference executes on each Arm kernel path, counted under qemu-user: a proxy for the
NEON kernels' effect where time under emulation means nothing (not a speed: a Pi's cycles per instruction
differ between scalar and vector code). On a real Pi, bench_models.py measures time against LiteRT.

Builds the library (build_config's sources for the architecture) into native/tests/model_isa_run.c for
aarch64 and armv7 with Debian's cross compilers, and bench/qemu_insn_count.c as a qemu plugin, then runs each
reference model with 1 and with 3 invokes on each path: the difference over 2 is one invoke's instructions
(loading, packing and planning cancel out). Prints counts and each path's ratio to scalar on the same CPU.

    python bench/arm_instruction_count.py [model names ...]
needs gcc, gcc-aarch64-linux-gnu, gcc-arm-linux-gnueabihf and qemu-user (.ci/run installs them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from rillet.converter.format.view import ModelView

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "native"))
import build_config  # native/'s build description, a plain file

MODELS = ROOT / "tests" / "data" / "models"
DEFAULT_MODELS = ["mobilenet_v2_035_96_int8", "mobilenet_v2_035_96_f32", "cnn_small_int8", "cnn_small_f32"]
# (arch, compiler, qemu, -cpu, paths): the Pi 5's core has dot products; armv7 runs as on a 32-bit Pi OS.
TARGETS = [("aarch64", "aarch64-linux-gnu-gcc", "qemu-aarch64", "cortex-a76", ("scalar", "neon", "neondot")),
           ("armv7l", "arm-linux-gnueabihf-gcc", "qemu-arm", "cortex-a15", ("scalar", "neon"))]


def build_runner(arch: str, compiler: str, out: Path) -> Path:
    includes = [f"-I{d}" for d in build_config.INCLUDE_DIRS]
    pairs = [*build_config.sources_and_flags(arch), (str(ROOT / "native" / "tests" / "model_isa_run.c"), [])]

    def one(pair: tuple[str, list[str]]) -> str:
        source, flags = pair
        obj = out / (Path(source).name + ".o")
        subprocess.run([compiler, *build_config.WARNING_FLAGS, *build_config.OPTIMIZE_FLAGS, *flags, *includes,
                        "-c", source, "-o", str(obj)], check=True)
        return str(obj)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        objects = list(pool.map(one, pairs))
    exe = out / "model_isa_run"
    subprocess.run([compiler, "-static", "-o", str(exe), *objects, "-lm", "-lpthread"], check=True)
    return exe


def instructions(qemu: str, cpu: str, plugin: Path, runner: Path, model: Path, input_tensor: int, feed: Path,
                 path: str, invokes: int, out: Path) -> int:
    done = subprocess.run([qemu, "-cpu", cpu, "-plugin", str(plugin), "-d", "plugin", str(runner), str(model),
                           str(input_tensor), str(feed), str(out), str(invokes)], capture_output=True, text=True,
                          env={**os.environ, "RILLET_ISA": path}, check=False)
    counted = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("insns ")]
    if done.returncode != 0 or not counted or f"isa {path}" not in done.stdout:
        sys.exit(f"{model.name} on {path}: {done.stdout}{done.stderr}")
    return int(counted[0].split()[1])


def main(names: list[str]) -> None:
    needed = ["gcc", *(t[1] for t in TARGETS), *(t[2] for t in TARGETS)]
    missing = [tool for tool in needed if shutil.which(tool) is None]
    if missing:
        sys.exit(f"needs {', '.join(missing)}")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        plugin = tmp / "qemu_insn_count.so"
        subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(plugin), str(ROOT / "bench" / "qemu_insn_count.c")],
                       check=True)
        print("instructions per invoke (millions), counted under qemu-user; ratio to scalar on the same CPU")
        for arch, compiler, qemu, cpu, paths in TARGETS:
            (tmp / arch).mkdir()
            runner = build_runner(arch, compiler, tmp / arch)
            for name in names or DEFAULT_MODELS:
                model = MODELS / f"{name}.tflite"
                input_tensor = int(ModelView(model.read_bytes()).subgraphs[0].inputs[0])
                feed = tmp / "input.bin"
                feed.write_bytes(np.ascontiguousarray(np.load(MODELS / f"{name}.npz")["x"]).tobytes())
                per_invoke = {}
                for path in paths:
                    counts = [instructions(qemu, cpu, plugin, runner, model, input_tensor, feed, path, n, tmp)
                              for n in (1, 3)]
                    per_invoke[path] = (counts[1] - counts[0]) / 2
                cells = [f"{path} {per_invoke[path] / 1e6:7.2f}M (x{per_invoke['scalar'] / per_invoke[path]:.2f})"
                         for path in paths]
                print(f"{arch:8} {cpu:11} {name:26} " + "  ".join(cells))


if __name__ == "__main__":
    main(sys.argv[1:])
