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

from .devices import Device

HERE = Path(__file__).resolve().parent


class BundleError(Exception):
    """A deploy that cannot be made: the message names what is missing. `exit_code` follows the command line's
    rule: 2 for a file named on the command line that does not exist, 1 for the rest (a refused model, no
    wheel)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class Bundle:
    folder: Path
    archive: Path
    files: list[str]


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
{arch} in `wheels/{rillet_wheel}` (any CPython >= 3.9; it needs glibc >= 2.34, as in Debian 12 / Raspberry
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
                          f"--arch {device.arch}` in rillet's checkout, or pass --wheels DIR")
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


def make_bundle(model: Path, device: Device, out: Path, wheels_dir: Path, *, train: bool = False,
                labels: Path | None = None, input_range: tuple[float, float] = (0.0, 1.0)) -> Bundle:
    """Writes the bundle folder `out` (replacing it) and `out.tar.gz` beside it."""
    if not model.is_file():
        raise BundleError(f"{model}: no such model file", exit_code=2)
    rillet_wheel, flatbuffers_wheel = find_wheels(wheels_dir, device)
    summary = model_summary(model)
    if train and "train" not in summary["signatures"]:
        raise BundleError(f"{model.name} has no train signature (its signatures: {', '.join(summary['signatures'])})")
    if out.exists():
        shutil.rmtree(out)
    (out / "wheels").mkdir(parents=True)
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
    detail = summary["input"]
    train_inputs = ", ".join(summary["signatures"].get("train", {}).get("inputs", []))
    (out / "README.md").write_text(README.format(
        name=name, model=model.name, device=device.description, target=device.name, arch=device.arch,
        rillet_wheel=rillet_wheel.name, input=f"{detail['dtype'].__name__} {list(detail['shape'])}",
        low=input_range[0], high=input_range[1],
        quantized=", then quantized with the input's scale and zero point" if detail["quantization"][0] else "",
        labels=" (named from labels.txt)" if labels else "",
        train=TRAIN_README.format(train_inputs=train_inputs) if train else ""))
    archive = out.parent / f"{name}.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(out, arcname=name)
    return Bundle(out, archive, sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()))
