"""int8 GEMM/IGEMM/depthwise micro-kernels: native/tests/qs8_kernels_test.c built with the library's own
per-ISA flags and run for every instruction-set path this CPU has (bit-exact against the scalar kernels and
a plain formula, no over-read, no write outside the output). Every ISA's files are compiled on every run, so
AVX-512 code stays -Werror clean on machines that cannot run it; an AVX2 CPU runs the AVX-512 paths on the
emulated build (SIMDe: build_config.AVX512_EMULATION_DIR), which checks what they compute, not their speed."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

NATIVE = Path(__file__).resolve().parents[2] / "native"
TESTER = NATIVE / "tests" / "qs8_kernels_test.c"
PATHS = ("scalar", "avx2", "avx512", "avx512vnni")
CPU_FLAGS = {
    "scalar": set(),
    "avx2": {"avx2", "fma"},
    "avx512": {"avx512f", "avx512bw", "avx512dq", "avx512vl"},
    "avx512vnni": {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512_vnni"},
}


def load_build_config() -> ModuleType:
    path = NATIVE / "build_config.py"
    if not path.exists() or not TESTER.exists():
        pytest.skip("native/ sources are not beside the tests (installed without the checkout)")
    spec = importlib.util.spec_from_file_location("rillet_build_config", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kernel_sources(build_config: ModuleType) -> list[Path]:
    kernels = NATIVE / "kernels"
    arch = build_config.host_arch()
    found = [kernels / "qs8_pack.c", kernels / "qs8_configs.c"]
    # GEMM/IGEMM/depthwise, element-wise (qs8_v*) and pooling micro-kernels: qs8_configs.c names them all
    for path in sorted({*kernels.glob("qs8_qc8w_*.c"), *kernels.glob("qs8_v*__*.c"), *kernels.glob("qs8_*pool__*.c"),
                        *kernels.glob("s8_ibilinear__*.c"), *kernels.glob("s8_lut*.c"),
                        *kernels.glob("qs8_rdsum__*.c")}):
        isa = build_config.isa_of(str(path))
        if isa is None or arch in build_config.ISA_ARCHES.get(isa, ()):
            found.append(path)
    return found


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def build_tester(out: Path, emulate_avx512: bool) -> Path:
    """The tester, each file with its ISA's flags, or those of build_config's emulated AVX-512 build."""
    build_config = load_build_config()
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("no gcc")
    includes = [f"-I{d}" for d in build_config.INCLUDE_DIRS]
    emulation = [build_config.EMULATED_AVX512_DEFINE] if emulate_avx512 else []
    objects = []
    for source in [*kernel_sources(build_config), TESTER]:
        obj = out / (source.stem + ".o")
        flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", *emulation,
                 *build_config.flags_for(str(source), emulate_avx512=emulate_avx512)]
        result = subprocess.run([gcc, *flags, *includes, "-c", str(source), "-o", str(obj)],
                                capture_output=True, text=True, check=False)
        assert result.returncode == 0, f"{source.name}:\n{result.stderr}"
        objects.append(str(obj))
    binary = out / "qs8_kernels_test"
    subprocess.run([gcc, *objects, "-o", str(binary), "-lm"], check=True, capture_output=True, text=True)
    return binary


@pytest.fixture(scope="module")
def tester(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tester(tmp_path_factory.mktemp("qs8"), emulate_avx512=False)


@pytest.fixture(scope="module")
def emulated_tester(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tester with the AVX-512 kernels on SIMDe, for a CPU without AVX-512 (build_config.AVX512_EMULATION_DIR)."""
    missing = load_build_config().simde_missing()
    if missing:
        pytest.skip(missing)
    return build_tester(tmp_path_factory.mktemp("qs8-emulated"), emulate_avx512=True)


@pytest.mark.parametrize("path", PATHS)
def test_kernels_bit_exact(request: pytest.FixtureRequest, tester: Path, path: str) -> None:
    if build_config_arch() != "x86_64" and path != "scalar":
        pytest.skip(f"{path} is an x86-64 path")
    missing = CPU_FLAGS[path] - cpu_flags()
    if missing and not (path.startswith("avx512") and CPU_FLAGS["avx2"] <= cpu_flags()):
        pytest.skip(f"this CPU lacks {' '.join(sorted(missing))}: {path} kernels compiled but not run")
    if missing:  # an AVX2 CPU runs the AVX-512 kernels emulated
        tester = request.getfixturevalue("emulated_tester")
    result = subprocess.run([str(tester), path], capture_output=True, text=True, timeout=120, check=False)
    if result.returncode == 77:
        pytest.skip(result.stdout.strip())
    assert result.returncode == 0, result.stdout + result.stderr


def build_config_arch() -> str:
    return load_build_config().host_arch()
