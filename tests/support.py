"""Helpers every test folder shares (on the path through pytest's `pythonpath`): the reference models
in tests/data/models, written by TensorFlow with LiteRT's outputs (the project's own fixtures, so a fresh
clone tests itself; see tests/data/models/README.md)."""

from __future__ import annotations

from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent / "data" / "models"
MODEL_NAMES = sorted(p.stem for p in MODELS_DIR.glob("*.tflite"))
# The models whose .npz holds one input `x` and LiteRT's output `y`.
SINGLE_IO_MODELS = [n for n in MODEL_NAMES if n != "train_mlp"]


def model_path(name: str) -> Path:
    path = MODELS_DIR / f"{name}.tflite"
    if not path.exists():
        raise FileNotFoundError(f"reference model {path} is missing from the checkout")
    return path


def golden(name: str):
    import numpy as np

    return np.load(MODELS_DIR / f"{name}.npz")
