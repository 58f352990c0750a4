"""Train a small CNN on scikit-learn's handwritten digits with the XLA backend, write it as `.tflite`, and
check that LiteRT and rillet's runtime classify the held-out images exactly as the graph does.

    python examples/train_desktop.py                     # writes digits.tflite
    python examples/train_desktop.py --out rillet/data/digits.tflite --sample rillet/data/digits_sample.npz

The second form refreshes the model `rillet demo` ships. The data (8x8 images, 1,797 samples) comes with
scikit-learn, so nothing is downloaded. The model's input is the image as scikit-learn gives it: float32
values 0 to 16 shaped [batch, 8, 8, 1]; the scaling to [-1, 1] is part of the graph, so whoever runs the
file feeds raw pixels. Exits 1 when the three runtimes disagree or the test accuracy is under --min-accuracy.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import rillet as rl
from rillet.graph import Graph, Model, layers, losses, optimizers, placeholder

CLASSES = 10
TEST_FRACTION = 0.25


def load_split(seed: int = 0, test_fraction: float = TEST_FRACTION) -> dict[str, np.ndarray]:
    """scikit-learn's digits as float32 [n, 8, 8, 1] (values 0..16) and int32 labels, split at random by
    `seed` into train and test; `test_indices` index load_digits()'s order, for the demo to find them."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = digits.images.astype(np.float32)[..., None]
    labels = digits.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(labels))
    n_test = int(np.ceil(test_fraction * len(labels)))
    test, train = np.sort(order[:n_test]), order[n_test:]
    return {"x_train": images[train], "y_train": labels[train], "x_test": images[test], "y_test": labels[test],
            "test_indices": test}


def build_model(seed: int = 0) -> tuple[Model, object]:
    """image [batch, 8, 8, 1] (0..16) -> probs [batch, 10]: two conv-relu-maxpool blocks and a dense layer,
    about 6k parameters. Returns the model (for conversion) and its logits (for the loss)."""
    layers.set_seed(seed)
    graph = Graph()
    with graph.as_default():
        image = layers.Input((8, 8, 1), name="image")
        with graph.name_scope("normalize"):
            h = image * np.float32(1 / 8) - np.float32(1.0)  # 0..16 -> -1..1, so callers feed raw pixels
        h = layers.Conv2D(16, 3, padding="same", activation="relu", name="conv1")(h)
        h = layers.MaxPool2D(2, name="pool1")(h)  # 4x4x16
        h = layers.Conv2D(32, 3, padding="same", activation="relu", name="conv2")(h)
        h = layers.MaxPool2D(2, name="pool2")(h)  # 2x2x32
        h = layers.Flatten(name="flatten")(h)
        logits = layers.Dense(CLASSES, name="logits")(h)
        probs = layers.Activation("softmax", name="probs")(logits)
    return Model({"image": image}, {"probs": probs}, name="digits_cnn"), logits


def train(model: Model, logits, x: np.ndarray, y: np.ndarray, epochs: int = 20, batch_size: int = 32,
          learning_rate: float = 3e-3, seed: int = 0, progress: bool = True):
    """Adam on softmax cross-entropy, one jitted XLA step per batch, shuffled by `seed`. Returns the runner
    (holding the trained variables) and the mean training loss of each epoch."""
    from tqdm import tqdm

    from rillet.targets.xla import XlaRunner

    graph = model.graph
    with graph.as_default():
        labels = placeholder([None], "int32", name="labels")
        loss = losses.softmax_cross_entropy(labels, logits)
        step = optimizers.Adam(learning_rate).minimize(loss, model.trainable_variables)
    runner = XlaRunner([loss, step], [model.inputs["image"], labels], seed=seed)
    rng = np.random.default_rng(seed)
    # whole batches only: one compiled shape, and no small last batch to weigh as much as a full one
    steps_per_epoch = len(y) // batch_size
    epoch_losses = []
    bar = tqdm(range(epochs), desc="training", unit="epoch", disable=not progress)
    for _ in bar:
        order = rng.permutation(len(y))
        total = 0.0
        for i in range(steps_per_epoch):
            batch = order[i * batch_size:(i + 1) * batch_size]
            total += float(runner.run([x[batch], y[batch]])[0])
        epoch_losses.append(total / steps_per_epoch)
        bar.set_postfix(loss=f"{epoch_losses[-1]:.4f}")
    runner.sync_to_graph()  # the converter and the graph's own runs read the trained values from the graph
    return runner, epoch_losses


def graph_probabilities(model: Model, x: np.ndarray) -> np.ndarray:
    """The graph's own answer, run as one jitted XLA function on the trained variables."""
    from rillet.targets.xla import XlaRunner

    return XlaRunner(model.outputs["probs"], [model.inputs["image"]]).run([x])


def interpreter_probabilities(make_interpreter: Callable, data: bytes, x: np.ndarray) -> np.ndarray:
    """Classify x through a TFLite-style interpreter's `infer` signature (rillet's or LiteRT's)."""
    runner = make_interpreter(model_content=data).get_signature_runner("infer")
    return np.asarray(runner(image=x)["probs"])


def runtimes() -> dict[str, Callable]:
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from rillet.runtime import Interpreter

    return {"LiteRT": LiteRT, "rillet runtime": Interpreter}


def write_sample(path: Path, split: dict[str, np.ndarray], size: int = 200, calibration_size: int = 100) -> None:
    """The held-out indices, the first `size` held-out images as uint8 (digits are integers 0..16), for
    `rillet demo` where scikit-learn is not installed, and the first `calibration_size` *training* images,
    which the demo quantizes the model with (calibrating on the images it scores would flatter int8)."""
    images = split["x_test"][:size, ..., 0]
    calibration = split["x_train"][:calibration_size, ..., 0]
    for x in (images, calibration):
        assert np.array_equal(x, np.round(x)) and x.max() <= 16
    np.savez_compressed(path, test_indices=split["test_indices"].astype(np.uint16),
                        images=images.astype(np.uint8), labels=split["y_test"][:size].astype(np.uint8),
                        calibration=calibration.astype(np.uint8))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=20, help="passes over the training set (default 20)")
    parser.add_argument("--batch-size", type=int, default=32, help="images per training step (default 32)")
    parser.add_argument("--learning-rate", type=float, default=3e-3, help="Adam's learning rate (default 3e-3)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the split, the weights and the shuffling")
    parser.add_argument("--out", type=Path, default=Path("digits.tflite"), help="the model file to write")
    parser.add_argument("--sample", type=Path, help="also write the held-out sample `rillet demo` ships")
    parser.add_argument("--min-accuracy", type=float, default=0.95, help="fail under this test accuracy")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)

    split = load_split(args.seed)
    print(f"digits: {len(split['y_train'])} training and {len(split['y_test'])} test images (split seed {args.seed})")
    model, logits = build_model(args.seed)
    start = time.perf_counter()
    _, epoch_losses = train(model, logits, split["x_train"], split["y_train"], args.epochs, args.batch_size,
                            args.learning_rate, args.seed, progress=not args.quiet)
    seconds = time.perf_counter() - start
    final = f"; final training loss {epoch_losses[-1]:.4f}" if epoch_losses else ""
    print(f"trained {args.epochs} epochs on XLA ({_backend()}) in {seconds:.1f} s{final}")

    data = rl.convert(model)
    args.out.write_bytes(data)
    print(f"wrote {args.out} ({len(data):,} bytes)")
    if args.sample:
        write_sample(args.sample, split)
        print(f"wrote {args.sample}")

    x, y = split["x_test"], split["y_test"]
    expected = graph_probabilities(model, x).argmax(1)
    results = {"graph (XLA)": expected}
    for name, make in runtimes().items():
        results[name] = interpreter_probabilities(make, data, x).argmax(1)
    failed = False
    for name, predicted in results.items():
        differ = int(np.sum(predicted != expected))
        note = "" if name == "graph (XLA)" else f"   {differ} predictions differ from the graph's"
        print(f"  {name:<15} test accuracy {np.mean(predicted == y):.2%}{note}")
        failed |= differ > 0
    accuracy = float(np.mean(expected == y))
    if failed:
        print("FAIL: the runtimes do not classify the test set as the graph does", file=sys.stderr)
    if accuracy < args.min_accuracy:
        print(f"FAIL: test accuracy {accuracy:.2%} is under {args.min_accuracy:.0%}", file=sys.stderr)
        failed = True
    return 1 if failed else 0


def _backend() -> str:
    import jax

    return f"{jax.default_backend()}, {len(jax.devices())} device{'s' if len(jax.devices()) > 1 else ''}"


if __name__ == "__main__":
    sys.exit(main())
