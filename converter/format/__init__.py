"""The .tflite format layer: TFLite's flatbuffer schema, `load` and `save`. Imports nothing else of rillet,
so that the device-side runtime can use it alone.

Names resolve on first use (PEP 562): the runtime reads a model through `view` alone and never needs the
writer (`flatbuffers`), so `import rillet.runtime` does not pay for importing them on a small device.
"""

import importlib
from typing import Any

# name -> the submodule that defines it
_EXPORTS = {
    **dict.fromkeys(("load", "save", "subgraph_references", "validate"), "io"),
    **dict.fromkeys(("Buffer", "Metadata", "ModelFile", "Operator", "OperatorCode", "Options",
                     "QuantizationParameters", "SignatureDef", "SubGraph", "Tensor", "TensorMap"), "model"),
    "ModelError": "codec",  # model.py's too; from here the runtime need not import the records
    **dict.fromkeys(("BUILTIN_CODES", "TENSOR_TYPES", "builtin_name", "tensor_type_name"), "schema"),
    **dict.fromkeys(("LazyList", "ModelView", "SubGraphView"), "view"),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> "list[str]":
    return sorted(list(globals()) + __all__)
