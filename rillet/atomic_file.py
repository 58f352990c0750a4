"""Writing a file so that a crash mid-write leaves the previous one whole: the bytes go to a temporary file
beside it, are flushed to disk, and replace the old file in one rename. The runtime's checkpoints and the
desktop trainer's both write through it."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import Any


def write_atomically(path: str | os.PathLike, write: Callable[[Any], None], prefix: str | None = None) -> None:
    """Calls `write(f)` on a binary file that becomes `path` only once it is complete; the temporary file
    (`prefix`, default "." + the file's name + "-") is removed if writing fails."""
    path = os.path.abspath(os.fspath(path))
    folder, name = os.path.split(path)
    fd, temporary = tempfile.mkstemp(prefix=prefix or f".{name}-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
