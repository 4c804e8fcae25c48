"""The library's log: what went wrong in a session, with its traceback, for the user to read or
send (the app says one line and points here). Appended, private (0600, never through a link),
and kept to its last ~512 KB so that a crash loop cannot fill the disk.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from store import locations

MAX_BYTES = 512 * 1024


def log_path(folder: Path) -> Path:
    return folder / locations.LOG_FILE


def record(folder: Path, what: str, details: str = "") -> Path:
    """Append one entry (a heading line and its details, such as a traceback) to the library's log.

    Best effort: a log that cannot be written loses the entry, never the caller's work.

    Returns:
        The log's path, to name in the one line the user is told.
    """
    path = log_path(folder)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    entry = f"{stamp} {what}\n{details.rstrip()}\n\n" if details else f"{stamp} {what}\n\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        return path
    try:
        if os.fstat(fd).st_nlink > 1:  # a hard link: never written in place (the entry is lost instead)
            return path
        size = os.fstat(fd).st_size
        if size > MAX_BYTES:  # keep the newer half, from its first whole entry
            kept = os.pread(fd, MAX_BYTES // 2, size - MAX_BYTES // 2)
            os.ftruncate(fd, 0)
            os.write(fd, kept[kept.find(b"\n\n") + 2:])
        os.write(fd, entry.encode("utf-8", "replace"))
    except OSError:
        pass
    finally:
        os.close(fd)
    return path


def record_exception(folder: Path, what: str, exc: BaseException) -> Path:
    """:func:`record` of an exception: ``what`` failed, with its type, message and traceback."""
    import traceback
    return record(folder, f"{what} failed: {type(exc).__name__}: {exc}", "".join(traceback.format_exception(exc)))
