"""Transformers on several threads (tests/data/transformers): every fixture gives one thread's bits on 2 and 3
threads, on every signature, and the ops that band over tokens (bands.h) form their segments: a hybrid
FULLY_CONNECTED runs on from the layer norm before it as the float one does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rillet.runtime import Interpreter

DATA = Path(__file__).resolve().parents[1] / "data" / "transformers"
MODELS = sorted(p.stem for p in DATA.glob("*.tflite"))


def stored_inputs(name: str) -> dict[str, dict[str, np.ndarray]]:
    found: dict[str, dict[str, np.ndarray]] = {}
    with np.load(DATA / f"{name}.npz") as npz:
        for key in npz.files:
            sig, kind, tensor = key.split("/", 2)
            if kind == "in":
                found.setdefault(sig, {})[tensor] = npz[key]
    return found


def outputs(name: str, threads: int) -> dict[str, bytes]:
    it = Interpreter(model_path=str(DATA / f"{name}.tflite"), num_threads=threads)
    it.allocate_tensors()
    got = {}
    for sig, inputs in stored_inputs(name).items():
        runner = it.get_signature_runner(sig)
        runner(**inputs)  # twice: the second reads no stale band of the first
        for key, value in runner(**inputs).items():
            got[f"{sig}/{key}"] = np.asarray(value).tobytes()
    return got


@pytest.mark.parametrize("name", MODELS)
def test_every_thread_count_gives_one_thread_s_bits(name):
    one = outputs(name, 1)
    for threads in (2, 3):
        assert outputs(name, threads) == one, f"{name} on {threads} threads"


def segments_of(name: str, threads: int) -> list[list[str]]:
    it = Interpreter(model_path=str(DATA / f"{name}.tflite"), num_threads=threads)
    it.allocate_tensors()
    plan = it._plan
    return [list(plan.op_names[i:plan.op_segment_last(i) + 1]) for i in range(len(plan.op_names))
            if plan.op_segment_last(i) >= 0]


@pytest.mark.parametrize("name", ["bert_tiny_dynamic", "vit_tiny_dynamic"])
def test_hybrid_fully_connected_runs_in_the_layer_norm_s_bands(name):
    segments = segments_of(name, 2)
    assert any("FULLY_CONNECTED" in s and "RSQRT" in s for s in segments), segments


def test_int8_layer_norm_runs_in_bands():
    """bert_tiny_int8's layer norm: the residual ADD, MEAN over channels, the mean's DEQUANTIZE, NEG and QUANTIZE,
    SQUARED_DIFFERENCE against it and the second MEAN run as one job; the normalizing MULs ([tokens, 1] times
    [channels] and times x), the beta ADD and the projections after it as another, and the int8 GELU inside the
    MLP's. (RSQRT, which refuses inputs below its zero point, and the epsilon ADD on TFLite's arithmetic run
    on their own.)"""
    segments = segments_of("bert_tiny_int8", 2)
    assert ["ADD", "MEAN", "DEQUANTIZE", "NEG", "QUANTIZE", "SQUARED_DIFFERENCE", "MEAN"] in segments, segments
    assert any(s[:6] == ["MUL", "MUL", "ADD", "MUL", "ADD", "FULLY_CONNECTED"] for s in segments), segments
    assert any("GELU" in s and "FULLY_CONNECTED" in s for s in segments), segments


@pytest.mark.parametrize("name", ["bert_tiny_f32", "bert_tiny_dynamic", "bert_tiny_int8"])
def test_attention_scores_scale_and_softmax_are_one_segment(name):
    """Q.K^T per head (float, or int8 at TFLite's fixed point: y's zero point is not 0), its scale and SOFTMAX:
    the BATCH_MATMUL heads a segment over the heads' query rows; the Q and K transposes end the projection's."""
    segments = segments_of(name, 2)
    assert ["BATCH_MATMUL", "MUL", "SOFTMAX"] in segments, segments
    assert any(s[-2:] == ["TRANSPOSE", "TRANSPOSE"] and "FULLY_CONNECTED" in s for s in segments), segments
