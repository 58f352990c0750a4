"""Writes the ImageNet-sized CNNs of issues 28 and 29 (the Arm bench's models) as Keras and TensorFlow's
converter users write them, with LiteRT's outputs. Random weights (Keras's initialisers, seeded, nothing is
downloaded: an invoke's cost does not depend on what was learned); int8 calibrated on seeded random images,
int8 inputs and outputs (TFLITE_BUILTINS_INT8, inference_input/output_type int8).

Runs in a development venv outside the repository (TensorFlow is not a rillet dependency):

    /work/txenv/bin/python bench/make_cnn_models.py [--out /work/txmodels/cnn] [--only NAME ...]

The models (224x224x3, 1000 classes):
- mobilenet_v2_100_224_{f32,int8}: keras.applications.MobileNetV2(alpha=1.0); its input is the image already
  scaled to [-1, 1] (the application's preprocess_input is outside the model).
- mobilenet_v3_small_224_{f32,int8}: keras.applications.MobileNetV3Small (its Rescaling layer is inside the
  model: input pixels in [0, 255]).
- efficientnet_b0_int8: keras.applications.EfficientNetB0 (Rescaling and Normalization inside: [0, 255]).

Each MODEL.tflite comes with MODEL.npz in bench/make_transformers.py's layout: `SIG/in/NAME` (the input given)
and `SIG/out/NAME` (what LiteRT's default Interpreter, XNNPACK included, returned), so bench/bench_transformers.py
and bench/bench_arm.py read them as they read the transformers. int8 inputs are the float image quantized
with the model's input scale and zero point.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_transformers import signature_inputs, write_model  # noqa: E402

SIZE = 224
CALIBRATION_SAMPLES = 8

# name: (keras.applications constructor, keyword arguments, input range the model expects, kinds)
MODELS = {
    "mobilenet_v2_100_224": ("MobileNetV2", {"alpha": 1.0}, (-1.0, 1.0), ("f32", "int8")),
    "mobilenet_v3_small_224": ("MobileNetV3Small", {}, (0.0, 255.0), ("f32", "int8")),
    "efficientnet_b0": ("EfficientNetB0", {}, (0.0, 255.0), ("int8",)),
}


def build(family: str):
    """The Keras application with random weights whose batch normalizations hold the statistics of a random
    batch. Keras's initial moving mean 0 and variance 1 let the activations fade layer after layer (the
    output came out uniform: every class 0.001, int8 -128 everywhere, which would make any runtime agree);
    one forward pass in training mode with momentum 0 stores each layer's batch statistics instead, as
    training would have, so every layer sees activations of a trained network's scale. The classifier is
    scaled so the outputs differ from class to class (int8 softmax outputs not all -128)."""
    import tensorflow as tf

    constructor, kwargs, value_range, _ = MODELS[family]
    tf.keras.utils.set_random_seed(0)
    model = getattr(tf.keras.applications, constructor)(input_shape=(SIZE, SIZE, 3), weights=None,
                                                        classes=1000, **kwargs)
    norms = [layer for layer in model._flatten_layers() if isinstance(layer, tf.keras.layers.BatchNormalization)]
    for layer in norms:
        layer.momentum = 0.0
    batch = np.random.default_rng(3).uniform(*value_range, (4, SIZE, SIZE, 3)).astype(np.float32)
    model(batch, training=True)
    for layer in norms:
        layer.momentum = 0.99
    # An untrained classifier's logits hardly differ (softmax ~0.001 each, below int8's 1/256 step): scale
    # the last layer with weights so the logits spread like a trained one's (standard deviation 3).
    # The last such layer is a Dense (softmax inside it) or a 1x1 convolution on [N, 1, 1, C]: logits are
    # its input times its kernel either way.
    last = [layer for layer in model.layers if layer.get_weights()][-1]
    features = np.asarray(tf.keras.Model(model.inputs, last.input)(batch, training=False))
    kernel, bias = last.get_weights()
    logits = features.reshape(len(batch), -1) @ kernel.reshape(-1, kernel.shape[-1]) + bias
    factor = 3.0 / float(np.std(logits))
    last.set_weights([w * factor for w in last.get_weights()])
    return model


def convert(model, kind: str, value_range: tuple[float, float]) -> bytes:
    import tensorflow as tf

    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    if kind == "int8":
        rs = np.random.default_rng(1)

        def calibration():
            for _ in range(CALIBRATION_SAMPLES):
                yield [rs.uniform(*value_range, (1, SIZE, SIZE, 3)).astype(np.float32)]

        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = calibration
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = converter.inference_output_type = tf.int8
    return converter.convert()


def image_input(value_range: tuple[float, float]):
    """make(name, detail) for signature_inputs: one seeded image, quantized when the input is int8."""
    image = np.random.default_rng(2).uniform(*value_range, (1, SIZE, SIZE, 3)).astype(np.float32)

    def make(name, detail):
        if detail["dtype"] == np.int8:
            scale, zero_point = detail["quantization"]
            return np.clip(np.round(image / scale) + zero_point, -128, 127).astype(np.int8)
        return image.astype(detail["dtype"])

    return make


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path("/work/txmodels/cnn"))
    p.add_argument("--only", nargs="*", help="model names (e.g. mobilenet_v2_100_224_int8)")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for family, (_, _, value_range, kinds) in MODELS.items():
        wanted = [k for k in kinds if not args.only or f"{family}_{k}" in args.only]
        if not wanted:
            continue
        model = build(family)
        for kind in wanted:
            content = convert(model, kind, value_range)
            write_model(args.out, f"{family}_{kind}", content,
                        signature_inputs(content, image_input(value_range)))


if __name__ == "__main__":
    main()
