"""Hybrid (qd8_f32_qc8w) GEMM/IGEMM micro-kernels: native/tests/qd8_kernels_test.c built with the library's own
per-ISA flags and run for every instruction-set path this CPU has: bit-exact against the scalar kernels and the
plain formula of native/kernels/qd8_gemm.h on the unpacked weights, around every tile edge, with no over-read
and no write outside the output; the depthwise kernels likewise, and the input quantizations against the
references."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

NATIVE = Path(__file__).resolve().parents[2] / "native"
TESTER = NATIVE / "tests" / "qd8_kernels_test.c"
PATHS = ("scalar", "avx2", "avx512vnni")
CPU_FLAGS = {"scalar": set(), "avx2": {"avx2", "fma"},
             "avx512vnni": {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512_vnni"}}


def load_build_config() -> ModuleType:
    path = NATIVE / "build_config.py"
    if not path.exists() or not TESTER.exists():
        pytest.skip("native/ sources are not beside the tests (installed without the checkout)")
    spec = importlib.util.spec_from_file_location("rillet_build_config", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


@pytest.fixture(scope="module")
def tester(tmp_path_factory: pytest.TempPathFactory) -> Path:
    build_config = load_build_config()
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("no gcc")
    out = tmp_path_factory.mktemp("qd8")
    includes = [f"-I{d}" for d in build_config.INCLUDE_DIRS]
    arch = build_config.host_arch()
    sources = []
    kernels = NATIVE / "kernels"
    # the micro-kernels, the input quantizations and the two reference quantizations they must reproduce
    for path in sorted({*kernels.glob("qd8_f32_qc8w_*.c"), *kernels.glob("qdu8_f32_qc8w_*.c"),
                        *kernels.glob("f32_qd8_quantize__*.c"),
                        NATIVE / "src" / "cpu_features.c",
                        kernels / "qd8_f32_qc8w_fully_connected_ref.c",
                        kernels / "f32_qs8_asymmetric_quantize_tflite_ref.c"}):
        if "_ref" in path.stem and path.stem not in ("qd8_f32_qc8w_fully_connected_ref",
                                                     "f32_qs8_asymmetric_quantize_tflite_ref"):
            continue
        isa = build_config.isa_of(str(path))
        if isa is None or arch in build_config.ISA_ARCHES.get(isa, ()):
            sources.append(path)
    objects = []
    for source in [*sources, TESTER]:
        obj = out / (source.stem + ".o")
        flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", *build_config.flags_for(str(source))]
        result = subprocess.run([gcc, *flags, *includes, "-c", str(source), "-o", str(obj)],
                                capture_output=True, text=True, check=False)
        assert result.returncode == 0, f"{source.name}:\n{result.stderr}"
        objects.append(str(obj))
    binary = out / "qd8_kernels_test"
    subprocess.run([gcc, *objects, "-o", str(binary), "-lm"], check=True, capture_output=True, text=True)
    return binary


@pytest.mark.parametrize("path", PATHS)
def test_qd8_kernels_bit_exact(tester: Path, path: str) -> None:
    if load_build_config().host_arch() != "x86_64" and path != "scalar":
        pytest.skip(f"{path} is an x86-64 path")
    missing = CPU_FLAGS[path] - cpu_flags()
    if missing:
        pytest.skip(f"this CPU lacks {' '.join(sorted(missing))}: {path} kernels compiled but not run")
    result = subprocess.run([str(tester), path], capture_output=True, text=True, timeout=60, check=False)
    if result.returncode == 77:
        pytest.skip(result.stdout.strip())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cases, ok" in result.stdout
