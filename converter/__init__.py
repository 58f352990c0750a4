"""graph <-> .tflite: the format layer (schema, reader, writer), graph passes, signatures, import.

`load`, `save` and `ModelError` are re-exported from the format layer, which the device runtime shares;
`to_graph` is the function (importing it here binds the name over the submodule of the same name, which
`rillet.converter.to_graph(...)` would otherwise call).
"""

from .format import ModelError, ModelFile, load, save
from .to_graph import to_graph

__all__ = ["ModelError", "ModelFile", "load", "save", "to_graph"]
