"""Builds librillet once more as the emulated AVX-512 build (build_config.EMULATED_AVX512_FLAGS: the AVX-512 files
against SIMDe, dispatch taking AVX-512 VNNI on an AVX2 CPU), into build/avx512-emulated/librillet.so, for the
job of .ci/run that runs the model tests on the AVX-512 paths (native/tests/run_emulated_avx512_tests.sh)."""

from __future__ import annotations

import os
import sys

NATIVE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, NATIVE_DIR)
import build_config
import build_ffi


def main() -> int:
    missing = build_config.simde_missing()
    if missing:
        print(f"build_emulated_avx512: {missing}", file=sys.stderr)
        return 1
    root = os.path.dirname(NATIVE_DIR)
    out = os.path.join(root, "build", "avx512-emulated", "librillet.so")
    build_ffi.build_library(out, os.path.join(root, "build", "avx512-emulated", "objects"), emulate_avx512=True)
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
