"""A short run of the structure-aware fuzzer in the test suite (the long runs are libFuzzer's, see
native/tests/fuzz_plan.c): mutated reference models through everything a user does with the Interpreter, and
every input that ever crashed rillet (tests/fuzz/regressions) replayed. Each must end in 'ok' or a Python
exception; a crash takes the test run down with it."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest
from exercise import exercise
from structure_mutations import mutants

from support import model_path

REGRESSIONS = sorted((Path(__file__).parent / "regressions").glob("*.tflite"))
SEEDS = ["mlp_f32", "cnn_small_f32", "cnn_small_int8", "cnn_small_int8_floatio", "train_mlp"]


@pytest.mark.parametrize("name", SEEDS)
def test_structure_mutations_never_crash(name):
    data = model_path(name).read_bytes()
    outcomes = collections.Counter(exercise(blob) for blob in mutants(data, seed=len(name), count=60))
    assert sum(outcomes.values()) == 60
    # A mutation that breaks nothing still runs; most are refused with a named Python error.
    assert set(outcomes) <= {"ok", "ModelError", "InterpreterError", "UnsupportedOpsError", "ValueError",
                             "RuntimeError", "MemoryError"}, outcomes


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.name for p in REGRESSIONS])
def test_every_crash_found_stays_fixed(path):
    assert exercise(path.read_bytes()) in {"ok", "ModelError", "InterpreterError", "UnsupportedOpsError",
                                           "ValueError", "RuntimeError", "MemoryError"}
