"""rillet: a small TensorFlow for the edge. `import rillet as rl` is the facade over the parts.

Attributes resolve lazily, so that `import rillet` on a device loads neither the graph nor JAX.
"""

import importlib
from typing import Any

__version__ = "0.1.0"

# facade name -> (module, attribute)
_EXPORTS = {
    "load": ("rillet.converter.format", "load"),
    "save": ("rillet.converter.format", "save"),
    "ModelError": ("rillet.converter.format", "ModelError"),
    "ModelFile": ("rillet.converter.format", "ModelFile"),
    "convert": ("rillet.converter.from_graph", "convert"),
    "TrainSpec": ("rillet.converter.training", "TrainSpec"),
    "trainable": ("rillet.converter.trainable", "trainable"),
    "to_graph": ("rillet.converter.to_graph", "to_graph"),
    "quantize": ("rillet.quant", "quantize"),
    "Interpreter": ("rillet.runtime", "Interpreter"),
    "gradients": ("rillet.graph", "gradients"),
    "Graph": ("rillet.graph", "Graph"),
    "Variable": ("rillet.graph", "Variable"),
    "Model": ("rillet.graph", "Model"),
    "Input": ("rillet.graph", "Input"),
    "placeholder": ("rillet.graph", "placeholder"),
    "ops": ("rillet.graph", "ops"),
    "layers": ("rillet.graph", "layers"),
    "losses": ("rillet.graph", "losses"),
    "optimizers": ("rillet.graph", "optimizers"),
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'rillet' has no attribute {name!r}")
    module, attr = _EXPORTS[name]
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> "list[str]":
    return sorted(list(globals()) + list(_EXPORTS))
