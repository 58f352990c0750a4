"""Builds the libFuzzer target native/tests/fuzz_plan.c with librillet's sources (build_config's list and
flags) under AddressSanitizer and UBSan, with clang (Debian: clang, libclang-rt-14-dev), into build/fuzz_plan.
UBSan stops at its first report, so undefined behaviour is a finding like a crash. An object newer than its
source and the headers that source names is kept (a fix rebuilds in seconds, not the whole library)."""

from __future__ import annotations

import os
import re
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


def up_to_date(src: str, obj: str, include_dirs: list[str]) -> bool:
    """`obj` is newer than `src` and than every project header `src` reaches through its includes (all levels:
    a struct that gains a field in a header two includes down changes the layout every object sees, and a
    stale object with the old layout reads the wrong fields)."""
    if not os.path.exists(obj):
        return False
    built = os.path.getmtime(obj)
    seen, pending = set(), [src]
    while pending:
        path = pending.pop()
        if os.path.getmtime(path) > built:
            return False
        with open(path, encoding="utf-8") as f:
            names = re.findall(r'^#include "([^"]+)"', f.read(), flags=re.MULTILINE)
        for name in names:
            for folder in (os.path.dirname(path), *include_dirs):
                header = os.path.normpath(os.path.join(folder, name))
                if os.path.exists(header):
                    if header not in seen:
                        seen.add(header)
                        pending.append(header)
                    break
    return True


def main() -> int:
    cc = compiler()
    root = os.path.dirname(build_config.NATIVE_DIR)
    out_dir = os.path.join(root, "build", "fuzz-objects")
    os.makedirs(out_dir, exist_ok=True)
    include = [f"-I{d}" for d in build_config.INCLUDE_DIRS]
    objects = []
    for src in build_config.sources():
        obj = os.path.join(out_dir, os.path.basename(src) + ".o")
        objects.append(obj)
        if up_to_date(src, obj, build_config.INCLUDE_DIRS):
            continue
        subprocess.run([cc, *build_config.WARNING_FLAGS, "-Wno-unused-command-line-argument", *SANITIZE,
                        "-fsanitize=fuzzer-no-link", *include, *build_config.flags_for(src), "-c", src, "-o", obj],
                       check=True)
    harness = os.path.join(build_config.NATIVE_DIR, "tests", "fuzz_plan.c")
    binary = os.path.join(root, "build", "fuzz_plan")
    subprocess.run([cc, *SANITIZE, "-fsanitize=fuzzer", *include, harness, *objects, "-o", binary, "-lm",
                    "-lpthread"], check=True)
    print(binary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
