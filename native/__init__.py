"""librillet, the C kernel library, and its cffi binding: `from rillet.native import ffi, lib`.

`pip install` (or the prebuilt wheel) puts `librillet.so`, a plain shared library, beside `_librillet.py`, the
binding's pre-parsed declarations (cffi's out-of-line ABI mode: native/build_ffi.py); importing opens the
library and never compiles anything.
"""

import os

# RILLET_LIBRARY loads another build of the same library: the sanitizer or emulated AVX-512 build in CI
# (native/tests/build_sanitized.py), or a debug build; the ABI binding is then the one used.
LIBRARY_PATH = os.environ.get("RILLET_LIBRARY") or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                "librillet.so")


def _abi_binding():
    try:
        from ._librillet import ffi
    except ImportError as e:  # pragma: no cover - only on a checkout that was never installed
        raise ImportError(
            "rillet.native._librillet is not built: install rillet with `pip install .` (or `pip install -e .`), "
            f"which compiles native/ ({e})"
        ) from e
    try:
        return ffi, ffi.dlopen(LIBRARY_PATH)
    except OSError as e:  # pragma: no cover - a wheel for another architecture, or a half-finished build
        raise ImportError(f"cannot load {LIBRARY_PATH}: {e}") from e


# The API-mode extension (built where Python's headers were) calls librillet directly; the ABI binding goes
# through libffi, about 0.3 us more per call, and serves cross-built wheels and other Pythons.
if os.environ.get("RILLET_LIBRARY"):
    ffi, lib = _abi_binding()
    BINDING = "abi"
else:
    try:
        from ._librillet_api import ffi, lib
        BINDING = "api"
    except ImportError:
        ffi, lib = _abi_binding()
        BINDING = "abi"

STATUS_NAMES = {0: "ok", 1: "invalid", 2: "unsupported", 3: "out of memory", 4: "bad state", 5: "cancelled"}


def kernel_path() -> str:
    """The kernel path a new interpreter runs ("avx2", "scalar", ...): the CPU's best, or what RILLET_ISA
    forces. Raises RuntimeError when RILLET_ISA names no path or one this CPU lacks."""
    out = ffi.new("rl_plan **")
    status = lib.rl_plan_create(out, 1)
    try:
        if status != lib.RL_OK:
            raise RuntimeError(ffi.string(lib.rl_plan_message(out[0])).decode(errors="replace") if out[0]
                               else "librillet could not create a plan")
        return ffi.string(lib.rl_plan_isa(out[0])).decode()
    finally:
        lib.rl_plan_destroy(out[0])


__all__ = ["BINDING", "LIBRARY_PATH", "STATUS_NAMES", "ffi", "kernel_path", "lib"]
