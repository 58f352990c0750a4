"""Builds librillet as a plain shared library (`librillet.so`) and its cffi binding in out-of-line ABI mode.

The binding (`_librillet.py`) is pure Python: the C declarations of include/rillet.h (between its cffi
markers), parsed once here and stored pre-digested, so importing rillet parses nothing and compiles
nothing; `rillet.native` opens the library with `ffi.dlopen`. Nothing in either file depends on the Python
version, so one wheel per architecture serves every CPython, and a cross compiler builds the library for
another architecture without that architecture's Python headers.

The sources and each instruction-set file's flags come from build_config.py; a target adds its own flags
(`-march=...`, from rillet.targets.devices) before each file's ISA flags, so a kernel file's own `-march`
wins. setup.py calls `build_library`, `build_static_library` (librillet.a, for apps in C that link rillet
statically: the same objects) and `write_binding`; tools/build_wheels.py does the same per target.

Where Python's headers are (a build on the machine itself), setup.py also compiles `_librillet_api`, a small
API-mode extension on the stable ABI (one file for every CPython 3) that links to librillet.so and calls it
directly: libffi's generic call path costs about 0.3 us more per C call, a third of a small model's invoke.
rillet.native uses it when it imports and the ABI binding otherwise (cross-built wheels, PyPy).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed

from cffi import FFI

NATIVE_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, NATIVE_DIR)
import build_config  # a sibling file, importable before rillet is installed

HEADER = os.path.join(NATIVE_DIR, "include", "rillet.h")
LIBRARY_FILE = "librillet.so"
STATIC_LIBRARY_FILE = "librillet.a"  # in lib/ beside the package's include/rillet.h
BINDING_MODULE = "rillet.native._librillet"
BINDING_FILE = "_librillet.py"
API_MODULE = "rillet.native._librillet_api"
# -DNDEBUG as the Python-extension build had it.
# RILLET_WERROR=1 (CI sets it) makes the installed library's own build fail on a warning too.
COMPILE_FLAGS = [*(build_config.WARNING_FLAGS if os.environ.get("RILLET_WERROR") == "1"
                   else build_config.INSTALL_WARNING_FLAGS), *build_config.OPTIMIZE_FLAGS, "-DNDEBUG", "-fPIC"]
# -Bsymbolic binds the library's calls and function-pointer tables to its own functions at link time: loaded
# with default visibility, each was a symbol the dynamic loader looked up through the process's scope at every
# start (~770 relocations, ~0.55M instructions of `import rillet.native` on x86); now they are relative ones.
LINK_FLAGS = ["-shared", "-Wl,-Bsymbolic"]
LIBRARIES = ["-lm", "-lpthread"]


def api_declarations() -> str:
    with open(HEADER, encoding="utf-8") as f:
        text = f.read()
    start = text.index("/* cffi-begin */") + len("/* cffi-begin */")
    return text[start : text.index("/* cffi-end */")]


def write_binding(path: str) -> str:
    """Writes the pure-Python binding module (the parsed declarations; no library path in it)."""
    ffibuilder = FFI()
    ffibuilder.cdef(api_declarations())
    ffibuilder.set_source(BINDING_MODULE, None)
    ffibuilder.emit_python_code(path)
    return path


def build_api_extension(package_dir: str, build_dir: str) -> str:
    """Compiles `_librillet_api` into `package_dir`, beside the librillet.so it links to (found through
    $ORIGIN at import). Needs this Python's headers and a host build of the library."""
    ffibuilder = FFI()
    ffibuilder.cdef(api_declarations())
    ffibuilder.set_source(API_MODULE, '#include "rillet.h"', include_dirs=[os.path.join(NATIVE_DIR, "include")],
                          libraries=["rillet"], library_dirs=[os.path.abspath(package_dir)],
                          extra_link_args=["-Wl,-rpath,$ORIGIN", "-s"], py_limited_api=True)
    built = ffibuilder.compile(tmpdir=build_dir)
    target = os.path.join(package_dir, os.path.basename(built))
    shutil.copyfile(built, f"{target}.partial")
    os.replace(f"{target}.partial", target)  # as build_library does, for processes that have it loaded
    return target


def host_compiler() -> list[str]:
    return shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")


def object_is_current(obj: str, command: list[str]) -> bool:
    """Whether `obj` was compiled by this same command and is newer than its source and every header it
    included (the compiler's -MMD list): a rebuild after a change compiles only what the change reaches."""
    try:
        with open(obj + ".cmd", encoding="utf-8") as f:
            if f.read() != shlex.join(command):
                return False
        with open(obj + ".d", encoding="utf-8") as f:
            deps = f.read().replace("\\\n", " ").split(":", 1)[1].split()
        built = os.path.getmtime(obj)
        return all(os.path.getmtime(dep) <= built for dep in deps)
    except (OSError, IndexError):
        return False


def build_jobs() -> int:
    """How many files compile at once: $RILLET_BUILD_JOBS, else one per core this process may use."""
    if os.environ.get("RILLET_BUILD_JOBS", "").isdigit() and int(os.environ["RILLET_BUILD_JOBS"]) > 0:
        return int(os.environ["RILLET_BUILD_JOBS"])
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def compile_objects(build_dir: str, *, compiler: list[str] | None = None, arch: str | None = None,
                    target_flags: tuple[str, ...] = (), emulate_avx512: bool = False,
                    progress: Callable[[int, int, str], None] | None = None) -> list[str]:
    """Compiles every source `arch` builds (default: the host's) into `build_dir`, `build_jobs()` files at a
    time, skipping the objects that are current; returns the objects, in source order. The shared and the
    static library link the same ones. `progress(done, total, source)` is called as each file is compiled (or
    found current). RuntimeError naming the file, with the compiler's command and message, when one fails, or
    when there are no sources (a rillet installed from a prebuilt wheel has none)."""
    compiler = compiler or host_compiler()
    arch = arch or build_config.host_arch()
    os.makedirs(build_dir, exist_ok=True)
    includes = [f"-I{d}" for d in build_config.INCLUDE_DIRS]

    def compile_one(source: str) -> str:
        obj = os.path.join(build_dir, os.path.splitext(os.path.basename(source))[0] + ".o")
        emulation = [build_config.EMULATED_AVX512_DEFINE] if emulate_avx512 else []
        command = [*compiler, *COMPILE_FLAGS, *target_flags, *emulation,
                   *build_config.flags_for(source, emulate_avx512=emulate_avx512), *includes,
                   "-MMD", "-MF", obj + ".d", "-c", source, "-o", obj]
        if object_is_current(obj, command):
            return obj
        result = subprocess.run(command, check=False, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"compiling {os.path.relpath(source, NATIVE_DIR)} failed:\n"
                               f"{shlex.join(command)}\n{result.stderr}")
        with open(obj + ".cmd", "w", encoding="utf-8") as f:
            f.write(shlex.join(command))
        return obj

    sources = build_config.sources(arch)
    if not sources:
        raise RuntimeError(f"no C sources for {arch} in {NATIVE_DIR}: this rillet was installed without them")
    # Threads suffice: each waits on its compiler process.
    with ThreadPoolExecutor(max_workers=build_jobs()) as pool:
        futures = {pool.submit(compile_one, source): source for source in sources}
        for done, future in enumerate(as_completed(futures), 1):
            future.result()  # a failed file fails the build here, naming itself
            if progress is not None:
                progress(done, len(sources), futures[future])
        return [future.result() for future in futures]  # in source order: a reproducible link


def build_library(out_path: str, build_dir: str, *, compiler: list[str] | None = None, arch: str | None = None,
                  target_flags: tuple[str, ...] = (), link_flags: tuple[str, ...] = (),
                  emulate_avx512: bool = False, progress: Callable[[int, int, str], None] | None = None) -> str:
    """Compiles every source `arch` builds (default: the host's) and links them into `out_path`.

    `compiler` defaults to $CC or the compiler Python was built with; `target_flags` go on every file,
    before the file's own ISA flags; `link_flags` after the objects (e.g. how libgcc is linked);
    `emulate_avx512`: build_config's emulated AVX-512 build, for the tests; `progress` as compile_objects
    takes it. RuntimeError with the command and its message when a file fails to compile or the link fails."""
    compiler = compiler or host_compiler()
    objects = compile_objects(build_dir, compiler=compiler, arch=arch, target_flags=target_flags,
                              emulate_avx512=emulate_avx512, progress=progress)
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    strip = [] if "-g" in target_flags else ["-s"]  # keep a debug build's symbols, else only the exported ones
    # Linked beside and renamed over the old file: a process that has the old one mapped keeps its copy
    # (writing into a mapped library crashes it).
    partial = f"{out_path}.partial"
    command = [*compiler, *target_flags, *LINK_FLAGS, *strip, "-o", partial, *objects, *link_flags, *LIBRARIES]
    result = subprocess.run(command, check=False, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"linking {LIBRARY_FILE} failed:\n{shlex.join(command)}\n{result.stderr}")
    os.replace(partial, out_path)
    return out_path


def archiver(compiler: list[str]) -> list[str]:
    """The `ar` that goes with `compiler`: $AR, else a cross compiler's own (aarch64-linux-gnu-gcc ->
    aarch64-linux-gnu-ar, from the same binutils), else the host's."""
    if os.environ.get("AR"):
        return shlex.split(os.environ["AR"])
    name = os.path.basename(compiler[0]) if compiler else ""
    if name.endswith("-gcc"):
        cross = shutil.which(name[: -len("gcc")] + "ar")
        if cross:
            return [cross]
    return ["ar"]


def build_static_library(out_path: str, build_dir: str, *, compiler: list[str] | None = None,
                         arch: str | None = None, target_flags: tuple[str, ...] = ()) -> str:
    """`librillet.a` for a C app that links rillet into its own binary (then with -lm -lpthread): the same
    objects as build_library's (-fPIC, so the archive also links into another shared library), in one archive.
    Only rillet.h's functions are the API; the other global symbols (rl_*) are internal."""
    compiler = compiler or host_compiler()
    objects = compile_objects(build_dir, compiler=compiler, arch=arch, target_flags=target_flags)
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    partial = f"{out_path}.partial"
    if os.path.exists(partial):
        os.remove(partial)  # ar adds to an archive that exists
    command = [*archiver(compiler), "rcs", partial, *objects]
    result = subprocess.run(command, check=False, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"archiving {STATIC_LIBRARY_FILE} failed:\n{shlex.join(command)}\n{result.stderr}")
    os.replace(partial, out_path)
    return out_path


def progress_printer(what: str, *, to_terminal: bool = True) -> Callable[[int, int, str], None]:
    """A `progress` for build_library that a person sees: a line at the start saying how many files and how
    many at a time, then one at every tenth of them, on stderr. pip shows a build's output only with `-v`, so
    when stderr is not a terminal but the process has one (`pip install .` typed at a shell), the lines also
    go to the terminal itself (/dev/tty), which pip leaves alone (`to_terminal=False`: stderr only)."""
    try:
        terminal = (None if sys.stderr.isatty() or not to_terminal
                    else open("/dev/tty", "w", encoding="utf-8"))  # noqa: SIM115
    except OSError:  # no controlling terminal: CI, a service, a pipe
        terminal = None
    last_tenth = -1

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)
        if terminal is not None:
            terminal.write(f"\n{line}")  # pip's spinner holds the current line: ours start on a fresh one
            terminal.flush()

    def progress(done: int, total: int, source: str) -> None:
        nonlocal last_tenth
        if last_tenth < 0:
            say(f"{what}: compiling {total} C files, {build_jobs()} at a time (RILLET_BUILD_JOBS=N to change)")
        tenth = done * 10 // total
        if tenth > last_tenth:
            last_tenth = tenth
            say(f"{what}: {done}/{total} files compiled" + ("; linking" if done == total else ""))
        if done == total and terminal is not None:
            terminal.write("\n")
            terminal.close()

    return progress
