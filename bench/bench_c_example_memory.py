"""Resident memory (max RSS) of one classification run: examples/c/classify.c (librillet linked statically, and
through librillet.so) against the same run through rillet's Python API, and LiteRT's Python API beside them; each
in its own fresh process started by GNU time (/usr/bin/time, Debian's `time`), which reads the kernel's
ru_maxrss; the median of a few runs.

    python bench/bench_c_example_memory.py [--model mobilenet_v2_035_96_int8] [--runs 5] [--invokes 10]

Prints each run's MiB and its ratio to the C example's. What a Pi Zero's 512 MB leaves for the app is the point:
the Python side pays for the interpreter, numpy and cffi before it loads a model.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import rillet.native

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "tests" / "data" / "models"
PACKAGE = Path(rillet.native.__file__).resolve().parent

PYTHON_RUN = """
import sys, numpy as np
from {module} import Interpreter
it = Interpreter(model_path=sys.argv[1])
it.allocate_tensors()
d = it.get_input_details()[0]
it.set_tensor(d["index"], np.fromfile(sys.argv[2], d["dtype"]).reshape(d["shape"]))
for _ in range(int(sys.argv[3])):
    it.invoke()
y = it.get_tensor(it.get_output_details()[0]["index"])
print(int(np.argmax(y)))
"""


def max_rss_mib(command: list[str]) -> tuple[float, str]:
    """Runs `command` in a fresh process started by GNU time; its peak resident set (MiB) and its stdout.

    Not wait4 on a child of this process: a child's ru_maxrss keeps the high-water mark of the copy of this
    Python it was forked from (exec records it), about 29 MiB, which would swallow the C example's few MiB. GNU
    time is a small C program, so what it forks starts from its own ~2 MiB, which the kernel then forgets at exec."""
    with tempfile.NamedTemporaryFile("r") as rss:
        done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name, *command], capture_output=True,
                              text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {done.stderr}")
        return int(rss.read().split()[-1]) / 1024, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="mobilenet_v2_035_96_int8")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--invokes", type=int, default=10)
    args = parser.parse_args()
    compiler = shutil.which("cc") or shutil.which("gcc")
    model = MODELS / f"{args.model}.tflite"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source = ROOT / "examples" / "c" / "classify.c"
        include = f"-I{PACKAGE / 'include'}"
        static, shared = folder / "classify", folder / "classify-shared"
        subprocess.run([compiler, "-std=c99", "-O2", include, str(source), str(PACKAGE / "lib" / "librillet.a"),
                        "-lm", "-lpthread", "-o", str(static)], check=True)
        subprocess.run([compiler, "-std=c99", "-O2", include, str(source), f"-L{PACKAGE}", "-lrillet",
                        f"-Wl,-rpath,{PACKAGE}", "-lm", "-lpthread", "-o", str(shared)], check=True)
        x = np.load(MODELS / f"{args.model}.npz")["x"]
        (folder / "x.bin").write_bytes(np.ascontiguousarray(x).tobytes())
        runs = {
            "C, librillet.a": [str(static), str(model), str(folder / "x.bin"), "--repeat", str(args.invokes)],
            "C, librillet.so": [str(shared), str(model), str(folder / "x.bin"), "--repeat", str(args.invokes)],
            "Python, rillet": [sys.executable, "-c", PYTHON_RUN.format(module="rillet.runtime"), str(model),
                               str(folder / "x.bin"), str(args.invokes)],
            "Python, LiteRT": [sys.executable, "-c", PYTHON_RUN.format(module="ai_edge_litert.interpreter"),
                               str(model), str(folder / "x.bin"), str(args.invokes)],
            "Python + numpy, no model": [sys.executable, "-c", "import numpy"],
        }
        samples: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.runs):  # interleaved, so a change in the machine's load touches every one alike
            for name, command in runs.items():
                try:
                    samples[name].append(max_rss_mib(command)[0])
                except (RuntimeError, OSError) as e:
                    print(f"{name}: {e}", file=sys.stderr)
        base = statistics.median(samples["C, librillet.a"])
        print(f"max RSS of one run of {args.model} ({args.invokes} invokes), median of {args.runs}:")
        for name, values in samples.items():
            if values:
                median = statistics.median(values)
                print(f"  {name:<26} {median:7.1f} MiB  {median / base:5.1f}x the C example's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
