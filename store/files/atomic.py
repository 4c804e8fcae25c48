"""Crash-safe file writes: the one place papersift writes a file it must not lose.

A write goes to a temporary file in the same folder, is flushed and fsynced,
then atomically renamed over the target with ``os.replace``; finally the folder
itself is fsynced so the rename survives a power cut. A reader therefore sees
either the whole old file or the whole new one, never a torn mix, whatever
moment the process is killed at.

:func:`append_durably` is the other durable write: the annotation journal's
append, whose torn tail (a kill mid-append) readers ignore and the next append
cuts off.

A write that fails (a full disk, a read-only folder) raises
:class:`store.errors.WriteFailedError`, naming the file, and leaves the old
content as it was.

A library folder is untrusted input (someone may have shared it): no write here goes through a
symbolic link (a replace renames a new file over the link itself; an append or a lock file
refuses it, :class:`store.errors.LinkRefusedError`), :func:`open_reading` refuses one too, and
every file and folder made here is private to its owner (0600 / 0700) whatever the umask.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tempfile
import time
from glob import escape as glob_escape
from pathlib import Path
from typing import BinaryIO, Callable, Iterable

from store.errors import LinkRefusedError, WriteFailedError
from store.files.nofollow import open_no_link

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700


def open_private(path: Path | str, flags: int, unshare: bool = True) -> int:
    """``os.open`` of a library file that is never a link, created private (0600).

    A file written in place (the journal's append, the ack mark) that has other names (a hard
    link: a folder someone shared, or a backup tool's snapshot) is first made a file of its own,
    its bytes copied and renamed over the name, so that writing it changes nothing elsewhere.

    Raises:
        LinkRefusedError: ``path`` is a symbolic link.
        WriteFailedError: any other failure (a read-only folder, ...).
    """
    try:
        fd = os.open(path, flags | os.O_CREAT | NOFOLLOW | os.O_CLOEXEC, PRIVATE_FILE)
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(path):
            raise LinkRefusedError(path) from None
        raise WriteFailedError(path, exc) from exc
    if unshare and os.fstat(fd).st_nlink > 1:  # a hard link: the same file under another name too
        os.close(fd)
        with open_reading(path) as fh:
            data = fh.read()
        atomic_write_bytes(path, data)  # (a new file renamed over this name: the other names keep theirs)
        return open_private(path, flags, unshare=False)
    return fd


def open_reading(path: Path | str) -> io.BufferedReader:
    """A library file opened for reading, never through a link.

    Raises:
        LinkRefusedError: ``path`` is a symbolic link.
        OSError: as ``open`` (a missing file: FileNotFoundError).
    """
    try:
        return open_no_link(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LinkRefusedError(path) from None
        raise


def refuse_links(folder: Path, names: Iterable[str]) -> None:
    """Raise for the first of ``names`` in ``folder`` that is a symbolic link.

    Raises:
        LinkRefusedError: naming the link.
    """
    for name in names:
        path = folder / name
        if path.is_symlink():
            raise LinkRefusedError(path)


def private_folder(path: Path) -> Path:
    """Make (0700) or check a folder of a library: never a link.

    Raises:
        LinkRefusedError: ``path`` is a symbolic link.
        WriteFailedError: it cannot be made.
    """
    if path.is_symlink():
        raise LinkRefusedError(path)
    try:
        path.mkdir(mode=PRIVATE_FOLDER, exist_ok=True)
    except OSError as exc:
        raise WriteFailedError(path, exc) from exc
    return path


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


def atomic_write_bytes(path: Path | str, data: bytes, follow_links: bool = False, shared: bool = False) -> None:
    """Replace ``path`` with ``data`` atomically and durably.

    Args:
        path: the file to write; its folder must exist.
        data: the complete new content.
        follow_links: write the file a link at ``path`` leads to (the user's own settings, which
            dotfile managers link); else a link at ``path`` is replaced, never written through.
        shared: a new file gets the permissions the umask gives any program's new file (an export,
            made to be handed on), not the library's owner-only ones.
    """
    atomic_write_chunks(path, (data,), follow_links, shared=shared)


def atomic_write_text(path: Path | str, text: str, follow_links: bool = False, shared: bool = False) -> None:
    """Text (UTF-8) form of :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"), follow_links, shared)


def append_durably(path: Path | str, data: bytes, valid_length: int) -> int:
    """Append ``data`` to ``path`` and fsync it: the journal's write.

    An append is not atomic on its own: a writer killed mid-write leaves a torn
    last line, which readers ignore (it was never acknowledged). So that the
    next entry does not land on the same line, whatever lies beyond
    ``valid_length`` (the bytes the caller has read and trusts) is cut off
    first. Callers hold the library lock, so no other writer is appending.

    Returns:
        The file's new length.
    """
    path = Path(path)
    created = not path.exists()
    fd = open_private(path, os.O_WRONLY)
    try:
        if os.fstat(fd).st_size != valid_length:
            os.ftruncate(fd, valid_length)
        os.lseek(fd, valid_length, os.SEEK_SET)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except OSError as exc:
        try:
            os.ftruncate(fd, valid_length)  # a part written (the disk filled up) is not a change
        except OSError:
            pass
        raise WriteFailedError(path, exc) from exc
    finally:
        os.close(fd)
    if created:
        fsync_dir(path.parent)
    return valid_length + len(data)


def atomic_write_chunks(path: Path | str, chunks: Iterable[bytes | memoryview],
                        follow_links: bool = False, durable: bool = True, shared: bool = False) -> None:
    """:func:`atomic_write_bytes` for content produced piece by piece (a 30k-paper corpus
    is ~40 MB: joining it first tripled the import's peak memory for a moment)."""
    def write(handle: BinaryIO) -> None:
        for chunk in chunks:
            handle.write(chunk)
    atomic_write_stream(path, write, follow_links, durable, shared)


def write_target(path: Path | str) -> Path:
    """The file a write to ``path`` replaces: ``path`` itself, or where its symbolic link leads
    (a write goes through a link, as an editor saving a linked file does, and leaves the link).

    Raises:
        WriteFailedError: the link leads in a loop.
    """
    path = Path(path)
    if not path.is_symlink():
        return path
    try:
        return path.resolve(strict=False)
    except (RuntimeError, OSError) as exc:  # RuntimeError: Python 3.11's "Symlink loop"
        raise WriteFailedError(path, OSError(errno.ELOOP, "a symbolic link loop")) from exc


def current_umask() -> int:
    """The process's umask, read without changing it where Linux says it (os.umask both sets
    and reads: another thread creating a file meanwhile would get the wrong one)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


STALE_TMP_SECONDS = 3600  # a temporary file this old was left by a write that was killed


def stale_temp_files(folder: Path, name: str = "*") -> list[Path]:
    """Temporary files (``.NAME.<random>.tmp``) an atomic write in ``folder`` left when it was killed."""
    now = time.time()
    found = []
    for tmp in folder.glob(f".{name}.*.tmp"):
        try:
            if now - tmp.stat().st_mtime > STALE_TMP_SECONDS:
                found.append(tmp)
        except OSError:
            pass
    return found


def atomic_write_stream(path: Path | str, write: Callable[[BinaryIO], object],
                        follow_links: bool = False, durable: bool = True, shared: bool = False) -> None:
    """Atomically and durably replace ``path`` with what ``write(handle)`` writes to a binary file.

    ``durable=False`` leaves out the fsyncs, for a cache: a cut-off cache is found out by its
    checks and made again, and at 300k papers the index cache's fsync took ~0.3 s of an import.

    A link at ``path`` is replaced by the new file, never written through, unless ``follow_links``
    (see :func:`write_target`); an existing file keeps its permissions (a new one is private to
    its owner, as notes and reading lists may be, unless ``shared``: see :func:`atomic_write_bytes`);
    a stale temporary file of an earlier, killed
    write to the same file is removed.
    """
    shown = Path(path)
    path = write_target(shown) if follow_links else shown
    try:
        found = os.lstat(path)
        mode: int | None = stat.S_IMODE(found.st_mode) if stat.S_ISREG(found.st_mode) else None
    except OSError:
        mode = None
    if mode is None and shared:
        mode = 0o666 & ~current_umask()
    for stale in stale_temp_files(path.parent, glob_escape(path.name)):
        try:
            stale.unlink()
        except OSError:
            pass
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        if mode is not None:
            os.fchmod(fd, mode)
    except OSError as exc:
        raise WriteFailedError(shown, exc) from exc
    try:
        with os.fdopen(fd, "wb", buffering=1 << 20) as handle:
            write(handle)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and not isinstance(exc, WriteFailedError):
            raise WriteFailedError(shown, exc) from exc
        raise
    if durable:
        fsync_dir(path.parent)
