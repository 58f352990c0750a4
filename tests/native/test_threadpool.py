"""The thread pool under stress (native/tests/threadpool_test.c): every tile of every job runs exactly once
for 1 to 5 threads, back to back and after the workers fall asleep, and with work accounting on each thread
runs its own share; also under ThreadSanitizer where the
compiler has it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

NATIVE = Path(__file__).resolve().parents[2] / "native"
SOURCES = [NATIVE / "tests" / "threadpool_test.c", NATIVE / "src" / "threadpool.c"]


def build(tmp_path: Path, extra: list[str]) -> Path | None:
    if not all(p.exists() for p in SOURCES):
        pytest.skip("native/ sources are not beside the tests (installed without the checkout)")
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler")
    exe = tmp_path / ("threadpool_test" + "".join(extra).replace("=", "_").replace("-", "_"))
    result = subprocess.run([gcc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", *extra, f"-I{NATIVE / 'src'}",
                             *map(str, SOURCES), "-lpthread", "-o", str(exe)], capture_output=True, text=True,
                            check=False)
    return exe if result.returncode == 0 else None


@pytest.mark.parametrize("extra", [[], ["-DRL_POOL_PORTABLE_FUTEX"]], ids=["linux-futex", "portable-futex"])
def test_every_tile_runs_once(tmp_path, extra):
    """Also with the sleep and wake other systems build (a condition variable in place of Linux's futex)."""
    exe = build(tmp_path, extra)
    assert exe is not None
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout


def test_no_data_race_under_thread_sanitizer(tmp_path):
    exe = build(tmp_path, ["-fsanitize=thread"])
    if exe is None:
        pytest.skip("this compiler has no ThreadSanitizer runtime")
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0 and "WARNING: ThreadSanitizer" not in result.stderr, result.stderr[-3000:]
