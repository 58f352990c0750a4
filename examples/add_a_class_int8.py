"""Teach a shipped int8 classifier new classes on the device: the digits reader of a calculator, deployed
full-int8 with ten classes, learns the operator signs "+" and "x" from 20 labelled drawings of each. No float
model, no TensorFlow: the int8 file's head is widened to twelve classes and fine-tuned where it runs.

    python examples/add_a_class_int8.py                          # writes add_a_class/ here
    python examples/add_a_class_int8.py --per-class 10 --train-last 2 --optimizer adam

1. The shipped model: rillet's bundled digits CNN quantized to int8 by `rillet.quant.quantize`, standing in for
   a file any converter wrote (--model takes another 8x8x1, ten-class one).
2. `rillet.trainable(model, classes=12)` (`rillet trainable --classes 12`): the head (the last dense layer)
   gets two more output channels, zero weights, at the largest of its channels' int8 scales; it trains in
   float, the convolutions in front of it stay the original's int8 ops.
3. The data: the signs are drawn here the way UCI's digits were made (a stroke on a 32x32 bitmap, counted in
   4x4 blocks: values 0..16), each with its own position, size, stroke width and slant, since no licensed
   handwritten signs ship with rillet; the digits are scikit-learn's held-out ones (or the 200 bundled).
   Training mixes the new signs with as many digits (so the old classes are not forgotten); the rest of both
   is held out and only measures.
4. Training on rillet's runtime (the loop `rillet train` runs), then `export_model` writes the model back in
   its int8 form, twelve classes, and LiteRT runs it with the same predictions.

Exits 1 if the new signs are not learnt (held-out accuracy on them under 0.8), the digits' accuracy falls by
more than 0.1, or LiteRT disagrees.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import rillet
from rillet.bundled import bundled_model_path, digits_calibration_images, digits_test_set
from rillet.targets.device_train import DeviceTrainer

SIGNS = {10: "+", 11: "x"}


def shipped_int8_model() -> bytes:
    from rillet.quant import quantize

    return quantize(str(bundled_model_path()), digits_calibration_images(), progress=False)


def draw_sign(sign: str, rs: np.random.Generator) -> np.ndarray:
    """One drawing of `sign` as an [8, 8, 1] image of 0..16 values: two strokes through a jittered centre on a
    32x32 bitmap (a "+" upright, an "x" turned 45 degrees, each slanted a little), counted in 4x4 blocks."""
    y, x = np.mgrid[0:32, 0:32] + 0.5
    cy, cx = 16 + rs.uniform(-3, 3, 2)
    half, width = rs.uniform(7, 13), rs.uniform(1.5, 3.0)
    angle = (np.pi / 4 if sign == "x" else 0.0) + rs.uniform(-0.25, 0.25)
    bitmap = np.zeros((32, 32), bool)
    for turn in (angle, angle + np.pi / 2 + rs.uniform(-0.15, 0.15)):
        along = (x - cx) * np.cos(turn) + (y - cy) * np.sin(turn)
        across = -(x - cx) * np.sin(turn) + (y - cy) * np.cos(turn)
        bitmap |= (np.abs(along) <= half) & (np.abs(across) <= width)
    return bitmap.reshape(8, 4, 8, 4).sum(axis=(1, 3)).astype(np.float32)[..., None]


def predictions(run: object, input_name: str, output_name: str, images: np.ndarray) -> np.ndarray:
    return np.array([int(np.asarray(run(**{input_name: image[None]})[output_name]).argmax()) for image in images])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", help="an int8 (or float) ten-class digits .tflite, input 8x8x1 (default: the bundled "
                                   "one, quantized here)")
    p.add_argument("--out", default="add_a_class", help="folder for the training and fine-tuned files")
    p.add_argument("--per-class", type=int, default=20, help="labelled drawings of each new sign (default 20)")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=10)
    p.add_argument("--train-last", type=int, default=1, help="weighted layers to train (default 1: the head)")
    p.add_argument("--optimizer", choices=["sgd", "momentum", "adam"], default="momentum")
    p.add_argument("--learning-rate", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.per_class < 1:
        print(f"--per-class {args.per_class}: must be at least 1", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rs = np.random.default_rng(args.seed)

    model = Path(args.model).read_bytes() if args.model else shipped_int8_model()
    (out / "shipped_int8.tflite").write_bytes(model)
    digits = digits_test_set()
    order = rs.permutation(len(digits.labels))
    held_signs = 40
    signs = {label: np.stack([draw_sign(sign, rs) for _ in range(args.per_class + held_signs)])
             for label, sign in SIGNS.items()}
    n_digits = min(len(SIGNS) * args.per_class, len(order) // 2)
    train_images = np.concatenate([digits.images[order[:n_digits]], *(s[:args.per_class] for s in signs.values())])
    train_labels = np.concatenate([digits.labels[order[:n_digits]],
                                   *(np.full(args.per_class, label) for label in signs)]).astype(np.int32)
    held_digits = (digits.images[order[n_digits:]], digits.labels[order[n_digits:]].astype(np.int32))
    held_new = (np.concatenate([s[args.per_class:] for s in signs.values()]),
                np.concatenate([np.full(held_signs, label) for label in signs]).astype(np.int32))
    print(f"data: {digits.source}; signs {' '.join(SIGNS.values())} drawn here; train {n_digits} digits + "
          f"{args.per_class} of each sign; held out {len(held_digits[1])} digits + {held_signs} of each sign")

    training_path = out / "calculator_train.tflite"
    training_path.write_bytes(rillet.trainable(model, train_last=args.train_last, classes=10 + len(SIGNS),
                                               optimizer=args.optimizer, learning_rate=args.learning_rate))
    trainer = DeviceTrainer(training_path)
    print(f"wrote {training_path}: the head widened to {10 + len(SIGNS)} classes; training "
          f"{', '.join(trainer.task['layers'])}")
    infer = trainer.interpreter.get_signature_runner("infer")
    name_in, name_out = next(iter(infer.get_input_details())), next(iter(infer.get_output_details()))

    def scores() -> tuple[float, float]:
        return tuple(float((predictions(infer, name_in, name_out, images) == labels).mean())
                     for images, labels in (held_digits, held_new))

    digits_before, signs_before = scores()
    print(f"held out before fine-tuning: digits {digits_before:.3f}, new signs {signs_before:.3f}")

    def show(epoch: int, values: dict[str, float]) -> None:
        print(f"epoch {epoch + 1}/{args.epochs}: " + ", ".join(f"{k} {v:.4g}" for k, v in values.items()))

    trainer.fit((train_images, train_labels), epochs=args.epochs, batch_size=args.batch_size, seed=args.seed,
                progress=False, on_epoch=show)
    digits_after, signs_after = scores()
    print(f"held out after: digits {digits_before:.3f} -> {digits_after:.3f}, "
          f"new signs {signs_before:.3f} -> {signs_after:.3f}")

    finetuned = out / "calculator_int8.tflite"
    trainer.interpreter.export_model(finetuned)
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    everything = np.concatenate([held_digits[0], held_new[0]])
    ours = predictions(infer, name_in, name_out, everything)
    theirs = predictions(LiteRT(model_path=str(finetuned)).get_signature_runner(), name_in, name_out, everything)
    same = bool((ours == theirs).all())
    print(f"wrote {finetuned} (int8, {10 + len(SIGNS)} classes); LiteRT runs it with the same predictions "
          f"as rillet: {same}")
    return 0 if signs_after >= 0.8 and digits_after >= digits_before - 0.1 and same else 1


if __name__ == "__main__":
    sys.exit(main())
