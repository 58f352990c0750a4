"""Builds rillet's wheels: one per architecture (the host's, aarch64, armv7l, armv6l), each carrying a prebuilt
librillet and tagged `py3-none-<platform>`, with Debian's cross compilers; checks each one; and fetches the
pure-Python `flatbuffers` wheel beside them, so a deploy bundle installs offline.

    python tools/build_wheels.py [--arch aarch64 ...] [-o dist/] [--no-build-isolation]

Each wheel is built by `pip wheel` with RILLET_ARCH set (setup.py reads it), then checked: its WHEEL tags,
the library's ELF machine and word size, the glibc version it needs, and for armv6l the ARM attributes
(armv6, no Thumb-2: Debian's armhf runtime is armv7, see targets/devices.py). A missing cross compiler is
reported with the Debian package that provides it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_targets():
    """targets/ as the package `rillet_targets`, loaded from its files (setup.py loads devices.py the same
    way): the wheel checks live in targets/wheel.py, which `rillet deploy` runs on the wheels it builds, and
    rillet need not be installed to build its wheels."""
    spec = importlib.util.spec_from_file_location("rillet_targets", ROOT / "targets" / "__init__.py",
                                                  submodule_search_locations=[str(ROOT / "targets")])
    package = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = package  # dataclasses look their module up while the file executes
    spec.loader.exec_module(package)
    return importlib.import_module("rillet_targets.devices"), importlib.import_module("rillet_targets.wheel")


devices, wheels = load_targets()
WheelError = wheels.WheelError
check_wheel = wheels.check_wheel


def build_wheel(arch: str, out_dir: Path, isolation: bool) -> Path:
    """`pip wheel .` for one architecture; returns the wheel's path."""
    architecture = devices.ARCHITECTURES[arch]
    if not architecture.compiler_available():
        raise WheelError(f"{arch}: no {architecture.triple}-gcc (apt install {architecture.compiler_package} "
                         f"{architecture.libc_package})")
    # setup.py builds into build/<arch>; a file left there by an earlier build would be packed again.
    shutil.rmtree(ROOT / "build" / arch, ignore_errors=True)
    # pip keeps the build's own progress to itself unless it runs on a terminal (setup.py then writes there):
    # say at least what is being built and with what.
    compiler = architecture.compiler()[0] if architecture.compiler() else "the host's compiler"
    print(f"{arch}: building the wheel with {compiler} (pip wheel; a minute or two on 2 cores)", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--quiet", "-w", tmp]
        if not isolation:
            command.append("--no-build-isolation")
        result = subprocess.run(command, check=False, env={**os.environ, "RILLET_ARCH": arch},
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise WheelError(f"{arch}: pip wheel failed\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
        (built,) = Path(tmp).glob("rillet-*.whl")
        out_dir.mkdir(parents=True, exist_ok=True)
        return Path(shutil.move(str(built), out_dir / built.name))


def fetch_flatbuffers(out_dir: Path) -> Path:
    """The pure-Python flatbuffers wheel (Debian's python3-flatbuffers is older than rillet needs), once."""
    found = max(out_dir.glob("flatbuffers-*-none-any.whl"), default=None)
    if found:
        return found
    try:
        from importlib.metadata import version
        spec = f"flatbuffers=={version('flatbuffers')}"
    except ImportError:
        spec = "flatbuffers"
    subprocess.run([sys.executable, "-m", "pip", "download", spec, "--no-deps", "--only-binary=:all:", "--quiet",
                    "-d", str(out_dir)], check=True)
    return max(out_dir.glob("flatbuffers-*-none-any.whl"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arch", action="append", choices=sorted(devices.ARCHITECTURES),
                        help="build only this architecture (repeatable); default: the host's and every device's")
    parser.add_argument("-o", "--out", type=Path, default=ROOT / "dist", help="where the wheels go (default: dist/)")
    parser.add_argument("--no-build-isolation", action="store_true",
                        help="build with this environment's setuptools, wheel and cffi instead of fresh ones")
    args = parser.parse_args(argv)
    arches = args.arch or [a.name for a in devices.wheel_architectures()]
    failed = False
    for arch in arches:
        for old in args.out.glob(f"rillet-*-py3-none-{devices.ARCHITECTURES[arch].wheel_platform}.whl"):
            old.unlink()
        try:
            report = check_wheel(arch, build_wheel(arch, args.out, not args.no_build_isolation))
        except WheelError as e:
            print(f"build_wheels: {e}", file=sys.stderr)
            failed = True
            continue
        extra = f", {report['arm_attributes']}" if "arm_attributes" in report else ""
        print(f"{report['wheel']}: {report['wheel_kib']:.0f} KiB (installed {report['installed_kib']:.0f} KiB, "
              f"librillet {report['library_kib']:.0f} KiB), needs glibc >= {report['glibc']}{extra}")
    print(f"{fetch_flatbuffers(args.out).name}: pure Python, for offline installs")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
