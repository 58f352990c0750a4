"""The deploy bundle on an emulated Raspberry Pi: a Debian root for arm64 (or armhf) with Debian's own Python,
numpy and cffi (tools/arm_root.sh), run under qemu through binfmt. install.sh installs the prebuilt wheel
offline; run.py gives the host's outputs (int8 bit for bit, float within 1e-5) on every kernel path the
boards take (qemu's -cpu per board); train.py takes the host's training steps.

Needs root and two variables (.ci/run sets them): RILLET_ARM_ROOT, the root, and RILLET_WHEELS, the folder
tools/build_wheels.py wrote (default dist/). Skipped otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from rillet.cli import main
from rillet.targets.devices import DEVICES

from support import golden, model_path

ROOT = Path(os.environ["RILLET_ARM_ROOT"]) if os.environ.get("RILLET_ARM_ROOT") else None
WHEELS = Path(os.environ.get("RILLET_WHEELS", "dist"))
pytestmark = pytest.mark.skipif(ROOT is None, reason="RILLET_ARM_ROOT is not set: make a root with "
                                "tools/arm_root.sh (as root) and build the wheels with tools/build_wheels.py")

# Per Debian architecture: the boards it stands for and qemu's -cpu for each (qemu-arm has no Cortex-A53/A72:
# the Cortex-A7 is the same armv7 + NEON + VFPv4 a Pi 2 has).
BOARDS = {"arm64": {"rpi3": "cortex-a53", "rpi4": "cortex-a72", "rpi5": "cortex-a76"},
          "armhf": {"rpi3-32": "cortex-a7", "rpi4-32": "cortex-a15"}}
MODELS = ["mobilenet_v2_035_96_int8", "mobilenet_v2_035_96_f32", "cnn_small_int8", "cnn_small_f32"]
IN_ROOT = Path("/opt/rillet-test")


def in_root(command: str, cpu: str | None = None, **env: str) -> subprocess.CompletedProcess:
    """A shell command inside the root (through chroot: qemu runs each Arm binary)."""
    variables = {"PATH": "/usr/bin:/bin", **({"QEMU_CPU": cpu} if cpu else {}), **env}
    return subprocess.run(["chroot", str(ROOT), "/usr/bin/env", "-i", *(f"{k}={v}" for k, v in variables.items()),
                           "/bin/sh", "-c", command], check=False, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def debian_arch() -> str:
    return in_root("dpkg --print-architecture").stdout.strip()


@pytest.fixture(scope="module")
def bundles(debian_arch, tmp_path_factory) -> dict[str, Path]:
    """One bundle per model for the root's architecture, copied into the root; the first one installed."""
    board = next(iter(BOARDS[debian_arch]))
    host = tmp_path_factory.mktemp("bundles")
    shutil.rmtree(ROOT / IN_ROOT.relative_to("/"), ignore_errors=True)
    made = {}
    for name in [*MODELS, "train_mlp"]:
        out = host / name
        extra = ["--train"] if name == "train_mlp" else []
        assert main(["deploy", "--target", board, str(model_path(name)), "-o", str(out), "--wheels", str(WHEELS),
                     *extra]) == 0
        if name != "train_mlp":
            np.save(out / "x.npy", golden(name)["x"])
        shutil.copytree(out, ROOT / IN_ROOT.relative_to("/") / name)
        made[name] = out
    start = time.perf_counter()
    proc = in_root(f"cd {IN_ROOT}/{MODELS[0]} && ./install.sh")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    print(f"\ninstall.sh in the emulated {debian_arch} root: {time.perf_counter() - start:.0f} s; {proc.stdout.strip()}")
    return made


def root_python() -> str:
    """The installed bundle's Python: the other bundles share its environment (one install is enough)."""
    return f"{IN_ROOT}/{MODELS[0]}/env/bin/python3"


def test_install_is_offline_and_picks_each_board_kernel_path(bundles, debian_arch):
    site = in_root(f"{root_python()} -c 'import numpy, cffi, rillet; print(numpy.__file__, cffi.__file__, "
                   "rillet.__file__)'").stdout.split()
    assert site[0].startswith("/usr/lib/python3/dist-packages/numpy")  # Debian's numpy, not a download
    assert site[1].startswith("/usr/lib/python3/dist-packages/cffi")
    assert f"{IN_ROOT}/{MODELS[0]}/env/" in site[2]
    for board, cpu in BOARDS[debian_arch].items():
        proc = in_root(f"{root_python()} -c 'import rillet.native as n; print(n.kernel_path())'", cpu)
        assert proc.stdout.strip() == DEVICES[board].best_kernel_path, (board, cpu, proc.stderr)


@pytest.mark.parametrize("name", MODELS)
def test_run_py_gives_the_host_outputs_on_every_board(bundles, debian_arch, name):
    host = bundles[name]
    subprocess.run([sys.executable, str(host / "run.py"), str(host / "x.npy"), "--save", str(host / "host.npz")],
                   check=True, capture_output=True)
    (expected,) = np.load(host / "host.npz").values()
    # The installed bundle runs as a user would (`python3 run.py`, which moves into its env/); the others
    # through that env's Python.
    python = "python3" if name == MODELS[0] else root_python()
    for board, cpu in BOARDS[debian_arch].items():
        proc = in_root(f"cd {IN_ROOT}/{name} && {python} run.py x.npy --save {board}.npz", cpu)
        assert proc.returncode == 0 and proc.stdout.startswith("x.npy: "), proc.stdout + proc.stderr
        (got,) = np.load(ROOT / IN_ROOT.relative_to("/") / name / f"{board}.npz").values()
        if expected.dtype == np.int8:
            np.testing.assert_array_equal(got, expected, err_msg=board)
            np.testing.assert_array_equal(got, golden(name)["y"][0], err_msg=f"{board} against LiteRT")
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7, err_msg=board)


def test_train_py_takes_the_host_training_steps(bundles):
    host = bundles["train_mlp"]
    rng = np.random.default_rng(0)
    data = {"x": rng.normal(size=(32, 64)).astype(np.float32), "y": np.eye(10, dtype=np.float32)[rng.integers(0, 10, 32)]}
    np.savez(host / "data.npz", **data)
    np.savez(ROOT / IN_ROOT.relative_to("/") / "train_mlp" / "data.npz", **data)
    subprocess.run([sys.executable, str(host / "train.py"), str(host / "data.npz"), "--epochs", "2"],
                   check=True, capture_output=True)
    proc = in_root(f"cd {IN_ROOT}/train_mlp && {root_python()} train.py data.npz --epochs 2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    expected = np.load(host / "checkpoint.npz")
    got = np.load(ROOT / IN_ROOT.relative_to("/") / "train_mlp" / "checkpoint.npz")
    assert sorted(got.files) == sorted(expected.files)
    for key in expected.files:
        np.testing.assert_allclose(got[key], expected[key], rtol=1e-5, atol=1e-6, err_msg=key)


def test_the_armv6_wheel_runs_in_an_armhf_root(debian_arch, tmp_path):
    """The Pi Zero's wheel (armv6kz, VFPv2, ARM code only) on Debian armhf's Python and numpy. pip in an armv7
    root refuses a linux_armv6l wheel for itself, so it is unpacked with --platform into a folder; qemu-arm
    cannot run Debian's armv7 userland as an ARM1176, so this runs it on a Cortex-A7 (the ELF attributes that
    say armv6 are checked by tools/build_wheels.py)."""
    wheel = max(WHEELS.glob("rillet-*-py3-none-linux_armv6l.whl"), default=None)
    if debian_arch != "armhf" or wheel is None:
        pytest.skip("needs an armhf root and the linux_armv6l wheel in RILLET_WHEELS")
    target = ROOT / IN_ROOT.relative_to("/") / "armv6"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for path in [wheel, *WHEELS.glob("flatbuffers-*.whl")]:
        shutil.copy2(path, target / path.name)
    name = "cnn_small_int8"
    shutil.copy2(model_path(name), target / "model.tflite")
    np.save(target / "x.npy", golden(name)["x"])
    script = ("import numpy as np, rillet.native as n; from rillet.runtime import Interpreter; "
              "r = Interpreter(model_path='model.tflite').get_signature_runner(); "
              "(y,) = r(**{next(iter(r.get_input_details())): np.load('x.npy')}).values(); "
              "np.save('y.npy', y); print(n.kernel_path())")
    proc = in_root(f"cd {IN_ROOT}/armv6 && python3 $(ls /usr/share/python-wheels/pip-*.whl)/pip install -q --no-deps "
                   "--no-index --target site --platform linux_armv6l --only-binary=:all: *.whl && "
                   f"PYTHONPATH=site python3 -c \"{script}\"", "cortex-a7")
    assert proc.returncode == 0 and proc.stdout.strip().endswith("scalar"), proc.stdout + proc.stderr
    np.testing.assert_array_equal(np.load(target / "y.npy"), golden(name)["y"])
