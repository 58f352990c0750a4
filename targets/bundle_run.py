"""Runs a deploy bundle's model on the device: `python3 run.py image.npy`, or a folder of .npy / .png files,
and prints each file's top classes (or its outputs); `--watch DIR` keeps classifying files as they appear.

`rillet deploy` copies this file into a bundle as run.py, beside bundle.json (the model's file, its
signature, the range an image's 0..255 pixels map to, the labels file). An .npy already shaped and typed as
the model's input (with or without the batch axis) is fed as it is; any other .npy or .png is an image,
resized (nearest) to the input and scaled to its range, quantized for an int8 input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

try:
    import numpy as np

    from rillet.runtime import Interpreter
except ImportError:
    # After ./install.sh rillet lives in the bundle's environment, env/: run there.
    ENV_PYTHON = HERE / "env" / "bin" / "python3"
    if ENV_PYTHON.exists() and Path(sys.prefix).resolve() != ENV_PYTHON.parent.parent.resolve():
        os.execv(ENV_PYTHON, [str(ENV_PYTHON), *sys.argv])
    sys.exit(f"{Path(sys.argv[0]).name}: rillet is not installed: run ./install.sh in {HERE} first")

IMAGE_SUFFIXES = (".npy", ".png")


class BundledModel:
    """The bundle's model behind one signature runner, taking images or ready input arrays."""

    def __init__(self, config: dict, threads: int | None = None, checkpoint: Path | None = None) -> None:
        self.interpreter = Interpreter(model_path=str(HERE / config["model"]), num_threads=threads or os.cpu_count())
        if checkpoint is not None and checkpoint.exists():
            self.interpreter.restore_checkpoint(checkpoint)
        self.runner = self.interpreter.get_signature_runner(config["signature"])
        (self.input_name, self.input), *rest = self.runner.get_input_details().items()
        if rest:
            raise SystemExit(f"run.py: signature {config['signature']!r} takes {len(rest) + 1} inputs; "
                             "run.py feeds models with one")
        self.outputs = self.runner.get_output_details()
        self.input_range = config.get("input_range", [0.0, 1.0])

    def prepare(self, array: np.ndarray) -> np.ndarray:
        """One example as the input's dtype and shape without the batch axis."""
        shape = tuple(int(d) for d in self.input["shape"][1:])
        if array.dtype == self.input["dtype"] and array.shape in (shape, (1, *shape)):
            return array.reshape(shape)
        return self.image_to_input(array, shape)

    def image_to_input(self, image: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        height, width, channels = shape if len(shape) == 3 else (*shape, 1)
        pixels = np.asarray(image, np.float32)
        if pixels.ndim == 2:
            pixels = pixels[:, :, None]
        if pixels.ndim != 3:
            raise ValueError(f"an image has 2 or 3 axes (height, width[, channels]); this one is {pixels.shape}")
        if pixels.shape[2] != channels:  # grey <-> colour; alpha dropped
            pixels = pixels[:, :, :3].mean(axis=2, keepdims=True) if channels == 1 else \
                np.repeat(pixels[:, :, :1], channels, axis=2) if pixels.shape[2] == 1 else pixels[:, :, :channels]
        rows = np.arange(height) * pixels.shape[0] // height
        cols = np.arange(width) * pixels.shape[1] // width
        low, high = self.input_range
        values = low + pixels[rows][:, cols] * ((high - low) / 255.0)
        scale, zero_point = self.input["quantization"]
        dtype = np.dtype(self.input["dtype"])
        if scale:
            info = np.iinfo(dtype)
            values = np.clip(np.round(values / scale) + zero_point, info.min, info.max)
        return values.astype(dtype).reshape(shape)

    def __call__(self, example: np.ndarray) -> dict[str, np.ndarray]:
        """The outputs for one example (a fixed batch larger than one is padded with zeros)."""
        batch = int(self.input["shape"][0]) if int(self.input["shape_signature"][0]) > 0 else 1
        x = np.zeros((batch, *example.shape), example.dtype)
        x[0] = example
        return {name: value[0] for name, value in self.runner(**{self.input_name: x}).items()}


def read_file(path: Path) -> np.ndarray:
    if path.suffix == ".npy":
        return np.load(path, allow_pickle=False)
    try:
        from PIL import Image
    except ImportError:
        raise SystemExit("run.py: reading .png needs Pillow (sudo apt install python3-pil), or pass .npy files")
    with Image.open(path) as image:
        return np.asarray(image)


def describe(outputs: dict[str, np.ndarray], details: dict, labels: list[str], top: int) -> str:
    """The top classes of a class-score output (dequantized), else the output's first values."""
    parts = []
    for name, value in outputs.items():
        scale, zero_point = details[name]["quantization"]
        scores = (value.astype(np.float32) - zero_point) * scale if scale else value.astype(np.float32)
        if scores.ndim == 1 and scores.size > 1:
            best = np.argsort(-scores, kind="stable")[:top]
            parts.append(", ".join(f"{labels[k] if k < len(labels) else k}: {scores[k]:.4g}" for k in best))
        else:
            parts.append(f"{name} = {np.array2string(scores.ravel()[:8], precision=4)}")
    return "; ".join(parts)


def files_in(paths: list[Path]) -> list[Path]:
    found = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        elif path.exists():
            found.append(path)
        else:
            raise SystemExit(f"run.py: {path}: no such file or folder")
    return found


def main(argv: list[str] | None = None) -> int:
    config = json.loads((HERE / "bundle.json").read_text())
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="*", type=Path, help=".npy / .png files or folders of them")
    parser.add_argument("--top", type=int, default=3, help="classes to print per file")
    parser.add_argument("--threads", type=int, help="default: every core")
    parser.add_argument("--checkpoint", type=Path, default=HERE / "checkpoint.npz",
                        help="variables train.py saved, restored when the file exists")
    parser.add_argument("--save", type=Path, help="also write every file's raw outputs to this .npz")
    parser.add_argument("--watch", type=Path, help="classify each new file in this folder as it appears")
    args = parser.parse_args(argv)
    if not args.inputs and args.watch is None:
        parser.error("give .npy / .png files, a folder, or --watch DIR")
    model = BundledModel(config, args.threads, args.checkpoint)
    labels = (HERE / config["labels"]).read_text().splitlines() if config.get("labels") else []
    saved = {}
    failed = []

    def classify(path: Path) -> None:
        try:
            outputs = model(model.prepare(read_file(path)))
        except (ValueError, OSError) as e:
            print(f"{path.name}: {e}", file=sys.stderr)
            failed.append(path)
            return
        saved.update({f"{path.name}/{name}": value for name, value in outputs.items()})
        print(f"{path.name}: {describe(outputs, model.outputs, labels, args.top)}", flush=True)

    for path in files_in(args.inputs):
        classify(path)
    if args.save:
        np.savez(args.save, **saved)
    seen = set(files_in([args.watch])) if args.watch else set()
    while args.watch:
        for path in files_in([args.watch]):
            if path not in seen:
                seen.add(path)
                classify(path)
        time.sleep(1.0)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
