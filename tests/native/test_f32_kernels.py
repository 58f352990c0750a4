"""float32 GEMM, IGEMM and depthwise micro-kernels and their packers, via native/tests/f32_kernels_test.c.

The tester is built from the kernel files alone, each with build_config's flags for its ISA suffix, and run
once per ISA this CPU has; every ISA's files are compiled on every run, and an AVX2 CPU runs the AVX-512
kernels on the emulated build (SIMDe: build_config.AVX512_EMULATION_DIR), which checks what they compute. `python tests/native/test_f32_kernels.py bench` builds and runs
bench/bench_f32_kernels.c instead (speed ratios, not a test).
"""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NATIVE = os.path.join(ROOT, "native")
KERNELS = os.path.join(NATIVE, "kernels")
TESTER = os.path.join(NATIVE, "tests", "f32_kernels_test.c")
BENCH = os.path.join(ROOT, "bench", "bench_f32_kernels.c")
COMMON_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2"]
pytestmark = [
    pytest.mark.skipif(not os.path.isfile(TESTER), reason="needs the checkout's native/ folder"),
    pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc"),
]


def _build_config():
    spec = importlib.util.spec_from_file_location("rillet_build_config", os.path.join(NATIVE, "build_config.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kernel_sources() -> list[str]:
    """The float32 kernel files this architecture builds, their packers and configs: what the tester links."""
    config = _build_config()
    arch = config.host_arch()
    patterns = ("f32_gemm_*__*.c", "f32_igemm_*__*.c", "f32_dwconv*__*.c", "f32_maxpool__*.c", "f32_avgpool__*.c",
                "f32_qs8_vcvt__*.c", "qs8_f32_vcvt__*.c", "f32_s8_quantize_ref.c")
    names = sorted(path for pattern in patterns for path in glob.glob(os.path.join(KERNELS, pattern))
                   if config.isa_of(path) is None or arch in config.ISA_ARCHES.get(config.isa_of(path), ()))
    return names + [os.path.join(KERNELS, "f32_pack.c"), os.path.join(KERNELS, "f32_configs.c")]


def build(main_source: str, out_dir: str, emulate_avx512: bool = False) -> str:
    """Compiles each source with its own ISA flags (or those of build_config's emulated AVX-512 build) into
    out_dir and links them; returns the executable."""
    config = _build_config()
    includes = [f"-I{d}" for d in config.INCLUDE_DIRS]
    emulation = [config.EMULATED_AVX512_DEFINE] if emulate_avx512 else []
    objects = []
    for path in kernel_sources() + [main_source]:
        obj = os.path.join(out_dir, os.path.basename(path) + ".o")
        cmd = ["gcc", *COMMON_FLAGS, *emulation, *config.flags_for(path, emulate_avx512=emulate_avx512), *includes,
               "-c", path, "-o", obj]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{os.path.basename(path)} does not compile:\n{done.stderr}"
        objects.append(obj)
    exe = os.path.join(out_dir, os.path.splitext(os.path.basename(main_source))[0])
    done = subprocess.run(["gcc", *objects, "-lm", "-o", exe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"link failed:\n{done.stderr}"
    return exe


def cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


REQUIRED = {
    "scalar": set(),
    "avx2": {"avx2", "fma"},
    "avx512": {"avx512f", "avx512bw", "avx512dq", "avx512vl"},
}


@pytest.fixture(scope="module")
def tester(tmp_path_factory) -> str:
    return build(TESTER, str(tmp_path_factory.mktemp("f32_kernels")))


@pytest.fixture(scope="module")
def emulated_tester(tmp_path_factory) -> str:
    """The tester with the AVX-512 kernels on SIMDe, for a CPU without AVX-512 (build_config.AVX512_EMULATION_DIR)."""
    missing = _build_config().simde_missing()
    if missing:
        pytest.skip(missing)
    return build(TESTER, str(tmp_path_factory.mktemp("f32_kernels_emulated")), emulate_avx512=True)


def test_every_isa_file_compiles(tester):
    """The tester's build compiled every ISA's kernels of this architecture (on x86-64, AVX-512 included,
    whether or not the CPU can run them) with -Werror."""
    config = _build_config()
    isas = {config.isa_of(p) for p in kernel_sources()}
    if config.host_arch() == "x86_64":
        assert {"avx2", "avx512"} <= isas
    assert os.access(tester, os.X_OK)


@pytest.mark.parametrize("isa", sorted(REQUIRED))
def test_kernels_match_scalar(request, tester, isa):
    missing = REQUIRED[isa] - cpu_flags()
    if missing and not (isa == "avx512" and REQUIRED["avx2"] <= cpu_flags()):
        pytest.skip(f"this CPU lacks {', '.join(sorted(missing))}: {isa} kernels compiled but not run")
    if missing:  # an AVX2 CPU runs the AVX-512 kernels emulated
        tester = request.getfixturevalue("emulated_tester")
    done = subprocess.run([tester, isa], capture_output=True, text=True, timeout=60, check=False)
    if done.returncode == 77:
        pytest.skip(done.stdout.strip())
    assert done.returncode == 0, f"{isa} kernels:\n{done.stdout}{done.stderr}"
    assert "all passed" in done.stdout
    if isa == "avx512":  # the wide layers' 7x32 tile, beside the 7x16 one
        assert "gemm/igemm 7x32" in done.stdout and "gemm/igemm 7x16" in done.stdout


if __name__ == "__main__" and sys.argv[1:] == ["bench"]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        sys.exit(subprocess.run([build(BENCH, tmp)], check=False).returncode)
