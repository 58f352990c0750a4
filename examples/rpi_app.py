"""A Raspberry Pi app: classify handwritten digits with the digits model bundled in rillet, and fine-tune its
last layer on the device from a few labelled images of your own.

    python examples/rpi_app.py --make-sample digits/          # held-out digits as files, to try it with
    python examples/rpi_app.py digits/                        # classify every .png / .npy in the folder
    python examples/rpi_app.py digits/ --labelled mine/ --epochs 20 --out digits_mine.tflite

An image is 8x8 grey with the ink bright: a .png (0..255; any size, resized) or an .npy as scikit-learn gives
digits (0..16). A labelled image's file name starts with its digit and an underscore (`7_003.png`).

Fine-tuning runs on the device, on rillet alone (no JAX): rillet.converter imports the bundled float model as
a graph and writes a training file whose `train` signature updates only the `logits` layer (SGD, cross
entropy on integer labels); the runtime runs that signature on the labelled images, reports their accuracy
before and after, saves the trained head as a checkpoint and exports the fine-tuned model (`--out`), which
rillet or LiteRT then run like the original.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import rillet as rl
from rillet.bundled import bundled_model_path, digits_test_set
from rillet.graph import optimizers
from rillet.runtime import Interpreter

SUFFIXES = (".png", ".npy")


def read_image(path: Path) -> np.ndarray:
    """The model's input for one file: float32 [8, 8, 1], 0..16."""
    if path.suffix == ".npy":
        image = np.load(path, allow_pickle=False).astype(np.float32)
    else:
        try:
            from PIL import Image
        except ImportError:
            raise SystemExit("rpi_app: reading .png needs Pillow (sudo apt install python3-pil); .npy needs nothing")
        with Image.open(path) as png:
            image = np.asarray(png.convert("L").resize((8, 8), Image.Resampling.BOX), np.float32) * (16 / 255)
    if image.shape not in ((8, 8), (8, 8, 1)):
        raise ValueError(f"{path}: an .npy image is 8x8, this one is {image.shape}")
    return image.reshape(8, 8, 1)


def image_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise SystemExit(f"rpi_app: {folder}: no such folder")
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES)


def labelled_images(folder: Path) -> tuple[np.ndarray, np.ndarray]:
    files = [p for p in image_files(folder) if p.name[0].isdigit() and p.name[1:2] == "_"]
    if not files:
        raise SystemExit(f"rpi_app: {folder} holds no labelled image (a name like 7_003.png)")
    return np.stack([read_image(p) for p in files]), np.array([int(p.name[0]) for p in files], np.int32)


def training_model(learning_rate: float) -> bytes:
    """The bundled model as a training file: `infer` gives the logits, `train` updates the logits layer only."""
    imported = rl.to_graph(bundled_model_path())
    logits = imported.outputs["probs"].node.inputs[0]  # the softmax's input
    spec = rl.TrainSpec(loss="softmax_cross_entropy", optimizer=optimizers.SGD(learning_rate), trainable=["logits"],
                        label_dtype=np.int32)
    return rl.convert(inputs=imported.inputs, outputs={"logits": logits}, train=spec)


def accuracy(interpreter: Interpreter, images: np.ndarray, labels: np.ndarray) -> float:
    logits = interpreter.get_signature_runner("infer")(image=images)["logits"]
    return float(np.mean(np.argmax(logits, axis=1) == labels))


def fine_tune(interpreter: Interpreter, images: np.ndarray, labels: np.ndarray, epochs: int, batch: int) -> None:
    train = interpreter.get_signature_runner("train")
    rng = np.random.default_rng(0)
    before = accuracy(interpreter, images, labels)
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(labels))
        losses = [float(train(image=images[rows], y=labels[rows])["loss"])
                  for rows in np.array_split(order, max(1, len(order) // batch))]
        if epoch == 1 or epoch == epochs:
            print(f"epoch {epoch}: mean loss {np.mean(losses):.4f}")
    print(f"labelled images: {len(labels)}, accuracy {before:.1%} before fine-tuning, "
          f"{accuracy(interpreter, images, labels):.1%} after")


def classify(interpreter: Interpreter, files: list[Path]) -> None:
    infer = interpreter.get_signature_runner("infer")
    for path in files:
        logits = infer(image=read_image(path)[None])["logits"][0]
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        print(f"{path.name}: {int(np.argmax(probs))} ({probs.max():.0%})")


def make_sample(folder: Path, count: int) -> None:
    """Held-out digits the model never saw, as labelled files (.png with Pillow, else .npy)."""
    digits = digits_test_set(use_sklearn=False)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        from PIL import Image
    except ImportError:
        Image = None
    for k in range(min(count, len(digits.labels))):
        name = folder / f"{digits.labels[k]}_{k:03d}"
        if Image is None:
            np.save(name.with_suffix(".npy"), digits.images[k, :, :, 0])
        else:
            Image.fromarray(np.round(digits.images[k, :, :, 0] * (255 / 16)).astype(np.uint8)).save(
                name.with_suffix(".png"))
    print(f"wrote {min(count, len(digits.labels))} labelled digits to {folder}/")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("images", type=Path, nargs="?", help="a folder of .png / .npy digits to classify")
    parser.add_argument("--labelled", type=Path, help="fine-tune the last layer on these labelled images first")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--learning-rate", type=float, default=0.02)
    parser.add_argument("--checkpoint", type=Path, default=Path("digits_head.npz"),
                        help="the fine-tuned layer, restored by the next run (default digits_head.npz)")
    parser.add_argument("--out", type=Path, help="export the fine-tuned model here (.tflite)")
    parser.add_argument("--make-sample", type=Path, metavar="DIR", help="write held-out digits to DIR and exit")
    parser.add_argument("--count", type=int, default=30, help="how many digits --make-sample writes")
    args = parser.parse_args(argv)
    if args.make_sample:
        make_sample(args.make_sample, args.count)
        return 0
    if args.images is None and args.labelled is None:
        parser.error("give a folder of images to classify, --labelled DIR, or --make-sample DIR")

    interpreter = Interpreter(model_content=training_model(args.learning_rate))
    if args.checkpoint.exists() and args.labelled is None:
        interpreter.restore_checkpoint(args.checkpoint)
        print(f"using the fine-tuned layer in {args.checkpoint}")
    if args.labelled is not None:
        fine_tune(interpreter, *labelled_images(args.labelled), args.epochs, args.batch)
        interpreter.save_checkpoint(args.checkpoint)
        if args.out:
            interpreter.export_model(args.out)
            print(f"wrote {args.out}")
    if args.images is not None:
        classify(interpreter, image_files(args.images))
    return 0


if __name__ == "__main__":
    sys.exit(main())
