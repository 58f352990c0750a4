"""The 16x8 IGEMM micro-kernels (TFLite's int16 x int8 mode): native/tests/qs16_kernels_test.c built with the
library's own per-ISA flags and run for every path this CPU has, bit-exact against a plain formula and the scalar
kernel on sizes around every tile edge, with no write outside the tile."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the qs8 tester's build helpers, beside this file
from test_qs8_kernels import CPU_FLAGS, NATIVE, cpu_flags, load_build_config  # noqa: E402

TESTER = NATIVE / "tests" / "qs16_kernels_test.c"


def build_tester(out: Path) -> Path:
    build_config = load_build_config()
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("no gcc")
    arch = build_config.host_arch()
    kernels = NATIVE / "kernels"
    sources = [kernels / "qs16_pack.c", kernels / "qs16_configs.c"]
    for path in sorted(kernels.glob("qs16_qc8w_*.c")):
        isa = build_config.isa_of(str(path))
        if isa is None or arch in build_config.ISA_ARCHES.get(isa, ()):
            sources.append(path)
    includes = [f"-I{d}" for d in build_config.INCLUDE_DIRS]
    objects = []
    for source in [*sources, TESTER]:
        obj = out / (source.stem + ".o")
        flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", *build_config.flags_for(str(source))]
        result = subprocess.run([gcc, *flags, *includes, "-c", str(source), "-o", str(obj)],
                                capture_output=True, text=True, check=False)
        assert result.returncode == 0, f"{source.name}:\n{result.stderr}"
        objects.append(str(obj))
    binary = out / "qs16_kernels_test"
    subprocess.run([gcc, *objects, "-o", str(binary), "-lm"], check=True, capture_output=True, text=True)
    return binary


@pytest.fixture(scope="module")
def tester(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tester(tmp_path_factory.mktemp("qs16"))


@pytest.mark.parametrize("path", ["scalar", "avx2"])
def test_kernels_bit_exact(tester: Path, path: str) -> None:
    if load_build_config().host_arch() != "x86_64" and path != "scalar":
        pytest.skip(f"{path} is an x86-64 path")
    missing = CPU_FLAGS[path] - cpu_flags()
    if missing:
        pytest.skip(f"this CPU lacks {' '.join(sorted(missing))}")
    result = subprocess.run([str(tester), path], capture_output=True, text=True, timeout=300, check=False)
    if result.returncode == 77:
        pytest.skip(result.stdout.strip())
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 failures" in result.stdout
