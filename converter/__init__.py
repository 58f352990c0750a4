"""graph <-> .tflite: the format layer (schema, reader, writer), graph passes, signatures, import.

`load`, `save`, `ModelError` and `ModelFile` are re-exported from the format layer, which the device runtime
shares; `to_graph` is the function. Both resolve on first use: the runtime imports `rillet.converter.format`,
which runs this file first, and must not pay there for the graph importer.
"""

import importlib
import sys
import types
from typing import Any

_FORMAT_EXPORTS = ("ModelError", "ModelFile", "load", "save")

__all__ = ["ModelError", "ModelFile", "load", "save", "to_graph"]


class _ConverterPackage(types.ModuleType):
    """Importing the submodule `to_graph` (which the import system binds on its package) keeps the name
    bound to the function, so `rillet.converter.to_graph(...)` calls it whichever import came first."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "to_graph" and isinstance(value, types.ModuleType):
            value = value.to_graph
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _ConverterPackage


def __getattr__(name: str) -> Any:
    if name == "to_graph":
        importlib.import_module(f"{__name__}.to_graph")  # binds the function (see _ConverterPackage)
        return globals()["to_graph"]
    if name in _FORMAT_EXPORTS:
        value = getattr(importlib.import_module(f"{__name__}.format"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> "list[str]":
    return sorted(list(globals()) + __all__)
