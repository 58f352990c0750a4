"""The on-device Python API: a drop-in for LiteRT's (tflite_runtime's) interpreter module."""

import gc

# The import builds a few thousand objects that live as long as the process (classes, functions, the schema's
# tables) and frees none: each collection the allocations would trigger meanwhile (three young ones and a
# middle one after `import numpy`) traverses every young object of the process and finds nothing, ~2.5M
# instructions of a start (x86). Collection resumes after it as the caller had it.
_collecting = gc.isenabled()
gc.disable()
try:
    from .delegate import Delegate, DelegateError, OpResolverType, load_delegate
    from .interpreter import Interpreter, InterpreterWithCustomOps, ModelFileChangedError
    from .plan import InterpreterError, InvokeCancelledError, UnsupportedOpsError
finally:
    if _collecting:
        gc.enable()
del _collecting


def __getattr__(name: str) -> type:
    # SignatureRunner's module is imported by the first runner (Interpreter.get_signature_runner), not by a start.
    if name == "SignatureRunner":
        from .signature_runner import SignatureRunner

        globals()[name] = SignatureRunner  # found as an attribute from now on (pdoc reads the module's dict)
        return SignatureRunner
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Delegate", "DelegateError", "Interpreter", "InterpreterError", "InterpreterWithCustomOps",
           "InvokeCancelledError", "ModelFileChangedError", "OpResolverType", "SignatureRunner", "UnsupportedOpsError",
           "load_delegate"]
