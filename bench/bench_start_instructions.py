"""A start's instructions, rillet against LiteRT: a fresh Python that imports the runtime, loads a model,
readies it and runs one invoke (1 thread; LiteRT with XNNPACK, its default), counted whole: on x86 with
callgrind and, where the Debian arm64 root of tools/arm_root.sh is, in an aarch64 guest under qemu-user with
bench/qemu_insn_count.c. Instructions, not time: they repeat run to run where a start's time on a shared
machine does not, and under qemu time means nothing (nor are a Pi's cycles per instruction the same for both:
an estimate, not a measurement).

The packages are laid out as a wheel installs them (a copy of the checkout's Python, the built library) and
their bytecode compiled first, as pip leaves it: without it every module would be compiled at every start.
Python runs with -S (no site: an editable install's import hook would otherwise be counted) and the numpy,
cffi and LiteRT of its own environment on PYTHONPATH. Prints per model, per runtime, the whole start and its
parts past `import numpy` (the import, then load + allocate + first invoke), and rillet's ratios to LiteRT's.

    python bench/bench_start_instructions.py [--models DIR] [model names ...] [--repeats 3] [--no-x86]
        [--arm-root /var/cache/rillet-arm/arm64-bookworm --arm-wheel rillet-...-linux_aarch64.whl
         --litert-arm-wheel ai_edge_litert-...-manylinux_2_27_aarch64.whl --cpu cortex-a72]

Needs valgrind; the aarch64 guest needs qemu-user, gcc, unshare (root) and the two wheels:
`tools/build_wheels.py --arch aarch64`, and `pip download --no-deps --only-binary=:all: --platform
manylinux_2_27_aarch64 --python-version 3.11 --implementation cp --abi cp311 ai-edge-litert==2.3.0`.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "tests" / "data" / "models"
DEFAULT_MODELS = ["mobilenet_v2_035_96_int8", "mobilenet_v2_035_96_f32", "cnn_small_int8", "cnn_small_f32"]
# The wheel's layout: rillet.<sub> is the checkout's folder <sub> (pyproject.toml's package-dir).
SUBPACKAGES = {"converter": "converter", "native": "native", "runtime": "runtime", "graph": "graph",
               "targets": "targets", "quant": "quant"}

# The guest's program. Stages: "numpy" stops after importing numpy, "import" after importing the runtime,
# "start" after the first invoke; the differences between them are the parts.
START = """
import sys
import numpy as np
runtime, stage, model, feed = sys.argv[1:5]
if stage != "numpy":
    if runtime == "rillet":
        from rillet.runtime import Interpreter
    else:
        from ai_edge_litert.interpreter import Interpreter
    if stage == "start":
        it = Interpreter(model_path=model, num_threads=1)
        it.allocate_tensors()
        d = it.get_input_details()[0]
        it.set_tensor(d["index"], np.fromfile(feed, dtype=d["dtype"]).reshape(d["shape"]))
        it.invoke()
        out = it.get_tensor(it.get_output_details()[0]["index"])
        print("output", out.dtype, out.shape, float(np.abs(out.astype(np.float64)).sum()))
"""


def lay_out_rillet(dest: Path, native_from: Path | None = None) -> Path:
    """The checkout's Python under dest/rillet as a wheel installs it; the built library and binding from
    native/ (or from `native_from`, an unpacked cross-built wheel's rillet/native). Bytecode compiled."""
    package = dest / "rillet"

    def python_only(src: Path, dst: Path) -> None:
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.c", "*.h", "*.o", "tests",
                                                                 "kernels", "ops", "*.in"))

    python_only(ROOT / "rillet", package)
    for sub, folder in SUBPACKAGES.items():
        python_only(ROOT / folder, package / sub)
    if native_from is not None:
        for stale in (package / "native").glob("*.so"):
            stale.unlink()
        for built in ("librillet.so", "_librillet.py"):
            shutil.copy2(native_from / built, package / "native" / built)
    compileall.compile_dir(str(dest), quiet=1, workers=1)
    return dest


def callgrind(python: list[str], env: dict[str, str], args: list[str], cwd: Path) -> int:
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *python, "-S",
                           "-c", START, *args], capture_output=True, text=True, env=env, cwd=cwd, check=False)
    counted = [line for line in done.stderr.splitlines() if "Collected :" in line]
    if done.returncode != 0 or not counted:
        sys.exit(f"callgrind {' '.join(args)}:\n{done.stdout}{done.stderr[-3000:]}")
    return int(counted[-1].split()[-1])


def qemu_count(arm_root: Path, cpu: str, plugin: Path, env: dict[str, str], args: list[str],
               cwd: Path) -> int:
    """Guest instructions of the start program under qemu-aarch64. The guest sees one CPU: LiteRT's cpuinfo
    reads /sys/devices/system/cpu, and the host's (many CPUs, no Arm fields) makes it crash, so the guest runs
    in a private mount namespace with a tmpfs there that says one CPU."""
    fake_cpu = ("mount -t tmpfs none /sys/devices/system/cpu && mkdir -p /sys/devices/system/cpu/cpu0 && "
                "for f in possible present online; do echo 0 > /sys/devices/system/cpu/$f; done && ")
    # Debian reaches BLAS through /etc/alternatives, an absolute link the host resolves: name the folders.
    libraries = "LD_LIBRARY_PATH=/usr/lib/aarch64-linux-gnu/blas:/usr/lib/aarch64-linux-gnu/lapack"
    command = " ".join(["exec", "qemu-aarch64", "-L", str(arm_root), "-E", libraries, "-cpu", cpu,
                        "-plugin", str(plugin), "-d", "plugin", str(arm_root / "usr/bin/python3"), "-S", "-c",
                        _quote(START),
                        *map(_quote, args)])
    done = subprocess.run(["unshare", "-m", "sh", "-c", fake_cpu + command], capture_output=True, text=True,
                          env=env, cwd=cwd, check=False)
    counted = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("insns ")]
    if done.returncode != 0 or not counted:
        sys.exit(f"qemu {' '.join(args)}:\n{done.stdout}{done.stderr[-3000:]}")
    return int(counted[-1].split()[1])


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def feed_file(tmp: Path, name: str, models: Path) -> Path:
    feed = tmp / f"{name}.bin"
    arrays = np.load(models / f"{name}.npz")
    # tests/data's files name the input x; bench/make_*.py's (/work/txmodels) name it <signature>/in/<name>
    key = "x" if "x" in arrays.files else next(k for k in arrays.files if "/in/" in k)
    feed.write_bytes(np.ascontiguousarray(arrays[key]).tobytes())
    return feed


def report(where: str, names: list[str], models: Path, tmp: Path, count, repeats: int) -> None:
    """count(runtime, stage, model, feed) -> instructions; medians over `repeats`, runtimes interleaved."""
    print(f"\n{where}: a start's instructions (millions), median of {repeats}; parts past `import numpy`")
    print(f"{'model':26} {'runtime':8} {'start':>8} {'import':>8} {'load+1st':>9}   "
          "rillet/LiteRT: start, import, load+1st")
    base = {r: statistics.median(count(r, "numpy", "-", "-") for _ in range(repeats))
            for r in ("rillet", "litert")}
    for name in names:
        model, feed = str(models / f"{name}.tflite"), str(feed_file(tmp, name, models))
        got: dict[str, dict[str, list[int]]] = {r: {"import": [], "start": []} for r in ("rillet", "litert")}
        for _ in range(repeats):
            for stage in ("import", "start"):
                for runtime in ("rillet", "litert"):
                    got[runtime][stage].append(count(runtime, stage, model, feed))
        cells = {}
        for runtime in ("rillet", "litert"):
            start, imported = (statistics.median(got[runtime][s]) for s in ("start", "import"))
            cells[runtime] = (start, imported - base[runtime], start - imported)
        ratios = "  ".join(f"{r:.2f}x" for r in (a / b for a, b in zip(cells["rillet"], cells["litert"])))
        for runtime in ("rillet", "litert"):
            start, imported, rest = (v / 1e6 for v in cells[runtime])
            print(f"{name:26} {runtime:8} {start:8.1f} {imported:8.1f} {rest:9.1f}"
                  + (f"   {ratios}" if runtime == "rillet" else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", default=DEFAULT_MODELS)
    parser.add_argument("--models", type=Path, default=MODELS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--arm-root", type=Path, default=Path("/var/cache/rillet-arm/arm64-bookworm"))
    parser.add_argument("--arm-wheel", type=Path)
    parser.add_argument("--litert-arm-wheel", type=Path)
    parser.add_argument("--cpu", default="cortex-a72")
    parser.add_argument("--no-x86", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if not args.no_x86:
            if shutil.which("valgrind") is None:
                sys.exit("needs valgrind")
            layout = lay_out_rillet(tmp / "x86")
            site = Path(np.__file__).resolve().parents[1]  # numpy's, cffi's and LiteRT's site-packages
            # OpenBLAS's worker threads (started by `import numpy`) spin for a while: counted, they made a
            # run's total vary by ~3M instructions; with one thread it repeats exactly, for both runtimes.
            env = {**os.environ, "PYTHONPATH": f"{layout}{os.pathsep}{site}", "PYTHONHASHSEED": "0",
                   "OPENBLAS_NUM_THREADS": "1"}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            report("x86-64, callgrind", args.names, args.models, tmp,
                   lambda r, s, m, f: callgrind([sys.executable], env, [r, s, m, f], tmp), args.repeats)
        if args.arm_wheel and args.litert_arm_wheel and (args.arm_root / "usr/bin/python3").exists():
            for tool in ("qemu-aarch64", "gcc", "unshare"):
                if shutil.which(tool) is None:
                    sys.exit(f"the aarch64 guest needs {tool}")
            unpacked = tmp / "arm_wheel"
            zipfile.ZipFile(args.arm_wheel).extractall(unpacked)
            arm = lay_out_rillet(tmp / "arm", unpacked / "rillet" / "native")
            import flatbuffers  # rillet's one pure-Python dependency the root lacks, as pip would add it

            shutil.copytree(Path(flatbuffers.__file__).parent, arm / "flatbuffers")
            compileall.compile_dir(str(arm / "flatbuffers"), quiet=1, workers=1)
            litert = tmp / "arm_litert"
            zipfile.ZipFile(args.litert_arm_wheel).extractall(litert)
            compileall.compile_dir(str(litert), quiet=1, workers=1)
            plugin = tmp / "qemu_insn_count.so"
            subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(plugin), str(ROOT / "bench" /
                            "qemu_insn_count.c")], check=True)
            env = {**os.environ, "PYTHONHASHSEED": "0",
                   "PYTHONPATH": os.pathsep.join([str(arm), str(litert), "/usr/lib/python3/dist-packages"])}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            report(f"aarch64 guest ({args.cpu}), qemu-user", args.names, args.models, tmp,
                   lambda r, s, m, f: qemu_count(args.arm_root, args.cpu, plugin, env, [r, s, m, f], tmp),
                   args.repeats)
        elif args.arm_wheel or args.litert_arm_wheel:
            sys.exit(f"the aarch64 guest needs --arm-wheel, --litert-arm-wheel and a root at {args.arm_root}")


if __name__ == "__main__":
    main()
