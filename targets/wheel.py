"""A device's rillet wheel made from the installed rillet itself, so `rillet deploy` needs no checkout: librillet
cross-compiled from the C sources the package carries (`pip install .` and the sdist keep them) with Debian's
cross compiler, beside the package's Python files; and the pure-Python flatbuffers wheel repacked from the
installed flatbuffers. tools/build_wheels.py makes the same wheels from a checkout through `pip wheel`; both
are checked by `check_wheel` (tags, the library's ELF machine, the glibc it needs).

Compiled objects are kept per architecture in the cache folder (`cache_dir()`), so a second deploy to the same
architecture only links.
"""

from __future__ import annotations

import base64
import contextlib
import email.parser
import hashlib
import importlib.metadata
import importlib.util
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from .devices import ARCHITECTURES, Architecture

__all__ = ["PACKAGES", "WheelError", "build_target_wheel", "cache_dir", "check_arm_attributes", "check_wheel",
           "first_archive_member_machine", "glibc_floor", "missing_tools", "native_sources_missing", "package_dir", "package_files", "print_progress",
           "repack_installed_wheel", "wheel_platform_of", "wheel_tags", "write_wheel"]

PACKAGES = ("rillet", "rillet.commands", "rillet.converter", "rillet.converter.format", "rillet.native",
            "rillet.runtime", "rillet.graph", "rillet.graph.ops", "rillet.targets", "rillet.quant")
"""pyproject.toml's packages: each one's own files go into the wheel (a test checks the two lists agree)."""
LIBRARY = "rillet/native/librillet.so"
BINDING = "rillet/native/_librillet.py"
# For apps in C (rillet.h's API; `rillet deploy --c` takes them from the wheel): the static library and the header.
STATIC_LIBRARY = "rillet/native/lib/librillet.a"
HEADER = "rillet/native/include/rillet.h"
# `rillet deploy --c` puts it in its bundle; setup.py packs examples/c/classify.c there.
C_EXAMPLE = "rillet/targets/c_example/classify.c"
# ELF e_machine and word size per architecture.
ELF_MACHINES = {"x86_64": (62, 64), "aarch64": (183, 64), "armv7l": (40, 32), "armv6l": (40, 32)}
# Built on the host for the host, never packed into another architecture's wheel.
HOST_ONLY = re.compile(r"(librillet\.so|_librillet\.py|_librillet_api\..*\.so)$")


class WheelError(Exception):
    """A wheel that cannot be made or is wrong; the message names the architecture, the file or the missing
    tool (and the Debian package that provides it)."""


def cache_dir() -> Path:
    """Where built objects and wheels are kept: $RILLET_CACHE_DIR, else $XDG_CACHE_HOME/rillet, else
    ~/.cache/rillet."""
    if os.environ.get("RILLET_CACHE_DIR"):
        return Path(os.environ["RILLET_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rillet"


def package_dir(name: str) -> Path:
    """The folder an installed (or editable) rillet package's files are in."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise WheelError(f"{name} is not an installed package")
    return Path(next(iter(spec.submodule_search_locations)))


def missing_tools(arch: Architecture) -> str | None:
    """What this machine lacks to build `arch`'s library (an apt command naming the packages), else None."""
    if arch.compiler_available():
        return None
    return (f"no {arch.triple}-gcc to build librillet for {arch.name}: `sudo apt install {arch.compiler_package} "
            f"{arch.libc_package}` (Debian, Ubuntu)")


def native_sources_missing(arch: Architecture) -> str | None:
    """Why the installed package cannot build `arch`'s library from source (it has no C sources: a prebuilt
    wheel leaves them out), else None."""
    from rillet.native import build_config

    if build_config.sources(arch.name):
        return None
    return (f"this rillet ({package_dir('rillet.native')}) was installed from a prebuilt wheel, which carries no "
            "C sources: install rillet from its sdist or checkout (`pip install .`), or give a wheel with --wheel")


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(path: Path, files: dict[str, bytes], dist_info: str) -> Path:
    """A wheel at `path` holding `files` (archive name -> bytes; `dist_info`/RECORD is added)."""
    record = [f"{name},{_record_hash(data)},{len(data)}" for name, data in files.items()]
    record.append(f"{dist_info}/RECORD,,")
    partial = path.with_name(path.name + ".partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
        z.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    os.replace(partial, path)
    return path


def package_files() -> dict[str, bytes]:
    """The installed rillet's Python files and package data, as a wheel names them (no C sources, no host
    library, no bytecode)."""
    files: dict[str, bytes] = {}
    for name in PACKAGES:
        folder = package_dir(name)
        prefix = name.replace(".", "/")
        for f in sorted(folder.iterdir()):
            if f.is_file() and (f.suffix == ".py" or f.name == "py.typed") and not HOST_ONLY.search(f.name):
                files[f"{prefix}/{f.name}"] = f.read_bytes()
    for f in sorted((package_dir("rillet") / "data").glob("*")):
        if f.is_file():
            files[f"rillet/data/{f.name}"] = f.read_bytes()
    files[HEADER] = (package_dir("rillet.native") / "include" / "rillet.h").read_bytes()
    targets = package_dir("rillet.targets")
    for example in (targets / "c_example" / "classify.c", targets.parent / "examples" / "c" / "classify.c"):
        if example.is_file():  # installed: beside targets; editable: the checkout's examples/
            files[C_EXAMPLE] = example.read_bytes()
            break
    return files


def build_target_wheel(arch_name: str, out_dir: Path, *,
                       progress: Callable[[int, int, str], None] | None = None) -> Path:
    """Cross-compiles librillet for `arch_name` (a key of ARCHITECTURES) from the installed sources and writes
    `rillet-VERSION-py3-none-PLATFORM.whl` into `out_dir`, checked by `check_wheel`. `progress(done, total,
    source)` follows the compile. WheelError when the compiler or the C sources are missing, or the build or
    the check fails."""
    arch = ARCHITECTURES[arch_name]
    for problem in (missing_tools(arch), native_sources_missing(arch)):
        if problem:
            raise WheelError(problem)
    from rillet.native import build_ffi

    distribution = importlib.metadata.distribution("rillet")
    version = distribution.version
    build_dir = cache_dir() / "build" / f"{version}-{arch.name}"
    files = package_files()
    with tempfile.TemporaryDirectory() as tmp:
        library = os.path.join(tmp, "librillet.so")
        static = os.path.join(tmp, "librillet.a")
        try:
            build_ffi.build_library(library, str(build_dir), compiler=arch.compiler(), arch=arch.name,
                                    target_flags=arch.cflags, link_flags=arch.link_flags, progress=progress)
            build_ffi.build_static_library(static, str(build_dir), compiler=arch.compiler(), arch=arch.name,
                                           target_flags=arch.cflags)  # the same objects, archived
        except (RuntimeError, OSError) as e:
            raise WheelError(f"{arch.name}: building librillet failed: {e}") from e
        with contextlib.redirect_stdout(io.StringIO()):  # cffi says "generating ..." for a file in a temp folder
            binding = build_ffi.write_binding(os.path.join(tmp, "_librillet.py"))
        files[LIBRARY] = Path(library).read_bytes()
        files[STATIC_LIBRARY] = Path(static).read_bytes()
        files[BINDING] = Path(binding).read_bytes()
    dist_info = f"rillet-{version}.dist-info"
    files[f"{dist_info}/METADATA"] = (distribution.read_text("METADATA") or "").encode()
    files[f"{dist_info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: rillet.targets.wheel\nRoot-Is-Purelib: false\n"
                                   f"Tag: py3-none-{arch.wheel_platform}\n").encode()
    entry_points = distribution.read_text("entry_points.txt")
    if entry_points:
        files[f"{dist_info}/entry_points.txt"] = entry_points.encode()
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = write_wheel(out_dir / f"rillet-{version}-py3-none-{arch.wheel_platform}.whl", files, dist_info)
    check_wheel(arch.name, wheel)
    return wheel


def repack_installed_wheel(name: str, out_dir: Path) -> Path:
    """A pure-Python distribution installed here (flatbuffers) as a `py3-none-any` wheel in `out_dir`, made
    from the files its RECORD lists: a deploy bundle installs it offline on the device. WheelError when it is
    not installed or not pure Python."""
    try:
        distribution = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError as e:
        raise WheelError(f"{name} is not installed here, so it cannot be packed for the device") from e
    version = distribution.version
    normalized = re.sub(r"[-_.]+", "_", distribution.metadata["Name"])
    dist_info = f"{normalized}-{version}.dist-info"
    files: dict[str, bytes] = {}
    for entry in distribution.files or []:
        parts = entry.parts
        if parts[0].endswith(".dist-info"):
            if parts[-1] in ("METADATA", "LICENSE", "LICENSE.txt", "top_level.txt"):
                files[f"{dist_info}/{parts[-1]}"] = entry.read_binary()
            continue
        if ".." in parts or "__pycache__" in parts or entry.suffix in (".pyc", ".so", ".pyd"):
            if entry.suffix in (".so", ".pyd"):
                raise WheelError(f"{name} {version} is not pure Python ({entry}): it cannot go to another device")
            continue
        files["/".join(parts)] = entry.read_binary()
    if not any(n.endswith(".py") for n in files):
        raise WheelError(f"{name} {version}: no Python files found in its installation record")
    files[f"{dist_info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: rillet.targets.wheel\nRoot-Is-Purelib: true\n"
                                   b"Tag: py3-none-any\n")
    out_dir.mkdir(parents=True, exist_ok=True)
    return write_wheel(out_dir / f"{normalized}-{version}-py3-none-any.whl", files, dist_info)


def wheel_tags(wheel: Path) -> list[str]:
    """The Tag lines of a wheel's WHEEL file."""
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))
        return email.parser.Parser().parsestr(z.read(name).decode()).get_all("Tag")


def glibc_floor(library: bytes) -> str:
    """The newest GLIBC_x.y symbol version the library references (what the device's libc must offer)."""
    versions = {tuple(map(int, v.split("."))) for v in re.findall(rb"GLIBC_(\d+\.\d+(?:\.\d+)?)\x00", library)
                for v in [v.decode()]}
    return ".".join(map(str, max(versions))) if versions else "none"


def check_arm_attributes(arch: str, library: bytes) -> str:
    """armv6l: the merged ELF attributes must say armv6 and at most Thumb-1 (an ARM1176 has no Thumb-2).
    Returns what readelf found; WheelError when an armv6l library breaks that."""
    architecture = ARCHITECTURES[arch]
    readelf = shutil.which(f"{architecture.triple}-readelf") or shutil.which("readelf")
    if readelf is None:
        return "not checked (no readelf)"
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
    """What a device's pip and loader will see in `wheel`, built for `arch`: its tags, sizes, the glibc it
    needs (and the ARM attributes); WheelError on a wrong tag, a missing library, binding or header, or a
    library (shared or static) of another machine."""
    platform = ARCHITECTURES[arch].wheel_platform
    tags = wheel_tags(wheel)
    if tags != [f"py3-none-{platform}"]:
        raise WheelError(f"{wheel.name}: tags {tags}, expected py3-none-{platform}")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        missing = {LIBRARY, BINDING, STATIC_LIBRARY, HEADER} - names
        if missing:
            raise WheelError(f"{wheel.name}: missing {', '.join(sorted(missing))}")
        library = z.read(LIBRARY)
        static_machine = first_archive_member_machine(z.read(STATIC_LIBRARY))
        installed_bytes = sum(i.file_size for i in z.infolist())
    word = {1: 32, 2: 64}[library[4]]
    machine = struct.unpack_from("<H", library, 18)[0]
    if (machine, word) != ELF_MACHINES[arch]:
        raise WheelError(f"{wheel.name}: librillet.so is ELF machine {machine}, {word}-bit, "
                         f"expected {ELF_MACHINES[arch]}")
    if static_machine != ELF_MACHINES[arch][0]:
        raise WheelError(f"{wheel.name}: librillet.a holds objects for ELF machine {static_machine}, expected "
                         f"{ELF_MACHINES[arch][0]}")
    report = {"wheel": wheel.name, "tags": tags, "wheel_kib": wheel.stat().st_size / 1024,
              "installed_kib": installed_bytes / 1024, "library_kib": len(library) / 1024,
              "glibc": glibc_floor(library)}
    if arch.startswith("arm"):
        report["arm_attributes"] = check_arm_attributes(arch, library)
    return report


def first_archive_member_machine(archive: bytes) -> int | None:
    """The ELF machine of the first object in an `ar` archive (skipping its symbol and name tables); None for
    anything else."""
    if not archive.startswith(b"!<arch>\n"):
        return None
    pos = 8
    while pos + 60 <= len(archive):
        size = int(archive[pos + 48:pos + 58].decode().strip())
        data = archive[pos + 60:pos + 60 + size]
        if data[:4] == b"\x7fELF":
            return struct.unpack_from("<H", data, 18)[0]
        pos += 60 + size + (size & 1)
    return None


def wheel_platform_of(wheel: Path) -> str | None:
    """The platform tag in a rillet wheel's file name (`linux_aarch64`), or None for another name."""
    match = re.fullmatch(r"rillet-[^-]+-py3-none-(\w+)\.whl", wheel.name)
    return match.group(1) if match else None


def print_progress(what: str, stream=sys.stderr) -> Callable[[int, int, str], None]:
    """A `progress` for build_target_wheel: a line at the start and at every tenth of the files."""
    last = -1

    def progress(done: int, total: int, source: str) -> None:
        nonlocal last
        tenth = done * 10 // total
        if tenth > last:
            last = tenth
            print(f"{what}: {done}/{total} C files compiled" + ("; linking" if done == total else ""),
                  file=stream, flush=True)

    return progress
