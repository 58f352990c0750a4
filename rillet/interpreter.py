"""`from rillet.interpreter import Interpreter`: rillet's runtime under the module path tflite_runtime and
LiteRT use (`tflite_runtime.interpreter`, `ai_edge_litert.interpreter`), with the same names in it."""

from rillet.runtime import (
    Delegate,
    DelegateError,
    Interpreter,
    InterpreterError,
    InterpreterWithCustomOps,
    OpResolverType,
    SignatureRunner,
    UnsupportedOpsError,
    load_delegate,
)

__all__ = ["Delegate", "DelegateError", "Interpreter", "InterpreterError", "InterpreterWithCustomOps",
           "OpResolverType", "SignatureRunner", "UnsupportedOpsError", "load_delegate"]
