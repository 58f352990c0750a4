"""Rillet against LiteRT on Arm, by guest instructions under qemu-user (issue 29's bench that anyone can run
without a board): rillet's aarch64 wheel and LiteRT 2.3's aarch64 wheel (XNNPACK, its default, one thread) run
in the Debian arm64 root of tools/arm_root.sh under qemu-aarch64 with bench/qemu_insn_count.c counting, on
each -cpu asked for. Prints markdown tables: per model and CPU, one invoke's instructions, rillet/LiteRT, a
start's instructions and whether the outputs agree; with --per-op, each op cut from the file as its own
one-op model, counted the same way, summed per op type, and the ops where rillet spends the most beyond LiteRT.

    python bench/bench_arm.py MODEL.tflite ... [--cpu cortex-a72 --cpu cortex-a76] [--per-op] [--armv7]
        [--arm-wheel dist/rillet-...-linux_aarch64.whl] [--litert-arm-wheel ai_edge_litert-...aarch64.whl]

Each MODEL.tflite needs MODEL.npz beside it: `x`/`y` (tests/data/models) or SIG/in/NAME and SIG/out/NAME
(bench/make_transformers.py, bench/make_cnn_models.py). Without --arm-wheel the aarch64 wheel is built
(tools/build_wheels.py --arch aarch64 -o dist); without --litert-arm-wheel LiteRT's is fetched with
`pip download --no-deps --only-binary=:all: --platform manylinux_2_27_aarch64 --python-version 3.11
--implementation cp --abi cp311 ai-edge-litert==2.3.0`. Needs qemu-user, gcc, unshare (root) and the root;
--armv7 also gcc-arm-linux-gnueabihf.

How it counts. One guest Python per model, CPU and runtime: it loads the model, sets the inputs, invokes once
and marks (the plugin prints its count when the guest makes the syscall MARK_SYSCALL), invokes twice more and
marks again: one invoke is the difference over 2, i.e. (3 invokes - 1 invoke) / 2 within one process, with
loading, weight packing and planning outside it. A start is the count at the first mark: the whole process
from exec through `import numpy`, the runtime's import, load, allocate and the first invoke. Per op, the same
process then loads every one-op model (the op's constant inputs kept, its other inputs fed the values
LiteRT's builtin kernels computed for them on the host), invokes once, and counts two more invokes.

What the proxy cannot tell:
- instructions are not cycles: a NEON multiply-accumulate and a scalar add count the same, loads that miss
  the cache count as one, and cycles per instruction differ between the two libraries' code. On the in-order
  Cortex-A53 a count is closest to time, on the out-of-order A72/A76 least.
- the CPU models differ here only in the features qemu exposes (A76: dot product, fp16 arithmetic; A53 and
  A72: Armv8.0, so their counts match unless a library picks kernels by the core's name).
- the per-op cut cannot see what crosses op boundaries: a fusion LiteRT or rillet makes between ops, and a
  layout or requantization one op hands the next; each one-op invoke also carries the runtime's fixed cost per
  invoke (compare the sum of the ops to the whole model's count).
- armv7 (Cortex-A7 / A15): LiteRT publishes no armv7 wheel, so rillet's NEON path is compared with rillet's
  own scalar path (the reference kernels) through native/tests/model_isa_run.c, a static C runner, counted as
  (3 invokes - 1 invoke) / 2 across two processes; models with one input only.
"""

from __future__ import annotations

import argparse
import compileall
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_start_instructions import _quote, lay_out_rillet  # noqa: E402

MARK_SYSCALL = 0x5249  # bench/qemu_insn_count.c's
LITERT_ARM = "ai-edge-litert==2.3.0"
FIRST_OP_MARK = 1000

# The guest's program: argv runtime, job folder, "1" to count the one-op models too.
GUEST = f"""
import ctypes, os, sys
import numpy as np
runtime, job, per_op = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
libc = ctypes.CDLL(None)
def mark(k):
    libc.syscall({MARK_SYSCALL}, k)
if runtime == "rillet":
    from rillet.runtime import Interpreter
else:
    from ai_edge_litert.interpreter import Interpreter
def ready(model, feeds):
    it = Interpreter(model_path=model, num_threads=1)
    it.allocate_tensors()
    for key in feeds.files:
        it.set_tensor(int(key[1:]), feeds[key])
    return it
it = ready(job + "/model.tflite", np.load(job + "/feed.npz"))
it.invoke()
mark(1)
it.invoke()
it.invoke()
mark(2)
np.savez(job + "/out_" + runtime + ".npz", **{{"t%d" % d["index"]: it.get_tensor(d["index"])
                                             for d in it.get_output_details()}})
del it
if per_op:
    for name in sorted(os.listdir(job + "/ops")):
        if name.endswith(".tflite"):
            k = int(name[3:-7])
            try:
                op = ready(job + "/ops/" + name, np.load(job + "/ops/" + name[:-7] + ".npz"))
                op.invoke()
            except Exception as e:
                print("opfail", k, type(e).__name__, str(e).splitlines()[0][:200], flush=True)
                continue
            mark({FIRST_OP_MARK} + 2 * k)
            op.invoke()
            op.invoke()
            mark({FIRST_OP_MARK} + 2 * k + 1)
            del op
"""


@dataclass
class Count:
    """One guest run: the marks' counts (mark -> instructions so far) and the outputs it wrote."""
    marks: dict[int, int]
    outputs: dict[str, np.ndarray]
    failed: dict[int, str] = field(default_factory=dict)  # one-op models this runtime would not run: why

    @property
    def start(self) -> int:
        return self.marks[1]

    @property
    def invoke(self) -> float:
        return (self.marks[2] - self.marks[1]) / 2

    def op(self, k: int) -> float:
        return (self.marks[FIRST_OP_MARK + 2 * k + 1] - self.marks[FIRST_OP_MARK + 2 * k]) / 2


@dataclass
class Job:
    name: str
    folder: Path
    reference: dict[str, np.ndarray]  # LiteRT's outputs on the host, by "t<tensor index>"
    ops: dict[int, str] = field(default_factory=dict)  # op index -> its op name, for the ops cut
    uncut: list[str] = field(default_factory=list)  # ops that could not be cut, named


def model_io(path: Path) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """The stored inputs and LiteRT's outputs of subgraph 0, by tensor index, from MODEL.npz."""
    from ai_edge_litert.interpreter import Interpreter

    stored = np.load(path.with_suffix(".npz"))
    it = Interpreter(model_path=str(path))
    if "x" in stored.files:  # tests/data/models: one input x, one output y
        return ({it.get_input_details()[0]["index"]: stored["x"]},
                {it.get_output_details()[0]["index"]: stored["y"]})
    inputs, outputs = {}, {}
    for key in stored.files:
        sig, kind, name = key.split("/", 2)
        runner = it.get_signature_runner(sig)
        details = runner.get_input_details() if kind == "in" else runner.get_output_details()
        (inputs if kind == "in" else outputs)[details[name]["index"]] = stored[key]
    return inputs, outputs


def intermediate_values(path: Path, inputs: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """Every tensor of subgraph 0 after one invoke of LiteRT's builtin kernels (XNNPACK would keep its
    intermediates to itself): what each one-op model is fed."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    it = Interpreter(model_path=str(path), experimental_preserve_all_tensors=True,
                     experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    for index, value in inputs.items():
        it.set_tensor(index, value)
    it.invoke()
    values = {}
    for d in it.get_tensor_details():
        try:
            values[d["index"]] = np.array(it.get_tensor(d["index"]))
        except ValueError:  # a tensor with no data (an optional or freed one)
            pass
    return values


def cut_ops(path: Path, inputs: dict[int, np.ndarray], folder: Path) -> tuple[dict[int, str], list[str]]:
    """Writes ops/op_K.tflite (op K of subgraph 0 alone, its constants kept) and ops/op_K.npz (its other
    inputs, t<index> in the cut model's numbering). Ops that run other subgraphs are not cut."""
    from rillet.converter.format.io import load, save
    from rillet.converter.format.model import Buffer
    from rillet.converter.format.prune import drop_unused_buffers, drop_unused_tensors

    model = load(path.read_bytes())
    sg = model.subgraphs[0]
    values = intermediate_values(path, inputs)
    (folder / "ops").mkdir()
    ops, uncut = {}, []
    for k, op in enumerate(sg.operators):
        name = model.op_name(op)
        fed = [t for t in op.inputs or [] if t >= 0 and model.tensor_data(0, t) is None
               and not sg.tensors[t].is_variable]
        if name in ("WHILE", "IF", "CALL_ONCE", "CALL") or any(t not in values for t in fed):
            uncut.append(f"{k}:{name}")
            continue
        # A small integer input (a shape, a size, axes) computed by earlier ops becomes a constant, as the
        # runtimes want shapes known when they plan; the op's data inputs stay fed.
        tensors, buffers = list(sg.tensors), list(model.buffers)
        for t in [t for t in fed if values[t].dtype in (np.int32, np.int64) and values[t].size <= 16]:
            buffers.append(Buffer(data=np.frombuffer(np.ascontiguousarray(values[t]).tobytes(), np.uint8)))
            tensors[t] = replace(tensors[t], buffer=len(buffers) - 1)
            fed.remove(t)
        one = replace(sg, tensors=tensors, operators=[op], inputs=fed, outputs=list(op.outputs))
        cut = drop_unused_buffers(drop_unused_tensors(replace(model, subgraphs=[one], buffers=buffers,
                                                              signature_defs=None)))
        (folder / "ops" / f"op_{k:04d}.tflite").write_bytes(save(cut))
        np.savez(folder / "ops" / f"op_{k:04d}.npz",
                 **{f"t{cut.subgraphs[0].inputs[i]}": values[t] for i, t in enumerate(fed)})
        ops[k] = name
    return ops, uncut


def prepare_job(path: Path, tmp: Path, per_op: bool) -> Job:
    folder = tmp / path.stem
    folder.mkdir()
    shutil.copy2(path, folder / "model.tflite")
    inputs, outputs = model_io(path)
    np.savez(folder / "feed.npz", **{f"t{i}": v for i, v in inputs.items()})
    job = Job(path.stem, folder, {f"t{i}": v for i, v in outputs.items()})
    if per_op:
        job.ops, job.uncut = cut_ops(path, inputs, folder)
    return job


class Guest:
    """The aarch64 side: both runtimes laid out as their wheels install them, the plugin, the root."""

    def __init__(self, tmp: Path, arm_root: Path, rillet_wheel: Path, litert_wheel: Path) -> None:
        for tool in ("qemu-aarch64", "gcc", "unshare"):
            if shutil.which(tool) is None:
                sys.exit(f"bench_arm: the aarch64 guest needs {tool}")
        if not (arm_root / "usr/bin/python3").exists():
            sys.exit(f"bench_arm: no Debian arm64 root at {arm_root} (sudo tools/arm_root.sh arm64 {arm_root})")
        self.arm_root, self.tmp = arm_root, tmp
        unpacked = tmp / "rillet_wheel"
        zipfile.ZipFile(rillet_wheel).extractall(unpacked)
        arm = lay_out_rillet(tmp / "arm", unpacked / "rillet" / "native")
        import flatbuffers  # rillet's one pure-Python dependency the root lacks, as pip would add it

        shutil.copytree(Path(flatbuffers.__file__).parent, arm / "flatbuffers")
        litert = tmp / "arm_litert"
        zipfile.ZipFile(litert_wheel).extractall(litert)
        for folder in (arm / "flatbuffers", litert):
            compileall.compile_dir(str(folder), quiet=1, workers=1)
        self.plugin = tmp / "qemu_insn_count.so"
        subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(self.plugin),
                        str(ROOT / "bench" / "qemu_insn_count.c")], check=True)
        self.env = {**os.environ, "PYTHONHASHSEED": "0",
                    "PYTHONPATH": os.pathsep.join([str(arm), str(litert), "/usr/lib/python3/dist-packages"])}
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)

    def run(self, cpu: str, runtime: str, job: Job, per_op: bool) -> Count:
        """The guest program under qemu-aarch64 -cpu `cpu`. LiteRT's cpuinfo reads /sys/devices/system/cpu
        and crashes on the host's (many CPUs, no Arm fields): a private mount namespace puts a one-CPU tmpfs
        there, as bench_start_instructions.py does."""
        fake_cpu = ("mount -t tmpfs none /sys/devices/system/cpu && mkdir -p /sys/devices/system/cpu/cpu0 && "
                    "for f in possible present online; do echo 0 > /sys/devices/system/cpu/$f; done && ")
        libraries = "LD_LIBRARY_PATH=/usr/lib/aarch64-linux-gnu/blas:/usr/lib/aarch64-linux-gnu/lapack"
        command = " ".join(["exec", "qemu-aarch64", "-L", str(self.arm_root), "-E", libraries, "-cpu", cpu,
                            "-plugin", str(self.plugin), "-d", "plugin", str(self.arm_root / "usr/bin/python3"),
                            "-S", "-c", _quote(GUEST), runtime, str(job.folder), "1" if per_op else "0"])
        done = subprocess.run(["unshare", "-m", "sh", "-c", fake_cpu + command], capture_output=True,
                              text=True, env=self.env, cwd=self.tmp, check=False)
        marks, failed = {}, {}
        for line in (done.stdout + done.stderr).splitlines():
            if line.startswith("mark "):
                _, k, n = line.split()
                marks[int(k)] = int(n)
            elif line.startswith("opfail "):
                _, k, why = line.split(" ", 2)
                failed[int(k)] = why
        if done.returncode != 0 or 2 not in marks:
            sys.exit(f"bench_arm: {runtime} on {job.name} ({cpu}) failed:\n{done.stdout[-2000:]}"
                     f"{done.stderr[-3000:]}")
        out = job.folder / f"out_{runtime}.npz"
        outputs = dict(np.load(out))
        out.unlink()
        return Count(marks, outputs, failed)


def agreement(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> str:
    """int8/int16 etc.: "bit-exact" or how many elements differ; float: the largest difference relative to
    the largest magnitude of the reference (the project's 1e-5 criterion). Several outputs: each by tensor."""
    words = []
    for key, w in sorted(want.items()):
        g = got.get(key)
        if g is None or g.shape != w.shape:
            words.append(f"{key}: shape {None if g is None else g.shape} vs {w.shape}")
        elif np.issubdtype(w.dtype, np.floating):
            scale = float(np.max(np.abs(w))) or 1.0
            words.append(f"rel {float(np.max(np.abs(g.astype(np.float64) - w))) / scale:.1e}")
        else:
            differ = int(np.count_nonzero(g != w))
            words.append("bit-exact" if differ == 0 else
                         f"{differ}/{w.size} differ (max {int(np.max(np.abs(g.astype(np.int64) - w)))})")
    if len(words) > 1:  # several outputs: each named by its tensor
        words = [f"{key} {word}" for key, word in zip(sorted(want), words)]
    return ", ".join(words)


def millions(n: float) -> str:
    m = n / 1e6
    return f"{m:.3f}" if m < 1 else f"{m:.2f}" if m < 100 else f"{m:.1f}"


def per_op_tables(job: Job, cpu: str, rillet: Count, litert: Count, top: int) -> None:
    by_type: dict[str, list[float]] = {}
    rows = []
    failed = []
    for k, name in job.ops.items():
        if k in rillet.failed or k in litert.failed:
            failed.append(f"{k}:{name} ({'rillet: ' + rillet.failed[k] if k in rillet.failed else ''}"
                          f"{'LiteRT: ' + litert.failed[k] if k in litert.failed else ''})")
            continue
        r, l_ = rillet.op(k), litert.op(k)
        cell = by_type.setdefault(name, [0, 0.0, 0.0])
        cell[0] += 1
        cell[1] += r
        cell[2] += l_
        rows.append((r - l_, k, name, r, l_))
    total_r, total_l = sum(c[1] for c in by_type.values()), sum(c[2] for c in by_type.values())
    print(f"\n#### {job.name}, {cpu}: per op type (each op cut as a one-op model; M instructions per invoke)\n")
    print("| op | ops | rillet | LiteRT | rillet/LiteRT | share of rillet's |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (n, r, l_) in sorted(by_type.items(), key=lambda kv: -kv[1][1]):
        print(f"| {name} | {n} | {millions(r)} | {millions(l_)} | {r / l_:.2f} | {100 * r / total_r:.0f}% |")
    print(f"| sum of the ops | {len(rows)} | {millions(total_r)} | {millions(total_l)} | "
          f"{total_r / total_l:.2f} | |")
    print(f"| whole model | | {millions(rillet.invoke)} | {millions(litert.invoke)} | "
          f"{rillet.invoke / litert.invoke:.2f} | |")
    if failed:
        print(f"\nleft out (a runtime would not run the one-op model): {'; '.join(failed)}")
    if job.uncut:
        print(f"\nnot cut (they run other subgraphs or were not computed): {', '.join(job.uncut)}")
    print(f"\nthe {top} ops where rillet executes the most instructions beyond LiteRT:\n")
    print("| op index | op | rillet | LiteRT | rillet/LiteRT |")
    print("|---:|---|---:|---:|---:|")
    for extra, k, name, r, l_ in sorted(rows, reverse=True)[:top]:
        print(f"| {k} | {name} | {millions(r)} | {millions(l_)} | {r / l_:.2f} |")


def armv7_rows(paths: list[Path], tmp: Path, cpus: list[str]) -> None:
    """rillet's NEON path against its scalar path on armv7 (LiteRT has no armv7 wheel)."""
    from arm_instruction_count import build_runner, instructions

    from rillet.converter.format.view import ModelView

    for tool in ("qemu-arm", "arm-linux-gnueabihf-gcc"):
        if shutil.which(tool) is None:
            sys.exit(f"bench_arm: --armv7 needs {tool}")
    (tmp / "armv7l").mkdir()
    runner = build_runner("armv7l", "arm-linux-gnueabihf-gcc", tmp / "armv7l")
    plugin = tmp / "qemu_insn_count.so"
    print("\n### armv7 (32-bit Pi OS): rillet NEON against rillet scalar; LiteRT has no armv7 wheel\n")
    print("| model | cpu | scalar M/invoke | NEON M/invoke | scalar/NEON |")
    print("|---|---|---:|---:|---:|")
    for path in paths:
        inputs, _ = model_io(path)
        if len(inputs) != 1:
            print(f"| {path.stem} | | | | {len(inputs)} inputs: the C runner feeds one |")
            continue
        (index, value), = inputs.items()
        feed, out = tmp / "armv7_input.bin", tmp / "armv7_out"
        feed.write_bytes(np.ascontiguousarray(value).tobytes())
        out.mkdir(exist_ok=True)
        assert int(ModelView(path.read_bytes()).subgraphs[0].inputs[0]) == index
        for cpu in cpus:
            per = {}
            for isa in ("scalar", "neon"):
                one, three = (instructions("qemu-arm", cpu, plugin, runner, path, index, feed, isa, n, out)
                              for n in (1, 3))
                per[isa] = (three - one) / 2
            print(f"| {path.stem} | {cpu} | {millions(per['scalar'])} | {millions(per['neon'])} | "
                  f"{per['scalar'] / per['neon']:.2f} |", flush=True)


def wheels(args: argparse.Namespace) -> tuple[Path, Path]:
    rillet_wheel, litert_wheel = args.arm_wheel, args.litert_arm_wheel
    if rillet_wheel is None:
        subprocess.run([sys.executable, str(ROOT / "tools" / "build_wheels.py"), "--arch", "aarch64", "-o",
                        str(ROOT / "dist")], check=True)
        rillet_wheel = Path(sorted(glob.glob(str(ROOT / "dist" / "rillet-*-linux_aarch64.whl")))[-1])
    if litert_wheel is None:
        found = sorted(glob.glob(str(ROOT / "dist" / "ai_edge_litert-2.3.0-*aarch64.whl")))
        if not found:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                            "--platform", "manylinux_2_27_aarch64", "--python-version", "3.11",
                            "--implementation", "cp", "--abi", "cp311", "-d", str(ROOT / "dist"), LITERT_ARM],
                           check=True)
            found = sorted(glob.glob(str(ROOT / "dist" / "ai_edge_litert-2.3.0-*aarch64.whl")))
        litert_wheel = Path(found[-1])
    return rillet_wheel, litert_wheel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", type=Path, help="MODEL.tflite files, MODEL.npz beside each")
    parser.add_argument("--cpu", action="append", help="qemu -cpu (repeatable; default cortex-a72, cortex-a76)")
    parser.add_argument("--per-op", action="store_true", help="count each op as a one-op model too")
    parser.add_argument("--per-op-cpu", help="count the ops on this CPU only (default: every --cpu)")
    parser.add_argument("--top", type=int, default=8, help="how many single ops to list per model")
    parser.add_argument("--armv7", action="store_true", help="also rillet NEON vs scalar on armv7")
    parser.add_argument("--armv7-cpu", action="append", help="default cortex-a7, cortex-a15")
    parser.add_argument("--no-aarch64", action="store_true", help="only the armv7 rows")
    parser.add_argument("--arm-root", type=Path, default=Path("/var/cache/rillet-arm/arm64-bookworm"))
    parser.add_argument("--arm-wheel", type=Path)
    parser.add_argument("--litert-arm-wheel", type=Path)
    args = parser.parse_args()
    cpus = args.cpu or ["cortex-a72", "cortex-a76"]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if not args.no_aarch64:
            guest = Guest(tmp, args.arm_root, *wheels(args))
            print("### aarch64: rillet against LiteRT 2.3 (XNNPACK, 1 thread), guest instructions under "
                  "qemu-user\n")
            print("M = millions of guest instructions. invoke: (3 invokes - 1) / 2 in one process; start: exec "
                  "through the first invoke. Outputs: rillet's against LiteRT's on the same CPU, and each against the .npz's (LiteRT "
                  "on the host, x86 XNNPACK).\n", flush=True)
            header = ("| model | cpu | rillet M/invoke | LiteRT M/invoke | rillet/LiteRT | rillet start M | "
                      "LiteRT start M | rillet vs LiteRT | rillet vs host | LiteRT vs host |\n"
                      "|---|---|---:|---:|---:|---:|---:|---|---|---|")
            print(header, flush=True)
            header_due = False
            for path in args.models:
                per_op = args.per_op
                job = prepare_job(path, tmp, per_op)
                for cpu in cpus:
                    op_here = per_op and (args.per_op_cpu in (None, cpu))
                    rillet = guest.run(cpu, "rillet", job, op_here)  # interleaved: one of each per CPU
                    litert = guest.run(cpu, "litert", job, op_here)
                    if header_due:
                        print(f"\n{header}")
                        header_due = False
                    print(f"| {job.name} | {cpu} | {millions(rillet.invoke)} | {millions(litert.invoke)} | "
                          f"{rillet.invoke / litert.invoke:.2f} | {millions(rillet.start)} | "
                          f"{millions(litert.start)} | {agreement(rillet.outputs, litert.outputs)} | "
                          f"{agreement(rillet.outputs, job.reference)} | {agreement(litert.outputs, job.reference)} |",
                          flush=True)
                    if op_here:
                        per_op_tables(job, cpu, rillet, litert, args.top)
                        header_due = True
                shutil.rmtree(job.folder)
        if args.armv7:
            if not (tmp / "qemu_insn_count.so").exists():
                subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(tmp / "qemu_insn_count.so"),
                                str(ROOT / "bench" / "qemu_insn_count.c")], check=True)
            armv7_rows(args.models, tmp, args.armv7_cpu or ["cortex-a7", "cortex-a15"])


if __name__ == "__main__":
    main()
