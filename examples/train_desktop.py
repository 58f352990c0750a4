"""Train a small CNN on scikit-learn's handwritten digits with the XLA backend, write it as `.tflite`, and
check that LiteRT and rillet's runtime classify the held-out images exactly as the graph does.

    python examples/train_desktop.py                     # writes digits.tflite
    python examples/train_desktop.py --out rillet/data/digits.tflite --sample rillet/data/digits_sample.npz
    python examples/train_desktop.py --processes 2       # the same training over 2 local processes

The second form refreshes the model `rillet demo` ships. Training is `rillet.targets.xla.fit`; with
--processes N it runs as N processes joined by jax.distributed, each feeding its share of every batch, and
process 0 writes and checks the file. The data (8x8 images, 1,797 samples) comes with
scikit-learn, so nothing is downloaded. The model's input is the image as scikit-learn gives it: float32
values 0 to 16 shaped [batch, 8, 8, 1]; the scaling to [-1, 1] is part of the graph, so whoever runs the
file feeds raw pixels. Exits 1 when the three runtimes disagree or the test accuracy is under --min-accuracy.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import rillet as rl
from rillet.graph import Graph, Model, layers, optimizers

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


def build_model(seed: int = 0) -> Model:
    """image [batch, 8, 8, 1] (0..16) -> probs [batch, 10]: two conv-relu-maxpool blocks and a dense layer,
    about 6k parameters. fit takes the loss on the logits under the softmax."""
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
    return Model({"image": image}, {"probs": probs}, name="digits_cnn")


def train(model: Model, x: np.ndarray, y: np.ndarray, epochs: int = 20, batch_size: int = 32,
          learning_rate: float = 3e-3, seed: int = 0, progress: bool = True, **fit_options):
    """Adam on softmax cross-entropy through `fit`: whole batches shuffled by `seed`, one jitted XLA step
    each. The trained values are left in the model's graph; returns fit's history."""
    from rillet.targets.xla import fit

    return fit(model, (x, y), loss="softmax_cross_entropy", optimizer=optimizers.Adam(learning_rate),
               epochs=epochs, batch_size=batch_size, metrics=["accuracy"], seed=seed, progress=progress,
               **fit_options)


def graph_probabilities(model: Model, x: np.ndarray) -> np.ndarray:
    """The graph's own answer, run as one jitted XLA function on the trained variables."""
    from rillet.targets.xla import XlaRunner

    return XlaRunner(model.outputs["probs"], [model.inputs["image"]]).run([x])


def interpreter_probabilities(make_interpreter: Callable, data: bytes, x: np.ndarray) -> np.ndarray:
    """Classify x through a TFLite-style interpreter's `infer` signature (rillet's or LiteRT's)."""
    runner = make_interpreter(model_content=data).get_signature_runner("infer")
    return np.asarray(runner(image=x)["probs"])


def runtimes() -> dict[str, Callable]:
    """rillet's runtime, and LiteRT's beside it where ai-edge-litert is installed (a GPU box may lack it)."""
    from rillet.runtime import Interpreter

    try:
        from ai_edge_litert.interpreter import Interpreter as LiteRT
    except ImportError:
        print("  (ai-edge-litert is not installed: no LiteRT row)")
        return {"rillet runtime": Interpreter}
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
    parser.add_argument("--processes", type=int, default=1, help="train as N local processes (jax.distributed)")
    parser.add_argument("--checkpoint-dir", type=Path, help="checkpoint here (and resume from it)")
    parser.add_argument("--every", type=int, default=100, help="steps between checkpoints (default 100)")
    parser.add_argument("--log-dir", type=Path, help="TensorBoard scalars here (needs tensorboardX)")
    parser.add_argument("--precision", choices=["float32", "bfloat16"], default="float32",
                        help="bfloat16: convolutions and matrix products in bfloat16 (variables stay float32)")
    args = parser.parse_args(argv)

    from rillet.targets import distributed

    if args.processes > 1 and not os.environ.get(distributed.COORDINATOR):
        rest = _without_processes(sys.argv[1:] if argv is None else argv)
        return distributed.launch_local([sys.executable, str(Path(__file__).resolve()), *rest], args.processes)
    distributed.initialize()  # a process of a multi-process run joins the others; alone, nothing happens
    import jax

    split = load_split(args.seed)
    lead = jax.process_index() == 0
    if lead:
        print(f"digits: {len(split['y_train'])} training and {len(split['y_test'])} test images "
              f"(split seed {args.seed})")
    model = build_model(args.seed)
    start = time.perf_counter()
    history = train(model, split["x_train"], split["y_train"], args.epochs, args.batch_size, args.learning_rate,
                    args.seed, progress=not args.quiet, checkpoint_dir=args.checkpoint_dir, every=args.every,
                    log_dir=args.log_dir, precision=args.precision)
    seconds = time.perf_counter() - start
    if not lead:  # every process holds the same trained variables: process 0 writes and checks the file
        return 0
    final = f"; final training loss {history['loss'][-1]:.4f}" if history.get("loss") else ""
    step = f", {history.step_time * 1e3:.2f} ms a step after the compile" if history.step_time else ""
    print(f"trained {args.epochs} epochs on XLA ({_backend()}) in {seconds:.1f} s{step}{final}")

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

    devices = jax.devices()
    kind = "" if devices[0].device_kind == jax.default_backend() else f" {devices[0].device_kind}"  # the GPU model
    processes = f" in {jax.process_count()} processes" if jax.process_count() > 1 else ""
    return f"{jax.default_backend()}{kind}, {len(devices)} device{'s' if len(devices) > 1 else ''}{processes}"


def _without_processes(argv: list[str]) -> list[str]:
    """The command line minus --processes (the children are the processes)."""
    rest, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--processes":
            skip = True
        elif not a.startswith("--processes="):
            rest.append(a)
    return rest


if __name__ == "__main__":
    sys.exit(main())
