"""Crash-safe file writes: the one place papersift writes a file it must not lose.

A write goes to a temporary file in the same folder, is flushed and fsynced,
then atomically renamed over the target with ``os.replace``; finally the folder
itself is fsynced so the rename survives a power cut. A reader therefore sees
either the whole old file or the whole new one, never a torn mix, whatever
moment the process is killed at.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def fsync_dir(folder: Path) -> None:
    """Make a rename inside ``folder`` durable (no-op where unsupported)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically and durably.

    Args:
        path: the file to write; its folder must exist.
        data: the complete new content.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(path.parent)


def atomic_write_text(path: Path | str, text: str) -> None:
    """Text (UTF-8) form of :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"))
