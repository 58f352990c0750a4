"""Small models in TFLite's 16x8 mode (int16 activations, int8 weights) from TensorFlow's converter, with inputs
and LiteRT's outputs: the fixtures of tests/runtime/test_int16x8_ops.py (tests/data/int16x8_ops/).

Run with /work/txenv/bin/python (TensorFlow; never a test dependency):
    python bench/make_int16x8_ops.py [--out tests/data/int16x8_ops]
Each model is converted with `EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8` (plus the float
builtins, so an op with no int16 kernel stays float between a DEQUANTIZE and a QUANTIZE, as the converter
writes it) and a representative dataset; float input and output, so the file starts with a QUANTIZE and ends
with a DEQUANTIZE. None holds a FULLY_CONNECTED or convolution (another branch's int16 GEMMs): attention here is
self-attention without projections (BATCH_MATMUL on activations).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def models() -> dict:
    """name -> (a tf.Module whose __call__ is a tf.function with an input signature, its input shapes)."""
    import tensorflow as tf

    def layer_norm(x, gamma, beta):
        # LayerNormalization spelled out with constant weights (a Keras layer's variables stay resource variables
        # in a tf.function). tf.nn.moments would give an int16 SQUARED_DIFFERENCE, which the converter writes but
        # LiteRT 2.3 cannot run (its kernel takes float32 and int32 only), so the variance is mean(d * d).
        d = x - tf.reduce_mean(x, axis=-1, keepdims=True)
        variance = tf.reduce_mean(d * d, axis=-1, keepdims=True)
        return d * tf.math.rsqrt(variance + 1e-5) * gamma + beta

    class AttentionBlock(tf.Module):
        def __init__(self):
            super().__init__()
            rng = np.random.default_rng(7)
            self.g1, self.b1, self.g2, self.b2 = (tf.constant(v, tf.float32) for v in (
                1 + 0.1 * rng.standard_normal(16), 0.1 * rng.standard_normal(16),
                1 + 0.1 * rng.standard_normal(16), 0.1 * rng.standard_normal(16)))

        @tf.function(input_signature=[tf.TensorSpec((1, 8, 16), tf.float32)])
        def __call__(self, x):
            h = layer_norm(x, self.g1, self.b1)
            scores = tf.matmul(h, h, transpose_b=True) * 0.25
            context = tf.matmul(tf.nn.softmax(scores, axis=-1), h)
            y = x + context
            return y + tf.nn.gelu(layer_norm(y, self.g2, self.b2), approximate=True) * 0.5

    class Elementwise(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec((1, 4, 24), tf.float32)] * 2)
        def __call__(self, a, b):
            s, d, m = a + b, a - b, a * b
            y = tf.concat([tf.sigmoid(s), tf.tanh(d), tf.nn.relu(m), tf.nn.relu6(s * 3.0), tf.nn.leaky_relu(d, 0.2),
                           tf.maximum(a, b), tf.minimum(a, b)], axis=-1)
            return tf.nn.softmax(y * 2.0, axis=-1)

    class Pooling(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec((1, 12, 12, 8), tf.float32)])
        def __call__(self, x):
            p = tf.nn.max_pool2d(x, 2, 2, "VALID")
            q = tf.nn.avg_pool2d(x, 3, 2, "SAME")
            y = tf.pad(tf.concat([p, q], axis=-1), [[0, 0], [1, 1], [1, 1], [0, 0]])
            mean = tf.reduce_mean(y, axis=[1, 2], keepdims=True)
            return y + mean, tf.reduce_sum(x, axis=-1)

    return {"attention_block": (AttentionBlock, [(1, 8, 16)]), "elementwise": (Elementwise, [(1, 4, 24)] * 2),
            "pooling": (Pooling, [(1, 12, 12, 8)])}


def convert(module, shapes: list[tuple[int, ...]], rng: np.random.Generator) -> bytes:
    import tensorflow as tf

    def representative():
        for _ in range(64):
            yield [(rng.standard_normal(s) * 1.5).astype(np.float32) for s in shapes]

    converter = tf.lite.TFLiteConverter.from_concrete_functions([module.__call__.get_concrete_function()], module)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = representative
    converter.target_spec.supported_ops = [
        tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8, tf.lite.OpsSet.TFLITE_BUILTINS]
    return converter.convert()


def litert_outputs(content: bytes, feeds: list[np.ndarray]) -> list[np.ndarray]:
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(model_content=content)
    it.allocate_tensors()
    for detail, value in zip(it.get_input_details(), feeds):
        it.set_tensor(detail["index"], value)
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/data/int16x8_ops")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(16)
    for name, (build, shapes) in models().items():
        content = convert(build(), shapes, rng)
        (out / f"{name}.tflite").write_bytes(content)
        from ai_edge_litert.interpreter import Interpreter

        details = Interpreter(model_content=content).get_input_details()
        feeds = [(rng.standard_normal(d["shape"]) * 1.5).astype(d["dtype"]) for d in details]
        outputs = litert_outputs(content, feeds)
        np.savez_compressed(out / f"{name}.npz", **{f"input_{i}": v for i, v in enumerate(feeds)},
                            **{f"output_{i}": v for i, v in enumerate(outputs)})
        print(f"{name}: {len(content)} bytes")


if __name__ == "__main__":
    main()
