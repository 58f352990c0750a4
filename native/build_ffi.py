"""The cffi build of librillet: compiles native/ into rillet.native._librillet (API mode).

setup.py names this file in `cffi_modules`, so `pip install` compiles the library once; importing rillet
never compiles anything. The C declarations come from include/rillet.h, between its cffi markers. The
sources and each instruction-set file's flags come from build_config.py: baseline files go to cffi's
extension, ISA files are compiled first with their own flags and linked in as objects, so the library
still loads and runs on a CPU without AVX2.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig

from cffi import FFI

NATIVE_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(NATIVE_DIR)
sys.path.insert(0, NATIVE_DIR)
import build_config

HEADER = os.path.join(NATIVE_DIR, "include", "rillet.h")
COMPILE_FLAGS = build_config.WARNING_FLAGS + build_config.OPTIMIZE_FLAGS


def api_declarations() -> str:
    with open(HEADER, encoding="utf-8") as f:
        text = f.read()
    start = text.index("/* cffi-begin */") + len("/* cffi-begin */")
    return text[start : text.index("/* cffi-end */")]


def compiler() -> list[str]:
    return shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")


def compile_isa_objects(out_dir: str) -> list[str]:
    """Compiles every instruction-set file with its own flags; returns the object paths."""
    os.makedirs(out_dir, exist_ok=True)
    objects = []
    includes = [f"-I{d}" for d in build_config.INCLUDE_DIRS]
    for path in build_config.sources():
        if build_config.isa_of(path) is None:
            continue
        obj = os.path.join(out_dir, os.path.splitext(os.path.basename(path))[0] + ".o")
        command = [*compiler(), *COMPILE_FLAGS, "-fPIC", *build_config.flags_for(path), *includes, "-c", path, "-o", obj]
        subprocess.run(command, check=True)
        objects.append(obj)
    return objects


baseline = [os.path.relpath(p, ROOT) for p in build_config.sources() if build_config.isa_of(p) is None]
isa_objects = compile_isa_objects(os.path.join(ROOT, "build", "isa-objects"))

ffibuilder = FFI()
ffibuilder.cdef(api_declarations())
ffibuilder.set_source(
    "rillet.native._librillet",
    '#include "rillet.h"',
    sources=baseline,
    extra_objects=isa_objects,
    include_dirs=[os.path.relpath(d, ROOT) for d in build_config.INCLUDE_DIRS],
    extra_compile_args=COMPILE_FLAGS,
    libraries=["m", "pthread"] if sys.platform != "win32" else [],
)

if __name__ == "__main__":
    os.chdir(ROOT)
    ffibuilder.compile(verbose=True)
