"""The on-device Python API: a drop-in for tflite_runtime's Interpreter."""

from .interpreter import Interpreter, SignatureRunner
from .plan import InterpreterError, UnsupportedOpsError

__all__ = ["Interpreter", "InterpreterError", "SignatureRunner", "UnsupportedOpsError"]
