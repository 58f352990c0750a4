"""Builds librillet once more under AddressSanitizer and UBSan, into build/sanitized/librillet.so, for the
sanitizer job of .ci/run (native/tests/run_sanitized_tests.sh): the same sources and per-file flags as the
installed library (build_ffi.build_library), at -O1 with frame pointers and debug lines, UBSan fatal."""

from __future__ import annotations

import os
import sys

NATIVE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, NATIVE_DIR)
import build_ffi

SANITIZE = ("-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer", "-g",
            "-O1")


def main() -> int:
    root = os.path.dirname(NATIVE_DIR)
    out = os.path.join(root, "build", "sanitized", "librillet.so")
    build_ffi.build_library(out, os.path.join(root, "build", "sanitized", "objects"), target_flags=SANITIZE,
                            link_flags=("-fsanitize=address,undefined",))
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
