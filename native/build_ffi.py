"""The cffi build of librillet: compiles native/ into rillet.native._librillet (API mode).

setup.py names this file in `cffi_modules`, so `pip install` compiles the library once; importing rillet
never compiles anything. The C declarations come from include/rillet.h, between its cffi markers.
"""

from __future__ import annotations

import glob
import os
import sys

from cffi import FFI

NATIVE_DIR = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(NATIVE_DIR, "include", "rillet.h")
WARNING_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror"]


def c_sources() -> list[str]:
    """Every C file of the library, relative to the repository root (setuptools wants relative paths)."""
    root = os.path.dirname(NATIVE_DIR)
    found = []
    for folder in ("src", "ops", "kernels"):
        found += sorted(glob.glob(os.path.join(NATIVE_DIR, folder, "*.c")))
    return [os.path.relpath(path, root) for path in found]


def api_declarations() -> str:
    with open(HEADER, encoding="utf-8") as f:
        text = f.read()
    start = text.index("/* cffi-begin */") + len("/* cffi-begin */")
    return text[start : text.index("/* cffi-end */")]


ffibuilder = FFI()
ffibuilder.cdef(api_declarations())
ffibuilder.set_source(
    "rillet.native._librillet",
    '#include "rillet.h"',
    sources=c_sources(),
    include_dirs=[os.path.join("native", "include"), os.path.join("native", "src")],
    extra_compile_args=WARNING_FLAGS + ["-O2"],
    libraries=["m", "pthread"] if sys.platform != "win32" else [],
)

if __name__ == "__main__":
    os.chdir(os.path.dirname(NATIVE_DIR))
    ffibuilder.compile(verbose=True)
