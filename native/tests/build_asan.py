"""Builds native/tests/tflite_reader_asan.c with librillet's sources (build_config's list and flags) under
AddressSanitizer and UBSan, into build/tflite_reader_asan."""

from __future__ import annotations

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import build_config

# UBSan reports and goes on unless UBSAN_OPTIONS=halt_on_error=1; ASan always stops at the first error.
SANITIZE = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-g", "-O1"]


def main() -> int:
    out_dir = os.path.join(os.path.dirname(build_config.NATIVE_DIR), "build", "asan")
    os.makedirs(out_dir, exist_ok=True)
    include = [f"-I{d}" for d in build_config.INCLUDE_DIRS]
    objects = []
    sources = build_config.sources() + [os.path.join(build_config.NATIVE_DIR, "tests", "tflite_reader_asan.c")]
    for src in sources:
        obj = os.path.join(out_dir, os.path.basename(src) + ".o")
        subprocess.run(["gcc", *build_config.WARNING_FLAGS, *SANITIZE, *include, *build_config.flags_for(src), "-c",
                        src, "-o", obj], check=True)
        objects.append(obj)
    binary = os.path.join(os.path.dirname(out_dir), "tflite_reader_asan")
    subprocess.run(["gcc", *SANITIZE, *objects, "-o", binary, "-lm", "-lpthread"], check=True)
    print(binary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
