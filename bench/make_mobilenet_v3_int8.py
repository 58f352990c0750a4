"""Writes a full-int8 MobileNetV3-small (Keras's, TensorFlow's converter) for bench/bench_train_step.py: the
issue's target model for a head-training step. Random weights (Keras's initialisers, no download: the step's
cost does not depend on what was learned), calibrated on random images; int8 inputs and outputs.

    /work/txenv/bin/python bench/make_mobilenet_v3_int8.py [--size 224] [-o mobilenet_v3_small_int8.tflite]

Needs TensorFlow (/work/txenv); not a test or CI dependency. The file (~2.5 MB at 224) stays out of git."""

from __future__ import annotations

import argparse

import numpy as np


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--classes", type=int, default=1000)
    p.add_argument("-o", "--out", default="mobilenet_v3_small_int8.tflite")
    args = p.parse_args()
    import tensorflow as tf

    tf.keras.utils.set_random_seed(0)
    model = tf.keras.applications.MobileNetV3Small(input_shape=(args.size, args.size, 3), weights=None,
                                                   classes=args.classes)
    rs = np.random.default_rng(0)

    def calibration():
        for _ in range(8):
            yield [rs.uniform(0, 255, (1, args.size, args.size, 3)).astype(np.float32)]

    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = calibration
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    converter.inference_input_type = converter.inference_output_type = tf.int8
    data = converter.convert()
    with open(args.out, "wb") as f:
        f.write(data)
    print(f"wrote {args.out}: {len(data):,} bytes")


if __name__ == "__main__":
    main()
