"""int8 SQUARED_DIFFERENCE row kernels (s8_vsqrdiff__scalar, s8_vsqrdiffc__scalar) via native/tests/s8_sqrdiff_test.c:
bit for bit against the specification s8_squared_difference_ref on every pair of int8 codes, for several scale
sets, the one-element row on either side. The tester is built from the kernel files alone."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess

import pytest

NATIVE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "native")
TESTER = os.path.join(NATIVE, "tests", "s8_sqrdiff_test.c")
SOURCES = [os.path.join(NATIVE, "kernels", name) for name in
           ("s8_vsqrdiff__scalar.c", "s8_vsqrdiffc__scalar.c", "s8_squared_difference_ref.c", "xx_index_ref.c")]
pytestmark = [
    pytest.mark.skipif(not os.path.isfile(TESTER), reason="needs the checkout's native/ folder"),
    pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc"),
]


def test_row_kernels_match_the_reference(tmp_path):
    spec = importlib.util.spec_from_file_location("rillet_build_config", os.path.join(NATIVE, "build_config.py"))
    config = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(config)
    exe = str(tmp_path / "s8_sqrdiff_test")
    sources = [*SOURCES, os.path.join(NATIVE, "src", "quant.c"), TESTER]
    done = subprocess.run(["gcc", *config.WARNING_FLAGS, "-pedantic", "-O2", *[f"-I{d}" for d in config.INCLUDE_DIRS],
                           *sources, "-lm", "-o", exe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    done = subprocess.run([exe], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all passed" in done.stdout
