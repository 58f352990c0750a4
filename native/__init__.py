"""librillet, the C kernel library, and its cffi binding: `from rillet.native import ffi, lib`.

The extension is compiled by `pip install` (native/build_ffi.py); importing never compiles anything.
"""

try:
    from ._librillet import ffi, lib
except ImportError as e:  # pragma: no cover - only on a checkout that was never installed
    raise ImportError(
        "rillet.native._librillet is not built: install rillet with `pip install .` (or `pip install -e .`), "
        f"which compiles native/ with cffi ({e})"
    ) from e

STATUS_NAMES = {0: "ok", 1: "invalid", 2: "unsupported", 3: "out of memory", 4: "bad state"}

__all__ = ["STATUS_NAMES", "ffi", "lib"]
