"""Adapt a shipped int8 model on the device: the digits classifier, deployed full-int8, meets a camera
mounted sideways (every image rotated 90 degrees), and a few dozen labelled images taken with that camera
fine-tune it where it runs. No float model, no TensorFlow: the int8 file itself is made trainable.

    python examples/finetune_shipped_int8.py                       # writes finetune_int8/ here
    python examples/finetune_shipped_int8.py --samples 40 --train-last 3 --optimizer adam
    python examples/finetune_shipped_int8.py --model my_int8_digits.tflite   # your own 8x8x1 digits file

1. The shipped model: rillet's bundled digits CNN quantized to int8 by `rillet.quant.quantize` (per-channel
   weights, calibrated on bundled training images), standing in for a file any converter wrote; --model
   takes another one with the same input (8x8x1, values 0..16) and ten classes.
2. `rillet.trainable(model, train_last=N)` (the Python form of `rillet trainable`): the last N weighted
   layers become float variables, the rest of the file is copied as it is; `infer` is still the original's
   int8 arithmetic, bit for bit, until a step runs.
3. The data: scikit-learn's held-out digits (never seen in the model's training) when scikit-learn is
   installed, else the 200 bundled with rillet, rotated 90 degrees. The first --samples (60) train; the
   rest are held out and only measure.
4. Training on rillet's runtime (the loop `rillet train` runs), a line per epoch with the accuracy and the
   held-out accuracy; then `export_model` writes the fine-tuned model back in the original's int8 form and
   LiteRT runs it on the held-out images with the same predictions as rillet.

Exits 1 if held-out accuracy does not rise or LiteRT disagrees.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import rillet
from rillet.bundled import bundled_model_path, digits_calibration_images, digits_test_set
from rillet.runtime import Interpreter
from rillet.targets.device_train import DeviceTrainer


def shipped_int8_model() -> bytes:
    from rillet.quant import quantize

    return quantize(str(bundled_model_path()), digits_calibration_images(), progress=False)


def sideways(images: np.ndarray) -> np.ndarray:
    """What the camera mounted a quarter turn off sees: each [8, 8, 1] image rotated 90 degrees."""
    return np.ascontiguousarray(np.rot90(images, 1, axes=(1, 2)))


def predictions(run: object, input_name: str, output_name: str, images: np.ndarray) -> np.ndarray:
    return np.array([int(np.asarray(run(**{input_name: image[None]})[output_name]).argmax()) for image in images])


def int8_layers(content: bytes) -> int:
    """The weighted ops (convolutions, fully connected) whose data and weights are int8."""
    from rillet.converter import load
    from rillet.converter.trainable import WEIGHTED

    m = load(content)
    sg = m.subgraphs[0]
    found = 0
    for op in sg.operators:
        if m.op_name(op) in WEIGHTED and all(sg.tensors[i].type == 9 for i in op.inputs[:2]):  # 9: INT8
            found += 1
    return found


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", help="an int8 (or float) digits .tflite, input 8x8x1 (default: the bundled one, "
                                   "quantized here)")
    p.add_argument("--out", default="finetune_int8", help="folder for the training and fine-tuned files")
    p.add_argument("--samples", type=int, default=60, help="labelled sideways images to train on (default 60)")
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--batch-size", type=int, default=10)
    p.add_argument("--train-last", type=int, default=1, help="weighted layers to train (default 1: the head)")
    p.add_argument("--optimizer", choices=["sgd", "momentum", "adam"], default="momentum")
    p.add_argument("--learning-rate", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    model = Path(args.model).read_bytes() if args.model else shipped_int8_model()
    (out / "shipped_int8.tflite").write_bytes(model)
    digits = digits_test_set()
    order = np.random.default_rng(args.seed).permutation(len(digits.labels))
    images, labels = sideways(digits.images[order]), digits.labels[order]
    if not 0 < args.samples < len(labels) - 10:
        print(f"--samples {args.samples}: must leave at least 10 of the {len(labels)} images held out", file=sys.stderr)
        return 2
    train = (images[:args.samples], labels[:args.samples])
    held_out = (images[args.samples:], labels[args.samples:])
    print(f"data: {digits.source}; rotated 90 degrees; {args.samples} train, {len(held_out[1])} held out")

    upright = Interpreter(model_content=model).get_signature_runner()
    name_in = next(iter(upright.get_input_details()))
    name_out = next(iter(upright.get_output_details()))
    upright_accuracy = float((predictions(upright, name_in, name_out, digits.images) == digits.labels).mean())
    print(f"the shipped model on upright digits: {upright_accuracy:.3f}")

    training_path = out / "digits_train.tflite"
    training_path.write_bytes(rillet.trainable(model, train_last=args.train_last, optimizer=args.optimizer,
                                               learning_rate=args.learning_rate))
    trainer = DeviceTrainer(training_path)
    print(f"wrote {training_path}: training {', '.join(trainer.task['layers'])}")
    before = trainer.evaluate(held_out, args.batch_size)["val_accuracy"]
    print(f"held-out accuracy on sideways digits before fine-tuning: {before:.3f}")

    def show(epoch: int, values: dict[str, float]) -> None:
        print(f"epoch {epoch + 1}/{args.epochs}: " + ", ".join(f"{k} {v:.4g}" for k, v in values.items()))

    trainer.fit(train, epochs=args.epochs, batch_size=args.batch_size, validation=held_out, seed=args.seed,
                progress=False, on_epoch=show)
    after = trainer.evaluate(held_out, args.batch_size)["val_accuracy"]
    print(f"held-out accuracy on sideways digits: {before:.3f} -> {after:.3f}")

    finetuned = out / "digits_finetuned.tflite"
    trainer.interpreter.export_model(finetuned)
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    ours = predictions(trainer.interpreter.get_signature_runner("infer"), name_in, name_out, held_out[0])
    theirs = predictions(LiteRT(model_path=str(finetuned)).get_signature_runner(), name_in, name_out, held_out[0])
    same = bool((ours == theirs).all())
    shipped, kept = int8_layers(model), int8_layers(finetuned.read_bytes())
    print(f"wrote {finetuned}; LiteRT runs it: held-out accuracy {float((theirs == held_out[1]).mean()):.3f}, "
          f"same predictions as rillet: {same}; weighted layers computing in int8: {kept} of the shipped "
          f"model's {shipped} (the trained weights stored as int8 at the original's scales, the original's ops)")
    return 0 if after > before and same and kept == shipped else 1


if __name__ == "__main__":
    sys.exit(main())
