"""Builds the libFuzzer target native/tests/fuzz_plan.c with librillet's sources (build_config's list and
flags) under AddressSanitizer and UBSan, with clang (Debian: clang, libclang-rt-14-dev), into build/fuzz_plan.
UBSan stops at its first report, so undefined behaviour is a finding like a crash."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import build_config

SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer", "-g",
            "-O1"]


def compiler() -> str:
    for name in ("clang", "clang-16", "clang-15", "clang-14"):
        if shutil.which(name):
            return name
    raise SystemExit("build_fuzzer: clang is not installed (apt-get install clang libclang-rt-14-dev)")


def main() -> int:
    cc = compiler()
    root = os.path.dirname(build_config.NATIVE_DIR)
    out_dir = os.path.join(root, "build", "fuzz-objects")
    os.makedirs(out_dir, exist_ok=True)
    include = [f"-I{d}" for d in build_config.INCLUDE_DIRS]
    objects = []
    for src in build_config.sources():
        obj = os.path.join(out_dir, os.path.basename(src) + ".o")
        subprocess.run([cc, *build_config.WARNING_FLAGS, "-Wno-unused-command-line-argument", *SANITIZE,
                        "-fsanitize=fuzzer-no-link", *include, *build_config.flags_for(src), "-c", src, "-o", obj],
                       check=True)
        objects.append(obj)
    harness = os.path.join(build_config.NATIVE_DIR, "tests", "fuzz_plan.c")
    binary = os.path.join(root, "build", "fuzz_plan")
    subprocess.run([cc, *SANITIZE, "-fsanitize=fuzzer", *include, harness, *objects, "-o", binary, "-lm",
                    "-lpthread"], check=True)
    print(binary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
