"""int16 element-wise kernels (native/kernels/s16_velementwise.h: same-shape ADD / SUB in TFLite's general
arithmetic, float-to-int16 QUANTIZE, the int16 table lookup) via native/tests/s16_velementwise_test.c: every x86
path this CPU has bit for bit against the scalar kernels, on every length from 0 to 70 and offset operands. The
tester is built from the kernel files alone, each with build_config's flags for its ISA suffix."""

from __future__ import annotations

import importlib.util
import os
import platform
import shutil
import subprocess

import pytest

NATIVE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "native")
TESTER = os.path.join(NATIVE, "tests", "s16_velementwise_test.c")
KERNELS = ("s16_vaddsub__scalar.c", "s16_vaddsub__avx2.c", "f32_s16_vcvt__scalar.c", "f32_s16_vcvt__avx2.c",
           "s16_vlut__scalar.c", "s16_vlut__avx2.c", "s16_lut_ref.c", "s16_velementwise_configs.c")
pytestmark = [
    pytest.mark.skipif(not os.path.isfile(TESTER), reason="needs the checkout's native/ folder"),
    pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc"),
    pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="the SIMD paths are x86's"),
]


def test_every_path_gives_the_scalar_kernels_bits(tmp_path):
    spec = importlib.util.spec_from_file_location("rillet_build_config", os.path.join(NATIVE, "build_config.py"))
    config = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(config)
    includes = [f"-I{d}" for d in config.INCLUDE_DIRS]
    sources = [os.path.join(NATIVE, "kernels", name) for name in KERNELS]
    sources += [os.path.join(NATIVE, "src", "quant.c"), TESTER]
    objects = []
    for source in sources:
        obj = str(tmp_path / (os.path.basename(source) + ".o"))
        done = subprocess.run(["gcc", *config.WARNING_FLAGS, "-O2", *config.flags_for(source), *includes, "-c", source,
                               "-o", obj], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        objects.append(obj)
    exe = str(tmp_path / "s16_velementwise_test")
    done = subprocess.run(["gcc", *objects, "-lm", "-o", exe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    done = subprocess.run([exe], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all passed" in done.stdout
