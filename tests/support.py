"""Helpers every test folder shares (on the path through pytest's `pythonpath`): the reference models
in ../shared/models, written by TensorFlow with LiteRT's outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

MODELS_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "models"
MODEL_NAMES = sorted(p.stem for p in MODELS_DIR.glob("*.tflite")) if MODELS_DIR.is_dir() else []
# The models whose .npz holds one input `x` and LiteRT's output `y`.
SINGLE_IO_MODELS = [n for n in MODEL_NAMES if n != "train_mlp"]


def model_path(name: str) -> Path:
    path = MODELS_DIR / f"{name}.tflite"
    if not path.exists():
        pytest.skip(f"reference model {path} is absent (../shared/models is not beside the checkout)")
    return path


def golden(name: str):
    import numpy as np

    return np.load(MODELS_DIR / f"{name}.npz")
