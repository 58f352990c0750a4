"""Writing a file so that a crash mid-write leaves the previous one whole: the bytes go to a temporary file
beside it, are flushed to disk, and replace the old file in one rename. The runtime's checkpoints and the
desktop trainer's both write through it.

A rename replaces whatever the name points at, so the destination is looked at first: a directory, a FIFO,
a device (/dev/full, as root) or a socket is refused rather than replaced by a regular file, and a symbolic
link is followed, its target replaced (the temporary file in the target's folder) and the link kept."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable
from typing import Any


class NotARegularFileError(OSError):
    """The destination exists and is not a regular file (a directory, FIFO, device or socket)."""


def _kind(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a regular file"


def destination(path: str | os.PathLike) -> tuple[str, os.stat_result | None]:
    """The file a write to `path` replaces: the path itself, or through any symbolic links the file they
    lead to (which need not exist yet), with its stat (None when it does not exist). NotARegularFileError
    (IsADirectoryError for a directory) when something other than a regular file is there."""
    given = os.fspath(path)
    real = os.path.realpath(os.path.abspath(given))
    try:
        info = os.stat(real)
    except FileNotFoundError:
        return real, None
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory: refusing to replace it with a file", given)
    if not stat.S_ISREG(info.st_mode):
        shown = given if real == os.path.abspath(given) else f"{given} -> {real}"
        raise NotARegularFileError(errno.EINVAL, f"is {_kind(info.st_mode)}: refusing to replace it with a file",
                                   shown)
    return real, info


def write_atomically(path: str | os.PathLike, write: Callable[[Any], None], prefix: str | None = None) -> None:
    """Calls `write(f)` on a binary file that becomes `path` only once it is complete; the temporary file
    (`prefix`, default "." + the file's name + "-") is removed if writing fails. A file replaced keeps its
    permission bits; a symbolic link stays a link to the new file."""
    target, existing = destination(path)
    folder, name = os.path.split(target)
    fd, temporary = tempfile.mkstemp(prefix=prefix or f".{name}-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            if existing is not None and hasattr(os, "fchmod"):  # (not on Windows before Python 3.13)
                os.fchmod(f.fileno(), stat.S_IMODE(existing.st_mode))
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
