"""Errors the store raises.

Every error a person can cause (bad input, a damaged library, a second process)
is a :class:`PapersiftError` whose message names the file and, where it applies,
the line or paragraph. The CLI prints the message and exits non-zero; nothing
stored is changed when one is raised.
"""

from __future__ import annotations

import errno
from pathlib import Path


def shown_path(path: object) -> str:
    """A file name for a message: as it is, or, when it holds control or invisible characters,
    quoted with each one written as its escape (``'bad\\x1b[2Jclear.bib'``), so the message names
    the file that exists instead of one with those characters stripped (or run)."""
    from store.safe_text import has_unsafe, shown_unsafe
    text = str(path)
    return f"'{shown_unsafe(text)}'" if has_unsafe(text) else text


class PapersiftError(Exception):
    """Base class for every error meant to be shown to a person."""


class InputError(PapersiftError):
    """An input file cannot be imported.

    Args:
        path: the file that is wrong.
        message: what is wrong with it.
        line: 1-based line number, when known.
        where: a further location ("paragraph 3", "entry 12", "byte offset 40").
    """

    def __init__(self, path: object, message: str, line: int | None = None, where: str | None = None):
        self.path = str(path)
        self.line = line
        self.where = where
        loc = shown_path(path)
        if line is not None:
            loc += f", line {line}"
        if where:
            loc += f" ({where})"
        super().__init__(f"{loc}: {message}")


class CorruptFileError(PapersiftError):
    """A library file cannot be read; papersift refuses to write over it."""

    def __init__(self, path: object, message: str):
        self.path = str(path)
        super().__init__(
            f"{shown_path(path)}: {message}. papersift will not write over it. "
            f"Run `papersift doctor` to inspect the library, and `papersift doctor --repair` to set the "
            f"damaged file aside and restore the newest good backup."
        )


class NewerFormatError(CorruptFileError):
    """A library file a newer papersift wrote: sound, as far as anyone here can tell, and left
    alone (no command writes over it, ``doctor --repair`` included) until papersift is upgraded."""

    def __init__(self, path: object, version: int, reads_up_to: int):
        self.path = str(path)
        PapersiftError.__init__(
            self, f"{shown_path(path)}: written by a newer papersift (format version {version}; this one reads up "
                  f"to {reads_up_to}). papersift will not write over it, nor will `papersift doctor --repair`: "
                  "upgrade papersift to open this library")


class WriteFailedError(PapersiftError, OSError):
    """A file could not be written: a full disk, a read-only folder, a permission taken away.

    Raised by the crash-safe writes (:mod:`store.files.atomic`) in place of the bare OSError, so the
    app says so where a triage key would otherwise have stopped it; still an OSError for the
    callers that treat a write as best effort (the caches). The old file is untouched.
    """

    def __init__(self, path: object, exc: OSError):
        self.path = str(path)
        reason = exc.strerror or str(exc) or type(exc).__name__
        self.reason = reason
        hint = {errno.ENOSPC: " Free some space, then try again.", errno.EDQUOT: " Free some space, then try again.",
                errno.EACCES: " Check the folder's permissions, then try again.",
                errno.EPERM: " Check the folder's permissions, then try again.",
                errno.EROFS: " The file system is read-only."}.get(exc.errno or 0, "")
        super().__init__(f"{shown_path(path)}: could not be written ({reason}); nothing was changed.{hint}")
        self.errno = exc.errno


class LinkRefusedError(WriteFailedError):
    """A name in a library folder is a symbolic link: papersift neither reads, writes nor walks
    through it (a folder someone shared could point it at any file of yours)."""

    def __init__(self, path: object, hard: bool = False) -> None:
        kind = "a hard link (the same file has another name)" if hard else "a link"
        PapersiftError.__init__(self, f"{Path(str(path)).name} is {kind}; papersift does not follow links in a "
                                      f"library folder ({shown_path(path)}: replace it with a copy of its own)")
        self.path = str(path)
        self.reason = "a symbolic link"
        self.errno = errno.ELOOP


class UnknownPaperError(PapersiftError):
    """No paper has the given id (or id prefix)."""


class LibraryLockedError(PapersiftError):
    """Another process holds the library's write lock for too long."""
