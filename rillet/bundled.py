"""Models and data shipped inside the package, for `rillet demo` and the README's first command.

`data/digits.tflite` is the CNN that examples/train_desktop.py trains on scikit-learn's digits (default
arguments, seed 0); `data/digits_sample.npz` holds that run's held-out split: `test_indices` into
`load_digits()`, the first 200 held-out `images` (uint8, values 0..16) with their `labels`, for
machines without scikit-learn, and 100 training images (`calibration`) that `rillet demo` quantizes with. Both are rewritten together:

    python examples/train_desktop.py --out rillet/data/digits.tflite --sample rillet/data/digits_sample.npz
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

DEFAULT_MODEL = "digits.tflite"
DIGITS_SAMPLE = "digits_sample.npz"


def bundled_model_path(name: str = DEFAULT_MODEL) -> Path:
    return Path(str(resources.files("rillet") / "data" / name))


@dataclass
class DigitsTestSet:
    images: np.ndarray  # float32 [n, 8, 8, 1], values 0..16: the model's input as scikit-learn gives it
    labels: np.ndarray  # int32 [n]
    source: str         # which data this is, in words


def digits_test_set(use_sklearn: bool = True) -> DigitsTestSet:
    """The images the bundled digits model never saw in training: every held-out image of scikit-learn's
    digits when scikit-learn is installed (and use_sklearn), else the bundled sample of them."""
    with np.load(bundled_model_path(DIGITS_SAMPLE)) as sample:
        test_indices = sample["test_indices"].astype(np.intp)
        images, labels = sample["images"], sample["labels"]
    source = f"{len(labels)} of the {len(test_indices)} held-out digits, bundled with rillet"
    if use_sklearn:
        try:
            from sklearn.datasets import load_digits
        except ImportError:
            source += "; scikit-learn is not installed"
        else:
            digits = load_digits()
            images, labels = digits.images[test_indices], digits.target[test_indices]
            source = f"scikit-learn's digits: the {len(labels)} held-out images (none used in training)"
    return DigitsTestSet(np.asarray(images, np.float32)[..., None], np.asarray(labels, np.int32), source)


def digits_calibration_images() -> np.ndarray:
    """Training images (float32 [100, 8, 8, 1], values 0..16), none of them in the held-out set: the
    calibration data for quantizing the bundled model."""
    with np.load(bundled_model_path(DIGITS_SAMPLE)) as sample:
        return np.asarray(sample["calibration"], np.float32)[..., None]
