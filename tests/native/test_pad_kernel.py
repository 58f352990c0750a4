"""PAD's fast layout (native/kernels/xx_pad.c) against its specification xx_pad_ref on random shapes, paddings,
element sizes and pad values, whole and in pieces of the outer axis (native/tests/pad_test.c)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

NATIVE = Path(__file__).resolve().parents[2] / "native"
SOURCES = [NATIVE / "tests" / "pad_test.c", NATIVE / "kernels" / "xx_pad.c", NATIVE / "kernels" / "xx_pad_ref.c",
           NATIVE / "kernels" / "xx_index_ref.c"]


def test_fast_pad_gives_the_reference_bytes(tmp_path):
    if not all(p.exists() for p in SOURCES):
        pytest.skip("native/ sources are not beside the tests (installed without the checkout)")
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler")
    exe = tmp_path / "pad_test"
    includes = [f"-I{NATIVE / d}" for d in ("include", "src", "kernels")]
    built = subprocess.run([gcc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", *includes, *map(str, SOURCES),
                            "-o", str(exe)], capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert "20000 cases ok" in result.stdout
