"""LiteRT's delegate and op-resolver API (`load_delegate`, `Delegate`, `OpResolverType`), as rillet answers it:
rillet runs every op on its own kernels and applies no TfLite delegate, so loading one always fails, with
the exception LiteRT's users catch to fall back to the CPU."""

import enum
from collections.abc import Iterable
from typing import Any


class DelegateError(OSError, ValueError):
    """A delegate cannot be loaded or applied. A ValueError, as LiteRT's `load_delegate` raises when the
    delegate refuses to start (the EdgeTPU fallback `except ValueError:`), and an OSError, as LiteRT's raises
    when the library is missing (`except OSError:`): either fallback works."""


NO_DELEGATES = ("rillet runs every op on its own CPU kernels and applies no TfLite delegate: run without "
                "experimental_delegates")


class Delegate:
    """LiteRT's wrapper of a delegate library. rillet cannot apply one, so constructing it always fails."""

    def __init__(self, library: str, options: "dict[str, Any] | None" = None) -> None:
        raise DelegateError(f"cannot load delegate {library!r}: {NO_DELEGATES}")

    def _get_native_delegate_pointer(self) -> None:  # pragma: no cover - no instance can exist
        return None


def load_delegate(library: str, options: "dict[str, Any] | None" = None) -> "Delegate":
    """LiteRT's `load_delegate`: always raises DelegateError (a ValueError and an OSError), naming the
    library, so `try: load_delegate("libedgetpu.so.1") except ValueError:` falls back to the CPU."""
    try:
        return Delegate(library, options)
    except ValueError as e:
        raise DelegateError(f"Failed to load delegate from {library}\n{e}") from None


def check_delegates(delegates: "Iterable[Any] | None") -> None:
    """Refuses what LiteRT refuses (a non-iterable: TypeError; an entry that is no delegate: AttributeError,
    with LiteRT's words) and any real delegate, which rillet cannot apply (DelegateError)."""
    if not delegates:
        return
    for delegate in delegates:
        delegate._get_native_delegate_pointer  # noqa: B018 - LiteRT's AttributeError for a non-delegate
        raise DelegateError(f"cannot apply delegate {delegate!r}: {NO_DELEGATES}")


@enum.unique
class OpResolverType(enum.Enum):
    """LiteRT's op resolvers. rillet has one set of kernels (every SIMD path gives the scalar reference's
    bits), so every value runs the same kernels; RILLET_ISA=ref forces the scalar ones."""

    AUTO = 0
    BUILTIN = 1
    BUILTIN_REF = 2
    BUILTIN_WITHOUT_DEFAULT_DELEGATES = 3


def check_op_resolver_type(value: Any) -> "OpResolverType":
    """The resolver `value` names (rillet's enum, or LiteRT's by member name); ValueError with LiteRT's words
    for anything else."""
    if isinstance(value, OpResolverType):
        return value
    if isinstance(value, enum.Enum) and type(value).__name__ == "OpResolverType" and value.name in OpResolverType.__members__:
        return OpResolverType[value.name]
    raise ValueError(f"Unrecognized passed in op resolver type: {value}")
