"""float32 softmax, GELU and row-sum micro-kernels (f32_vexp.h's rl_f32_vexp_config) via
native/tests/f32_vexp_test.c: the scalar kernels against double-precision truth, each path this CPU has against
the scalar kernels (the row maximum and sum bit for bit, the rest within 1e-6). The tester is built from the
kernel files alone, each with build_config's flags for its ISA suffix; test_arm_kernels.py runs it for the NEON
kernels under qemu."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess

import pytest

NATIVE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "native")
KERNELS = os.path.join(NATIVE, "kernels")
TESTER = os.path.join(NATIVE, "tests", "f32_vexp_test.c")
SOURCES = ["f32_rmax__scalar.c", "f32_rmax__avx2.c", "f32_raddstoreexpminusmax__scalar.c",
           "f32_raddstoreexpminusmax__avx2.c", "f32_vgelu__scalar.c", "f32_vgelu__avx2.c", "f32_rsum__scalar.c",
           "f32_rsum__avx2.c", "f32_vexp_configs.c"]
REQUIRED = {"scalar": set(), "avx2": {"avx2", "fma"}, "avx512": {"avx2", "fma"}}  # AVX-512 runs AVX2's kernels
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


@pytest.fixture(scope="module")
def tester(tmp_path_factory) -> str:
    config = _build_config()
    out = str(tmp_path_factory.mktemp("f32_vexp"))
    includes = [f"-I{d}" for d in config.INCLUDE_DIRS]
    sources = [os.path.join(KERNELS, name) for name in SOURCES
               if config.isa_of(name) is None or config.host_arch() in config.ISA_ARCHES[config.isa_of(name)]]
    objects = []
    for path in [*sources, os.path.join(NATIVE, "src", "cpu_features.c"), TESTER]:
        obj = os.path.join(out, os.path.basename(path) + ".o")
        done = subprocess.run(["gcc", *config.WARNING_FLAGS, "-pedantic", "-O2", *config.flags_for(path), *includes,
                               "-c", path, "-o", obj], capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{os.path.basename(path)} does not compile:\n{done.stderr}"
        objects.append(obj)
    exe = os.path.join(out, "f32_vexp_test")
    done = subprocess.run(["gcc", *objects, "-lm", "-o", exe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return exe


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
        assert "f32_vgelu__avx2" in done.stdout, done.stdout
