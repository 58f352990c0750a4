"""A training step's ops that LiteRT's default interpreter leaves to TFLite's builtin kernels (XNNPACK takes
neither a FULLY_CONNECTED whose weights change nor LOG_SOFTMAX) sum in those kernels' order in rillet too, so a
fine-tuned classifier's losses agree with LiteRT's once the loss is small, where one ulp of the log-softmax's
sum is 1e-7 / loss relative: LOG_SOFTMAX and a one-row FULLY_CONNECTED with weights that are not constant give
LiteRT's bits on sizes around Eigen's 4-float packets (native/kernels/f32_log_softmax_ref.c,
f32_gemv_eigen_ref.c), and a 1280 -> 1000 head (MobileNetV2's) trained to a loss near 0.02 keeps its 20 losses
within 1e-5 of LiteRT's (8e-5 apart when both summed in order, as TFLite's reference kernels and XNNPACK do).
The orders are LiteRT's x86 build's (SSE packets, no FMA in Eigen)."""

from __future__ import annotations

import platform
import sys
from pathlib import Path

import numpy as np
import pytest

import rillet
from rillet.runtime import Interpreter

litert = pytest.importorskip("ai_edge_litert.interpreter")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from single_op import Input, op_model, run  # noqa: E402

pytestmark = pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                                reason="LiteRT's order on x86 (Eigen on SSE); its Arm build sums otherwise")
F32 = np.float32


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 100, 1000, 1001, 1003])
@pytest.mark.parametrize("spread", [1.0, 60.0])
def test_log_softmax_gives_litert_bits(depth, spread):
    """spread 60: some lanes of a packet below -87, where Eigen's e^x scales by 2^m in four factors."""
    x = np.random.default_rng(depth).normal(0, spread, (3, depth)).astype(F32)
    m = op_model("LOG_SOFTMAX", [Input(x.shape)], [(x.shape, F32)])
    np.testing.assert_array_equal(run(Interpreter, m, [x])[0], run(litert.Interpreter, m, [x])[0])


def test_log_softmax_far_below_the_maximum():
    """Values under -104 below the row's maximum (e^x 0 in Eigen), and between -104 and -87 (its slow scaling)."""
    x = np.array([[0, -90, -95, -100, -103, -105, -120, 1, 2, -100, -101, -102, -88, -87.5, -86, -20, -50]], F32)
    m = op_model("LOG_SOFTMAX", [Input(x.shape)], [(x.shape, F32)])
    np.testing.assert_array_equal(run(Interpreter, m, [x])[0], run(litert.Interpreter, m, [x])[0])


@pytest.mark.parametrize("depth", [1, 3, 4, 5, 8, 12, 16, 17, 33, 130, 1283])
@pytest.mark.parametrize("units", [1, 2, 3, 9, 100])
@pytest.mark.parametrize("bias", [False, True])
def test_fully_connected_with_changing_weights_gives_litert_bits(depth, units, bias):
    """Weights and bias as inputs (what a training step's READ_VARIABLE gives): one unit takes Eigen's inner
    product, more its GEMV; RELU checks the clamp after the bias."""
    rs = np.random.default_rng(depth * 131 + units)
    x, w, b = rs.normal(size=(1, depth)), rs.normal(size=(units, depth)), rs.normal(size=units)
    feeds = [x.astype(F32), w.astype(F32)] + ([b.astype(F32)] if bias else [])
    for activation in (0, 1):
        m = op_model("FULLY_CONNECTED", [Input((1, depth)), Input((units, depth)), Input((units,)) if bias else None],
                     [((1, units), F32)], {"fused_activation_function": activation})
        np.testing.assert_array_equal(run(Interpreter, m, feeds)[0], run(litert.Interpreter, m, feeds)[0])


def classifier_head() -> tuple[bytes, np.ndarray]:
    """MobileNetV2's head alone: pooled features [1, 1280] (ReLU6'd, so in [0, 6]) to 1000 logits, a softmax."""
    from rillet.graph import Graph, Variable, ops

    rs = np.random.default_rng(7)
    graph = Graph()
    with graph.as_default():
        features = ops.placeholder([1, 1280], "float32", name="features")
        logits = ops.fully_connected(features, Variable(rs.normal(0, 0.05, (1000, 1280)).astype(F32), name="w"))
        probs = ops.softmax(logits)
    pooled = np.clip(rs.gamma(0.6, 0.6, (1, 1280)), 0, 6).astype(F32)
    return rillet.convert(inputs={"features": features}, outputs={"probs": probs}), pooled


def test_a_classifier_head_trained_to_a_small_loss_keeps_litert_losses():
    original, features = classifier_head()
    content = rillet.trainable(original, train_last=1, loss="softmax_cross_entropy", learning_rate=0.01)
    (want,) = litert.Interpreter(model_content=original).get_signature_runner("infer")(features=features).values()
    y = np.array([(int(np.argmax(want)) + 1) % 1000], np.int32)
    losses = {key: np.array([float(it.get_signature_runner("train")(features=features, y=y)["loss"])
                             for _ in range(20)])
              for key, it in (("rillet", Interpreter(model_content=content)),
                              ("litert", litert.Interpreter(model_content=content)))}
    assert losses["litert"][-1] < 0.05 < losses["litert"][0]  # small enough that the sums' order shows
    np.testing.assert_allclose(losses["rillet"], losses["litert"], rtol=1e-5)
