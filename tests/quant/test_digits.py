"""The bundled digits CNN, quantized to int8 (calibrated on 64 held-out images, scored on the other 136),
classifies within 1 point of float in LiteRT, and in rillet once rillet runs int8 (an explicit xfail until)."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter as LiteRT
from quantcheck import assert_same_bits_in_rillet, run

from rillet.bundled import bundled_model_path, digits_test_set
from rillet.quant import quantize


@pytest.fixture(scope="module")
def digits():
    data = digits_test_set(use_sklearn=False)
    f32 = bundled_model_path().read_bytes()
    calib, images, labels = data.images[:64], data.images[64:], data.labels[64:]
    xs = [x[None].astype(np.float32) for x in images]
    return f32, quantize(f32, calib, progress=False), xs, labels  # calibrated by rillet's float runtime


def accuracy(content, xs, labels, interpreter_class=LiteRT) -> float:
    return float(np.mean(run(content, xs, interpreter_class).reshape(len(xs), -1).argmax(-1) == labels))


def test_int8_within_one_point_of_float_in_litert(digits):
    f32, q, xs, labels = digits
    float_acc, int8_acc = accuracy(f32, xs, labels), accuracy(q, xs, labels)
    print(f"digits: float {float_acc:.2%}, int8 {int8_acc:.2%} ({len(f32):,} -> {len(q):,} bytes)")
    assert float_acc > 0.9 and int8_acc >= float_acc - 0.01


def test_int8_within_one_point_of_float_in_rillet(digits):
    f32, q, xs, labels = digits
    from rillet.runtime import Interpreter

    assert accuracy(q, xs, labels, Interpreter) >= accuracy(f32, xs, labels, Interpreter) - 0.01
    assert_same_bits_in_rillet(q, xs[:20])
