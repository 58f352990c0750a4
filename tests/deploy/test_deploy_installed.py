"""`rillet deploy` from rillet installed by pip, with no checkout and no tools/: it makes the target's wheel itself
from the C sources the installed package carries (Debian's cross compiler), or takes the wheel `--wheel` names.

The end-to-end case installs this checkout into a fresh virtual environment (not editable), then runs deploy
from / so nothing of the checkout can be found; it takes a few minutes on 2 cores (two builds of librillet).
tests/deploy/test_emulated.py runs such a wheel on emulated boards when CI sets its root up."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from rillet.cli import main
from rillet.targets import wheel as wheels
from rillet.targets.devices import ARCHITECTURES, DEVICES

from support import model_path

ROOT = Path(__file__).resolve().parents[2]
AARCH64 = ARCHITECTURES["aarch64"]


def test_the_wheel_builder_packs_every_package_pyproject_installs():
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("needs rillet's checkout (pyproject.toml)")
    tomllib = pytest.importorskip("tomllib", reason="needs Python 3.11's tomllib to read pyproject.toml")
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    assert sorted(wheels.PACKAGES) == sorted(packages)


def test_a_missing_cross_compiler_names_the_debian_packages(monkeypatch):
    monkeypatch.setattr(wheels.shutil, "which", lambda name: None)
    message = wheels.missing_tools(AARCH64)
    assert message == ("no aarch64-linux-gnu-gcc to build librillet for aarch64: `sudo apt install "
                       "gcc-aarch64-linux-gnu libc6-dev-arm64-cross` (Debian, Ubuntu)")
    assert wheels.missing_tools(ARCHITECTURES["armv6l"]).endswith(
        "`sudo apt install gcc-arm-linux-gnueabihf libc6-dev-armhf-cross` (Debian, Ubuntu)")


def test_deploy_without_a_compiler_or_wheel_says_what_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no dist/ here
    monkeypatch.setenv("RILLET_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(wheels.shutil, "which", lambda name: None)
    assert main(["deploy", "--target", "rpi4", str(model_path("mlp_f32")), "-o", str(tmp_path / "b")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == ("rillet deploy: no aarch64-linux-gnu-gcc to build librillet for aarch64: `sudo apt install "
                       "gcc-aarch64-linux-gnu libc6-dev-arm64-cross` (Debian, Ubuntu); or give a prebuilt wheel "
                       "with --wheel PATH")
    assert not (tmp_path / "b").exists()


def test_wheel_names_the_platform_it_needs(tmp_path, capsys):
    other = tmp_path / "rillet-0.1.0-py3-none-linux_armv7l.whl"
    zipfile.ZipFile(other, "w").close()
    cases = [(other, "is for linux_armv7l: --target rpi4 needs rillet-*-py3-none-linux_aarch64.whl"),
             (tmp_path / "none.whl", "none.whl: no such file")]
    for path, message in cases:
        assert main(["deploy", "--target", "rpi4", str(model_path("mlp_f32")), "-o", str(tmp_path / "b"),
                     "--wheel", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err


def test_wheel_given_is_bundled_with_flatbuffers_packed_from_this_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("RILLET_CACHE_DIR", str(tmp_path / "cache"))
    given = tmp_path / "mine" / "rillet-0.1.0-py3-none-linux_aarch64.whl"
    given.parent.mkdir()
    zipfile.ZipFile(given, "w").close()
    out = tmp_path / "b"
    assert main(["deploy", "--target", "rpi5", str(model_path("mlp_f32")), "-o", str(out), "--wheel", str(given)]) == 0
    (flatbuffers,) = (out / "wheels").glob("flatbuffers-*-py3-none-any.whl")
    assert (out / "wheels" / given.name).read_bytes() == given.read_bytes()
    with zipfile.ZipFile(flatbuffers) as z:
        names = z.namelist()
        assert "flatbuffers/builder.py" in names and z.testzip() is None
        record = z.read(next(n for n in names if n.endswith(".dist-info/RECORD"))).decode()
    assert all(line.split(",")[0] in names for line in record.splitlines())
    assert "install.sh" in os.listdir(out) and DEVICES["rpi5"].wheel_platform == "linux_aarch64"


@pytest.mark.skipif(not (ROOT / "pyproject.toml").is_file(), reason="needs rillet's checkout to install from")
def test_deploy_from_a_pip_installed_rillet_builds_the_aarch64_wheel_itself(tmp_path):
    """The issue's case: `pip install .` into a fresh environment, then `rillet deploy --target rpi4` run from /,
    with no dist/ anywhere: deploy cross-compiles librillet from the installed sources, prints its progress,
    and the bundle holds a checked linux_aarch64 wheel (no C sources in it)."""
    if missing := wheels.missing_tools(AARCH64):
        pytest.skip(missing)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # The dependencies come from this environment (a .pth line), so the install needs no network but pip's
    # build requirements; rillet itself is built from the checkout, non-editable.
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "outer.pth").write_text(next(p for p in sys.path if p.endswith("site-packages")) + "\n")
    install = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--quiet", str(ROOT)],
                             capture_output=True, text=True, cwd="/", check=False)
    assert install.returncode == 0, install.stderr[-3000:]
    env = {**os.environ, "RILLET_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("PYTHONPATH", None)
    script = "import rillet, rillet.native as n; print(rillet.__file__, n.__file__)"
    installed = subprocess.run([str(python), "-c", script], capture_output=True, text=True, cwd="/", env=env,
                               check=True).stdout
    assert str(ROOT) not in installed and str(site) in installed, installed
    out = tmp_path / "bundle"
    proc = subprocess.run([str(venv / "bin" / "rillet"), "deploy", "--target", "rpi4",
                           str(model_path("cnn_small_int8")), "-o", str(out)],
                          capture_output=True, text=True, cwd="/", env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "building it from this rillet's C sources with aarch64-linux-gnu-gcc" in proc.stderr
    progress = [line for line in proc.stderr.splitlines() if "C files compiled" in line]
    assert len(progress) >= 5 and progress[-1].endswith("; linking"), proc.stderr
    (built,) = (out / "wheels").glob("rillet-*-py3-none-linux_aarch64.whl")
    report = wheels.check_wheel("aarch64", built)
    assert report["tags"] == ["py3-none-linux_aarch64"]
    with zipfile.ZipFile(built) as z:
        names = z.namelist()
    # The library's sources stay out; the public header, librillet.a and the C example are in, for apps in C.
    public = {"rillet/native/include/rillet.h", "rillet/targets/c_example/classify.c"}
    assert not [n for n in names if n.endswith((".c", ".h")) and n not in public]
    assert {"rillet/runtime/interpreter.py", "rillet/targets/bundle_run.py", "rillet/data/digits.tflite",
            "rillet/native/_librillet.py", "rillet/native/librillet.so", "rillet/native/lib/librillet.a",
            *public} <= set(names)
    assert not [n for n in names if "_librillet_api" in n]  # the host's extension stays on the host
    assert (out / "install.sh").is_file() and list((out / "wheels").glob("flatbuffers-*-none-any.whl"))
    # `--c` from the same installation: the C bundle takes the wheel deploy built (relinked from its objects).
    c_out = tmp_path / "cbundle"
    proc = subprocess.run([str(venv / "bin" / "rillet"), "deploy", "--c", "--target", "rpi4",
                           str(model_path("cnn_small_int8")), "-o", str(c_out)],
                          capture_output=True, text=True, cwd="/", env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    static = (c_out / "lib" / "librillet.a").read_bytes()
    assert wheels.first_archive_member_machine(static) == 183  # aarch64
    assert (c_out / "include" / "rillet.h").is_file() and (c_out / "classify.c").is_file()
