"""Writes the 16x8 fixtures of tests/data/int16x8: small Keras models through TensorFlow's converter in its
16x8 mode (int16 activations with zero point 0, int8 per-channel weights, int64 biases), each with inputs and
LiteRT's outputs (.npz: x, y). Inputs have a fixed batch of 1, so the converter writes what a deployed model
holds: FULLY_CONNECTED with keep_num_dims on a 3-D input, dilated convolutions as one CONV_2D or
DEPTHWISE_CONV_2D (not SPACE_TO_BATCH_ND around them), a constant TRANSPOSE_CONV output_shape. Run with the
TensorFlow venv: /work/txenv/bin/python bench/make_int16x8_models.py [--only NAME]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import tensorflow as tf
from ai_edge_litert.interpreter import Interpreter

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "int16x8"


def models() -> dict[str, tf.keras.Model]:
    L = tf.keras.layers
    def seq(shape, *layers):
        return tf.keras.Sequential([tf.keras.Input(shape, batch_size=1), *layers])
    return {
        "dense_2d": seq((37,), L.Dense(19, activation="relu"), L.Dense(7)),
        "dense_3d": seq((5, 24), L.Dense(13), L.Dense(9, activation="relu")),
        "dense_no_bias": seq((33,), L.Dense(17, use_bias=False)),
        "conv_same_stride": seq((11, 10, 3), L.Conv2D(8, 3, strides=2, padding="same", activation="relu"),
                                L.Conv2D(5, 1)),
        "conv_valid_dilated": seq((12, 12, 4), L.Conv2D(6, (3, 2), dilation_rate=2, padding="valid"),
                                  L.Conv2D(7, 3, strides=(1, 2), padding="same", activation="relu6")),
        "conv_no_bias": seq((7, 9, 5), L.Conv2D(6, 3, padding="same", use_bias=False)),
        "depthwise": seq((9, 8, 6), L.DepthwiseConv2D(3, padding="same", activation="relu"),
                         L.DepthwiseConv2D(3, strides=2, depth_multiplier=2, padding="valid")),
        "depthwise_dilated": seq((10, 10, 4), L.DepthwiseConv2D(3, dilation_rate=2, padding="same")),
        "transpose_conv": seq((5, 6, 4), L.Conv2DTranspose(6, 3, strides=2, padding="same"),
                              L.Conv2DTranspose(3, 2, strides=1, padding="valid", use_bias=False)),
    }


def randomize_biases(model: tf.keras.Model, rng: np.random.Generator) -> None:
    """Keras starts biases at zero, and the converter drops a bias of zeros from FULLY_CONNECTED: random ones
    make every fixture add one (the use_bias=False layers keep none)."""
    for layer in model.layers:
        bias = getattr(layer, "bias", None)
        if bias is not None:
            bias.assign(rng.normal(0, 0.5, bias.shape).astype(np.float32))


def convert(model: tf.keras.Model, rng: np.random.Generator) -> bytes:
    shape = (1, *model.input_shape[1:])

    def representative():
        for _ in range(16):
            yield [rng.normal(0, 1, shape).astype(np.float32)]

    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = representative
    conv.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
    conv.inference_input_type = tf.int16
    conv.inference_output_type = tf.int16
    return conv.convert()


def litert_outputs(content: bytes, x: np.ndarray) -> np.ndarray:
    it = Interpreter(model_content=content)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=None)
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    tf.keras.utils.set_random_seed(7)
    for name, model in models().items():
        if args.only and name != args.only:
            continue
        rng = np.random.default_rng(len(name))
        randomize_biases(model, rng)
        content = convert(model, rng)
        (OUT / f"{name}.tflite").write_bytes(content)
        it = Interpreter(model_content=content)
        scale, zp = it.get_input_details()[0]["quantization"]
        assert zp == 0, (name, zp)
        x = np.clip(np.round(rng.normal(0, 1.3, (1, *model.input_shape[1:])) / scale), -32768, 32767).astype(np.int16)
        y = litert_outputs(content, x)
        np.savez_compressed(OUT / f"{name}.npz", x=x, y=y)
        print(f"{name}: {len(content)} bytes, output {y.shape} {y.dtype}")


if __name__ == "__main__":
    main()
