"""Deploy bundles: a folder (and a .tar.gz of it) holding what a device needs to run a model with no compiler
and no network: the target's rillet wheel and the flatbuffers wheel, the model, run.py (and train.py for a
model with a `train` signature), install.sh, a README and a systemd unit.

The device's own numpy and cffi serve (Debian's / Raspberry Pi OS's python3-numpy and python3-cffi):
install.sh makes a virtual environment that sees them and installs the wheels into it offline.
"""

from __future__ import annotations

import json
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .devices import Device

__all__ = ["MARKER", "Bundle", "BundleError", "check_output_folder", "find_wheels", "input_range_of",
           "make_bundle", "model_summary"]

HERE = Path(__file__).resolve().parent

# Written into every bundle: the one sign that a folder is rillet's to replace. A folder without it may be the
# user's project (`-o .` once emptied one, the model included), so deploy never empties it.
MARKER = ".rillet-bundle"
"""The file every bundle holds: deploy replaces only a folder that has it."""
MARKER_TEXT = "written by `rillet deploy`: deploy replaces this folder when it is named with -o again\n"


class BundleError(Exception):
    """A deploy that cannot be made: the message names what is missing. `exit_code` follows the command line's
    rule: 2 for a file named on the command line that does not exist, 1 for the rest (a refused model, no
    wheel)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class Bundle:
    """What make_bundle wrote: the bundle `folder` and its `archive` (.tar.gz), the `files` in the folder,
    and the `input_range` image pixels map to, with where it came from (`input_range_source`)."""
    folder: Path
    archive: Path
    files: list[str]
    input_range: tuple[float, float]
    input_range_source: str  # where input_range came from, for the command's summary


INSTALL_SH = """#!/bin/sh
# Installs rillet from this folder's wheels into ./env, offline: a virtual environment that uses the system's
# numpy and cffi (Debian / Raspberry Pi OS packages), so nothing is compiled or downloaded.
#   ./install.sh             install (again)
#   ./install.sh --service   also write rillet-{name}.service for systemd, classifying what lands in ./inbox
set -eu
cd "$(dirname "$0")"
if ! python3 -c "import numpy, cffi" 2>/dev/null; then
    echo "install.sh: this Python lacks numpy or cffi: sudo apt install python3-numpy python3-cffi" >&2
    exit 1
fi
# Debian's python3-venv brings pip as a wheel: running pip from it skips installing pip into env (which takes
# minutes under emulation); elsewhere env gets its own pip.
pip_wheel=$(ls /usr/share/python-wheels/pip-*.whl 2>/dev/null | tail -n 1)
if [ ! -x env/bin/python3 ]; then
    python3 -m venv --system-site-packages ${{pip_wheel:+--without-pip}} env || {{
        echo "install.sh: python3 -m venv failed: sudo apt install python3-venv" >&2; exit 1; }}
fi
if [ -x env/bin/pip ] || [ -z "$pip_wheel" ]; then pip="env/bin/python3 -m pip"; else pip="env/bin/python3 $pip_wheel/pip"; fi
# Offline, one pip run (pip is slow to start on a small board): the wheels here, over the system's numpy and
# cffi (Debian 12 has 1.24 and 1.15.1, which rillet's requirements allow).
$pip install --quiet --disable-pip-version-check --no-index --no-deps --force-reinstall \\
    wheels/{rillet_wheel} wheels/{flatbuffers_wheel}
env/bin/python3 -c "import rillet.native as n; print('rillet installed; kernel path:', n.kernel_path())"
if [ "${{1:-}}" = "--service" ]; then
    mkdir -p inbox
    sed "s|@BUNDLE@|$(pwd)|g" rillet.service.in > rillet-{name}.service
    echo "wrote rillet-{name}.service: sudo cp rillet-{name}.service /etc/systemd/system/ &&" \\
         "sudo systemctl enable --now rillet-{name}"
fi
"""

SERVICE = """[Unit]
Description=rillet: classify the files that land in @BUNDLE@/inbox with {model}
After=multi-user.target

[Service]
WorkingDirectory=@BUNDLE@
ExecStart=@BUNDLE@/env/bin/python3 @BUNDLE@/run.py --watch @BUNDLE@/inbox
Restart=on-failure

[Install]
WantedBy=multi-user.target
"""

README = """# {name}: {model} for {device}

Made by `rillet deploy --target {target}`. Everything here installs offline: librillet is prebuilt for
{arch} in `wheels/{rillet_wheel}` (CPython 3.9 to 3.13; it needs glibc >= 2.34, as in Debian 12 / Raspberry
Pi OS bookworm), with the pure-Python `flatbuffers` wheel beside it; numpy and cffi come from the system.

On the device (copy the folder or `{name}.tar.gz` over, e.g. `scp -r {name} pi@raspberrypi.local:`):

```sh
sudo apt install python3-numpy python3-cffi python3-venv   # already there on Raspberry Pi OS
./install.sh                        # a virtual environment in ./env that sees the system's numpy and cffi
python3 run.py image.npy            # or a folder of .npy / .png files (png needs python3-pil)
python3 run.py images/ --save outputs.npz
```

run.py feeds an `.npy` shaped and typed as the input ({input}) as it is; any other `.npy` or a `.png` is an
image: resized to the input and its 0..255 pixels scaled to [{low}, {high}]{quantized}. It prints each
file's top classes{labels}.
{train}
`./install.sh --service` writes a systemd unit that classifies each file dropped into `inbox/`.
"""

TRAIN_README = """
The model has a `train` signature ({train_inputs}): `python3 train.py data.npz [--epochs 5] [--export
trained.tflite]` trains on the device on arrays named as its inputs, saving the variables to `checkpoint.npz`
after every epoch; run.py then classifies with the trained values.
"""


def find_wheels(wheels_dir: Path, device: Device) -> tuple[Path, Path]:
    """The target's rillet wheel and the flatbuffers wheel in `wheels_dir`; BundleError saying how to make them."""
    platform = device.wheel_platform
    rillet = sorted(wheels_dir.glob(f"rillet-*-py3-none-{platform}.whl"))
    flatbuffers = sorted(wheels_dir.glob("flatbuffers-*-none-any.whl"))
    if not rillet or not flatbuffers:
        missing = " and ".join(x for x, found in ((f"the rillet wheel for {platform}", rillet),
                                                   ("the flatbuffers wheel", flatbuffers)) if not found)
        raise BundleError(f"{wheels_dir}/ lacks {missing}: build them with `python tools/build_wheels.py "
                          f"--arch {device.arch}` in rillet's checkout, or leave out --wheels and deploy "
                          "builds the wheel itself")
    return rillet[-1], flatbuffers[-1]


def model_summary(model: Path) -> dict:
    """The model's signatures and its inference signature's input, read by the runtime (which also refuses a
    model it cannot run: better here than on the device)."""
    from rillet.runtime import Interpreter

    interpreter = Interpreter(model_path=str(model))
    signatures = interpreter.get_signature_list()
    inference = next((k for k in ("infer", "serving_default") if k in signatures),
                     next((k for k in signatures if k not in ("train", "save", "restore")), None))
    if inference is None:
        raise BundleError(f"{model}: no inference signature to run (signatures: {', '.join(signatures) or 'none'})")
    (_, detail), *_ = interpreter.get_signature_runner(inference).get_input_details().items()
    return {"signatures": signatures, "inference": inference, "input": detail}


def _is_within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _our_archive(archive: Path, name: str) -> bool:
    """Whether `archive` is a bundle's .tar.gz (it holds NAME/.rillet-bundle): only then is it overwritten."""
    try:
        with tarfile.open(archive, "r:gz") as tar:
            return any(m.name == f"{name}/{MARKER}" for m in tar.getmembers())
    except (OSError, tarfile.TarError):
        return False


def check_output_folder(out: Path, inputs: list[Path]) -> bool:
    """Refuses (BundleError, exit 2) an `out` that deploy must not replace: the working directory or a folder
    above it, a folder holding one of `inputs`, a file, or a folder with files that holds no bundle marker.
    Returns whether `out` is an earlier bundle, to be replaced."""
    where = out.resolve()
    cwd = Path.cwd().resolve()
    if _is_within(cwd, where):
        what = "the working directory" if where == cwd else f"a folder above the working directory ({cwd})"
        raise BundleError(f"-o {out} is {what}: deploy writes a whole folder; give a new folder such as "
                          f"-o {out / 'bundle'}", exit_code=2)
    for path in inputs:
        if _is_within(path.resolve(), where):
            raise BundleError(f"-o {out} holds {path}, an input of this deploy: give a new folder outside it",
                              exit_code=2)
    if not out.exists() and not out.is_symlink():
        return False
    if not out.is_dir():
        raise BundleError(f"-o {out} is a file, not a folder: give a new or empty folder", exit_code=2)
    if (out / MARKER).is_file():
        return True
    if any(out.iterdir()):
        raise BundleError(f"-o {out} is a folder with files that rillet did not write (no {MARKER} in it): "
                          "give a new or empty folder", exit_code=2)
    return False


def input_range_of(detail: dict) -> tuple[float, float] | None:
    """What 0..255 pixels should map to for an integer input: the float range its quantization covers,
    snapped to [0, 1], [-1, 1] or [0, 255] when within 2% of one; None for a float input (nothing to read)."""
    scale, zero_point = detail["quantization"]
    if not scale or np.dtype(detail["dtype"]).kind not in "iu":
        return None
    info = np.iinfo(detail["dtype"])
    low, high = (int(info.min) - zero_point) * scale, (int(info.max) - zero_point) * scale
    for a, b in ((0.0, 1.0), (-1.0, 1.0), (0.0, 255.0)):
        if abs(low - a) <= 0.02 * (b - a) and abs(high - b) <= 0.02 * (b - a):
            return a, b
    return round(float(low), 4), round(float(high), 4)


def make_bundle(model: Path, device: Device, out: Path, wheels_dir: Path, *, train: bool = False,
                labels: Path | None = None, input_range: tuple[float, float] | None = None,
                wheels: tuple[Path, Path] | None = None) -> Bundle:
    """Writes the bundle folder `out` and `out.tar.gz` beside it. `out` must be new, empty, or an earlier
    bundle (check_output_folder); an existing .tar.gz is replaced only when it is a bundle's. `input_range`
    None: the integer input's quantization range (input_range_of), else [0, 1]. `wheels`: the rillet and
    flatbuffers wheels to bundle; None finds them in `wheels_dir` (find_wheels). BundleError (its exit_code
    set) for a missing model, a refused output folder or missing wheels; the runtime's ValueError or
    RuntimeError for a model it cannot run."""
    if model.is_dir():
        raise BundleError(f"{model} is a folder, not a model file: give the .tflite inside it", exit_code=2)
    if not model.is_file():
        raise BundleError(f"{model}: no such model file", exit_code=2)
    inputs = [model, *(wheels or [wheels_dir]), *([labels] if labels is not None else [])]
    replace = check_output_folder(out, inputs)
    name = out.resolve().name
    archive = out.resolve().parent / f"{name}.tar.gz"
    if archive.exists() and not _our_archive(archive, name):
        raise BundleError(f"{archive} exists and is not a bundle's archive: move it or give another -o",
                          exit_code=2)
    rillet_wheel, flatbuffers_wheel = wheels or find_wheels(wheels_dir, device)
    summary = model_summary(model)
    if train and "train" not in summary["signatures"]:
        raise BundleError(f"{model.name} has no train signature (its signatures: {', '.join(summary['signatures'])})")
    detail = summary["input"]
    source = "as asked"
    if input_range is None:
        derived = input_range_of(detail)
        input_range = derived or (0.0, 1.0)
        source = (f"from the {np.dtype(detail['dtype']).name} input's quantization" if derived else
                  "the default for a float input")
    if replace:
        shutil.rmtree(out)
    (out / "wheels").mkdir(parents=True)
    (out / MARKER).write_text(MARKER_TEXT)
    name = out.resolve().name
    for wheel in (rillet_wheel, flatbuffers_wheel):
        shutil.copy2(wheel, out / "wheels" / wheel.name)
    shutil.copy2(model, out / model.name)
    shutil.copy2(HERE / "bundle_run.py", out / "run.py")
    if train:
        shutil.copy2(HERE / "bundle_train.py", out / "train.py")
    if labels is not None:
        shutil.copy2(labels, out / "labels.txt")
    config = {"model": model.name, "target": device.name, "signature": summary["inference"],
              "input_range": list(input_range), "labels": "labels.txt" if labels else None, "train": train}
    (out / "bundle.json").write_text(json.dumps(config, indent=2) + "\n")
    (out / "install.sh").write_text(INSTALL_SH.format(name=name, rillet_wheel=rillet_wheel.name,
                                                      flatbuffers_wheel=flatbuffers_wheel.name))
    (out / "install.sh").chmod(0o755)
    (out / "rillet.service.in").write_text(SERVICE.format(model=model.name))
    train_inputs = ", ".join(summary["signatures"].get("train", {}).get("inputs", []))
    (out / "README.md").write_text(README.format(
        name=name, model=model.name, device=device.description, target=device.name, arch=device.arch,
        rillet_wheel=rillet_wheel.name, input=f"{np.dtype(detail['dtype']).name} {[int(n) for n in detail['shape']]}",
        low=input_range[0], high=input_range[1],
        quantized=", then quantized with the input's scale and zero point" if detail["quantization"][0] else "",
        labels=" (named from labels.txt)" if labels else "",
        train=TRAIN_README.format(train_inputs=train_inputs) if train else ""))
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(out, arcname=name)
    return Bundle(out, archive, sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()),
                  tuple(input_range), source)
