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
import email.parser
import importlib.util
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = "rillet/native/librillet.so"
BINDING = "rillet/native/_librillet.py"
# ELF e_machine and word size per architecture.
ELF_MACHINES = {"x86_64": (62, 64), "aarch64": (183, 64), "armv7l": (40, 32), "armv6l": (40, 32)}


def load_devices():
    spec = importlib.util.spec_from_file_location("rillet_devices", ROOT / "targets" / "devices.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


devices = load_devices()


class WheelError(Exception):
    pass


def build_wheel(arch: str, out_dir: Path, isolation: bool) -> Path:
    """`pip wheel .` for one architecture; returns the wheel's path."""
    architecture = devices.ARCHITECTURES[arch]
    if not architecture.compiler_available():
        raise WheelError(f"{arch}: no {architecture.triple}-gcc (apt install {architecture.compiler_package})")
    # setup.py builds into build/<arch>; a file left there by an earlier build would be packed again.
    shutil.rmtree(ROOT / "build" / arch, ignore_errors=True)
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


def wheel_tags(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))
        return email.parser.Parser().parsestr(z.read(name).decode()).get_all("Tag")


def glibc_floor(library: bytes) -> str:
    """The newest GLIBC_x.y symbol version the library references (what the device's libc must offer)."""
    versions = {tuple(map(int, v.split("."))) for v in re.findall(rb"GLIBC_(\d+\.\d+(?:\.\d+)?)\x00", library)
                for v in [v.decode()]}
    return ".".join(map(str, max(versions))) if versions else "none"


def check_arm_attributes(arch: str, library: bytes) -> str:
    """armv6l: the merged ELF attributes must say armv6 and at most Thumb-1 (an ARM1176 has no Thumb-2)."""
    architecture = devices.ARCHITECTURES[arch]
    readelf = shutil.which(f"{architecture.triple}-readelf") or shutil.which("readelf")
    with tempfile.NamedTemporaryFile(suffix=".so") as f:
        f.write(library)
        f.flush()
        text = subprocess.run([readelf, "-A", f.name], capture_output=True, text=True, check=True).stdout
    cpu = re.search(r"Tag_CPU_arch: (\S+)", text)
    thumb = re.search(r"Tag_THUMB_ISA_use: (\S+)", text)
    found = f"{cpu.group(1) if cpu else '?'}, {thumb.group(1) if thumb else 'no Thumb'}"
    if arch == "armv6l" and (not cpu or not cpu.group(1).startswith("v6") or (thumb and thumb.group(1) != "Thumb-1")):
        raise WheelError(f"armv6l: librillet.so is {found}, which an ARM1176 cannot run")
    return found


def check_wheel(arch: str, wheel: Path) -> dict[str, object]:
    """What a device's pip and loader will see; WheelError on anything wrong."""
    platform = devices.ARCHITECTURES[arch].wheel_platform
    tags = wheel_tags(wheel)
    if tags != [f"py3-none-{platform}"]:
        raise WheelError(f"{wheel.name}: tags {tags}, expected py3-none-{platform}")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        missing = {LIBRARY, BINDING} - names
        if missing:
            raise WheelError(f"{wheel.name}: missing {', '.join(sorted(missing))}")
        library = z.read(LIBRARY)
        installed_bytes = sum(i.file_size for i in z.infolist())
    word = {1: 32, 2: 64}[library[4]]
    machine = struct.unpack_from("<H", library, 18)[0]
    if (machine, word) != ELF_MACHINES[arch]:
        raise WheelError(f"{wheel.name}: librillet.so is ELF machine {machine}, {word}-bit, expected {ELF_MACHINES[arch]}")
    report = {"wheel": wheel.name, "tags": tags, "wheel_kib": wheel.stat().st_size / 1024,
              "installed_kib": installed_bytes / 1024, "library_kib": len(library) / 1024,
              "glibc": glibc_floor(library)}
    if arch.startswith("arm"):
        report["arm_attributes"] = check_arm_attributes(arch, library)
    return report


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
