"""What `pip install .` shows while librillet compiles (native/build_ffi.py): how many files and how many at a
time, then a line at every tenth; and RILLET_BUILD_JOBS, which sets how many compile at once."""

from __future__ import annotations

from rillet.native import build_ffi


def test_progress_says_the_count_then_every_tenth(capsys, monkeypatch):
    monkeypatch.setenv("RILLET_BUILD_JOBS", "3")
    progress = build_ffi.progress_printer("librillet", to_terminal=False)
    for done in range(1, 277):
        progress(done, 276, f"kernels/k{done}.c")
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "librillet: compiling 276 C files, 3 at a time (RILLET_BUILD_JOBS=N to change)"
    counts = [int(line.split(": ")[1].split("/")[0]) for line in lines[1:]]
    assert counts == [1, 28, 56, 83, 111, 138, 166, 194, 221, 249, 276]
    assert lines[-1] == "librillet: 276/276 files compiled; linking"


def test_build_jobs_follows_the_environment_else_the_cores_it_may_use(monkeypatch):
    monkeypatch.setenv("RILLET_BUILD_JOBS", "5")
    assert build_ffi.build_jobs() == 5
    for bad in ("0", "two", ""):
        monkeypatch.setenv("RILLET_BUILD_JOBS", bad)
        assert build_ffi.build_jobs() >= 1
    monkeypatch.delenv("RILLET_BUILD_JOBS")
    assert build_ffi.build_jobs() >= 1
