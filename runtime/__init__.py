"""The on-device Python API: a drop-in for LiteRT's (tflite_runtime's) interpreter module."""

from .delegate import Delegate, DelegateError, OpResolverType, load_delegate
from .interpreter import Interpreter, InterpreterWithCustomOps, ModelFileChangedError
from .plan import InterpreterError, InvokeCancelledError, UnsupportedOpsError
from .signature_runner import SignatureRunner

__all__ = ["Delegate", "DelegateError", "Interpreter", "InterpreterError", "InterpreterWithCustomOps",
           "InvokeCancelledError", "ModelFileChangedError", "OpResolverType", "SignatureRunner", "UnsupportedOpsError",
           "load_delegate"]
