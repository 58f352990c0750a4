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


__all__ = ["STATUS_NAMES", "ffi", "kernel_path", "lib"]
