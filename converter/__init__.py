"""graph <-> .tflite: the format layer (schema, reader, writer), graph passes, signatures, import.

`load`, `save` and `ModelError` are re-exported from the format layer, which the device runtime shares.
"""

from .format import ModelError, ModelFile, load, save

__all__ = ["ModelError", "ModelFile", "load", "save"]
