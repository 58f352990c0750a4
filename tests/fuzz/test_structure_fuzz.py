"""A short run of the structure-aware fuzzer in the test suite (the long runs are libFuzzer's, see
native/tests/fuzz_plan.c): mutated reference models through everything a user does with the Interpreter, the
feature mutations (feature_mutations.py: calls between subgraphs, resource variables, LSTMs, DENSIFY, custom
ops, signature defs) of small models that reach them, and every input that ever crashed rillet
(tests/fuzz/regressions) replayed. Each must end in 'ok' or a Python exception; a crash takes the test run (or,
for the feature families, the child process running them) down with it."""

from __future__ import annotations

import collections
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from exercise import exercise
from feature_mutations import FAMILIES
from seed_models import seeds
from structure_mutations import MUTATIONS, mutants

from support import model_path

HERE = Path(__file__).resolve().parent
REGRESSIONS = sorted((HERE / "regressions").glob("*.tflite"))
SEEDS = ["mlp_f32", "cnn_small_f32", "cnn_small_int8", "cnn_small_int8_floatio", "train_mlp"]
ACCEPTED = {"ok", "ModelError", "InterpreterError", "UnsupportedOpsError", "ValueError", "RuntimeError", "MemoryError"}
CASES_PER_FAMILY = 36  # a few seconds a family on one loaded core


@pytest.mark.parametrize("name", SEEDS)
def test_structure_mutations_never_crash(name):
    data = model_path(name).read_bytes()
    outcomes = collections.Counter(exercise(blob) for blob in mutants(data, seed=len(name), count=60))
    assert sum(outcomes.values()) == 60
    # A mutation that breaks nothing still runs; most are refused with a named Python error.
    assert set(outcomes) <= ACCEPTED, outcomes


# The child runs each file and says when it starts and how it ended: a signal names the file that raised it.
CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
from exercise import exercise
for path in sys.argv[2:]:
    print("start", path, flush=True)
    print("end", path, exercise(open(path, "rb").read()), flush=True)
"""


def run_in_child(paths: list[Path], cwd: Path) -> tuple[collections.Counter, str | None, str]:
    """Each file through exercise() in one child process: the outcomes, and the file a crash or hang stopped
    at (None when none did) with what the child wrote to stderr."""
    env = {**os.environ, "RILLET_LOOP_LIMIT": "10000", "RILLET_MEMORY_LIMIT_MB": "256"}
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, str(HERE), *map(str, paths)], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=300)
        stdout, stderr, failed = done.stdout, done.stderr, done.returncode != 0
    except subprocess.TimeoutExpired as e:
        stdout, stderr, failed = e.stdout or "", "timed out (a hang)", True
        stdout = stdout.decode() if isinstance(stdout, bytes) else stdout
    outcomes: collections.Counter = collections.Counter()
    started = None
    for line in stdout.splitlines():
        word, path, *rest = line.split(" ")
        if word == "start":
            started = path
        else:
            outcomes[rest[0]] += 1
            started = None
    return outcomes, (started or "the child, between files,") if failed else None, stderr[-3000:]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_feature_mutations_never_crash(family, tmp_path):
    models = seeds(family)
    per_seed = math.ceil(CASES_PER_FAMILY / len(models))
    paths = []
    for k, (name, data) in enumerate(models):
        # Every other seed mixes in the generic shape and type changes, which break what the feature's own
        # checks assumed (a carry's shape after a call was checked, say).
        mutations = FAMILIES[family] + (MUTATIONS[:2] if k % 2 else [])
        for j, blob in enumerate(mutants(data, seed=k, count=per_seed, mutations=mutations)):
            paths.append(tmp_path / f"{name}_{j}.tflite")
            paths[-1].write_bytes(blob)
    assert len(paths) >= CASES_PER_FAMILY
    outcomes, crashed, stderr = run_in_child(paths, tmp_path)
    assert crashed is None, f"{crashed} crashed the process (kept for tests/fuzz/regressions):\n{stderr}"
    assert sum(outcomes.values()) == len(paths)
    assert set(outcomes) <= ACCEPTED, outcomes
    assert outcomes["ok"] < len(paths), "no mutation broke anything: the family reaches nothing"


# Regressions whose bug a build without sanitizers does not show (a write past a buffer that happens to land in
# the arena): the refusal that fixed them, checked by name.
REFUSED = {"lstm_float64_output.tflite": "InterpreterError"}


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.name for p in REGRESSIONS])
def test_every_crash_found_stays_fixed(path):
    outcome = exercise(path.read_bytes())
    assert outcome in ACCEPTED
    assert outcome == REFUSED.get(path.name, outcome)
