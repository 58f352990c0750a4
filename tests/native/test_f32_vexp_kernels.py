"""float32 softmax, GELU and row-sum micro-kernels (f32_vexp.h's rl_f32_vexp_config) via
native/tests/f32_vexp_test.c: the scalar kernels against double-precision truth, each path this CPU has against
the scalar kernels (the row maximum, the row sum (but AVX-512's, in XNNPACK's AVX-512 order) and the scaling bit
for bit, the rest within 1e-6). The tester is built from the
kernel files alone, each with build_config's flags for its ISA suffix (once more with the emulated AVX-512 build's,
SIMDe: the AVX-512 softmax row kernels on an AVX2 CPU); test_arm_kernels.py runs it for the NEON kernels under
qemu."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess

import pytest

NATIVE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "native")
KERNELS = os.path.join(NATIVE, "kernels")
TESTER = os.path.join(NATIVE, "tests", "f32_vexp_test.c")
SOURCES = ["f32_rmax__scalar.c", "f32_rmax__avx2.c", "f32_rmax__avx512.c", "f32_raddstoreexpminusmax__scalar.c",
           "f32_raddstoreexpminusmax__avx2.c", "f32_raddstoreexpminusmax__avx512.c", "f32_vscale__scalar.c",
           "f32_vscale__avx2.c", "f32_vscale__avx512.c", "f32_vgelu__scalar.c",
           "f32_vgelu__avx2.c", "f32_vgelu__avx512.c", "f32_rsum__scalar.c", "f32_rsum__avx2.c", "f32_rsum__avx512.c",
           "f32_rsumsqdiff__scalar.c", "f32_rsumsqdiff__avx2.c", "f32_rsumsqdiff__avx512.c",
           "f32_vexp_configs.c"]
# the AVX-512 path: its own softmax row, GELU and row-sum kernels
REQUIRED = {"scalar": set(), "avx2": {"avx2", "fma"},
            "avx512": {"avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl"}}
pytestmark = [
    pytest.mark.skipif(not os.path.isfile(TESTER), reason="needs the checkout's native/ folder"),
    pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc"),
]


def _build_config():
    spec = importlib.util.spec_from_file_location("rillet_build_config", os.path.join(NATIVE, "build_config.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as f:
            return next((set(line.split(":", 1)[1].split()) for line in f if line.startswith("flags")), set())
    except OSError:
        return set()


def build(out: str, emulate_avx512: bool = False) -> str:
    config = _build_config()
    includes = [f"-I{d}" for d in config.INCLUDE_DIRS]
    emulation = [config.EMULATED_AVX512_DEFINE] if emulate_avx512 else []
    sources = [os.path.join(KERNELS, name) for name in SOURCES
               if config.isa_of(name) is None or config.host_arch() in config.ISA_ARCHES[config.isa_of(name)]]
    objects = []
    for path in [*sources, os.path.join(NATIVE, "src", "cpu_features.c"), TESTER]:
        obj = os.path.join(out, os.path.basename(path) + ".o")
        flags = config.flags_for(path, emulate_avx512=emulate_avx512)
        done = subprocess.run(["gcc", *config.WARNING_FLAGS, "-pedantic", "-O2", *emulation, *flags, *includes,
                               "-c", path, "-o", obj], capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{os.path.basename(path)} does not compile:\n{done.stderr}"
        objects.append(obj)
    exe = os.path.join(out, "f32_vexp_test")
    done = subprocess.run(["gcc", *objects, "-lm", "-o", exe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return exe


@pytest.fixture(scope="module")
def tester(tmp_path_factory) -> str:
    return build(str(tmp_path_factory.mktemp("f32_vexp")))


@pytest.fixture(scope="module")
def emulated_tester(tmp_path_factory) -> str:
    """The tester with the AVX-512 kernels on SIMDe (build_config.AVX512_EMULATION_DIR)."""
    if _build_config().host_arch() != "x86_64":
        pytest.skip("the emulated AVX-512 build is x86-64's")
    missing = _build_config().simde_missing()
    if missing:
        pytest.skip(missing)
    return build(str(tmp_path_factory.mktemp("f32_vexp_emulated")), emulate_avx512=True)


@pytest.mark.parametrize("isa", sorted(REQUIRED))
def test_vexp_kernels_match_scalar(tester, isa):
    missing = REQUIRED[isa] - cpu_flags()
    if missing:
        pytest.skip(f"this CPU lacks {', '.join(sorted(missing))}")
    done = subprocess.run([tester, isa], capture_output=True, text=True, timeout=120, check=False)
    if done.returncode == 77:
        pytest.skip(done.stdout.strip())
    assert done.returncode == 0, f"{isa} kernels:\n{done.stdout}{done.stderr}"
    assert "all passed" in done.stdout
    if isa != "scalar":
        assert f"f32_vgelu__{isa}" in done.stdout, done.stdout
    if isa == "avx512":
        assert "f32_raddstoreexpminusmax__avx512" in done.stdout, done.stdout


def test_emulated_avx512_kernels_match_scalar(emulated_tester):
    """The emulated AVX-512 build compiles the AVX-512 softmax row and GELU kernels, and they match the scalar ones there
    too (on any AVX2 CPU: the CI machines lack AVX-512)."""
    if not REQUIRED["avx2"] <= cpu_flags():
        pytest.skip("the emulated AVX-512 build needs AVX2 and FMA")
    done = subprocess.run([emulated_tester, "avx512"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"emulated avx512 kernels:\n{done.stdout}{done.stderr}"
    assert "all passed" in done.stdout and "f32_raddstoreexpminusmax__avx512" in done.stdout, done.stdout
