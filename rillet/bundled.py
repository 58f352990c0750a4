"""Models shipped inside the package, for the demo and the README's first command."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

# A small float MLP (FULLY_CONNECTED, SOFTMAX) written by TensorFlow's converter; the digits CNN that
# examples/train_desktop.py trains replaces it as the demo model once the graph converter lands.
DEFAULT_MODEL = "mlp_f32.tflite"


def bundled_model_path(name: str = DEFAULT_MODEL) -> Path:
    return Path(str(resources.files("rillet") / "data" / name))
