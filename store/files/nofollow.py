"""Library files read without following a symbolic link (the open fails with ELOOP): a shared
library folder's links never lead a read out of it. The standard library alone, so that the
one-shot search, the corpus loader and the writers (:mod:`store.files.atomic`) share it
without importing one another."""

from __future__ import annotations

import errno
import io
import mmap
import os
import stat
from pathlib import Path

MAP_FROM = 16 << 20  # bytes: a file this big is mapped, not read (read_or_map)
RELEASE_EVERY = 32 << 20  # bytes: a whole-file scan gives back its pages this often (release_pages)


def open_no_link(path: Path | str) -> io.BufferedReader:
    """A library file opened for reading, never through a symbolic link, and only a file: a
    folder, a pipe, a socket or a device in its place is refused (OSError naming the path), never
    waited on (a pipe's open waits for a writer: it is opened without waiting, then refused).

    Raises:
        OSError: the path cannot be opened, or is no regular file.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            folder = stat.S_ISDIR(mode)
            raise OSError(errno.EISDIR if folder else errno.EINVAL, "a folder, not a file" if folder
                          else "not a regular file: a pipe, a socket or a device", str(path))
        return io.BufferedReader(io.FileIO(fd, "rb", closefd=True))
    except BaseException:
        os.close(fd)
        raise


def read_no_link(path: Path) -> bytes:
    """A library file's bytes, never read through a symbolic link."""
    with open_no_link(path) as fh:
        return fh.read()


def read_or_map(path: Path) -> bytes | mmap.mmap:
    """A library file's bytes, never through a symbolic link: read, or for a big file mapped
    read-only (the page cache's own pages: no copy of the corpus's 430 MB at 300k papers, and
    none of it in the process's private memory). papersift never rewrites a library file in place
    (every save writes a new file and renames it over), so a mapping stays whole."""
    with open_no_link(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size < MAP_FROM or size == 0:  # (an empty file cannot be mapped)
            return fh.read()
        return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)


def release_pages(data: object, start: int, end: int) -> int:
    """Give back the pages of a read-only mapping (``read_or_map``'s mmap, or a memoryview of one)
    between ``start`` and ``end`` that a whole-file scan has read: they leave this process's
    resident set and stay in the page cache, so a later read of a paper or a posting maps them
    again without reading the disk. A scan of a 430 MB corpus otherwise leaves all of it
    counted as the app's memory for the session. Returns where the next call should start (the
    page boundary reached); a buffer that is not a mapping is left alone."""
    mapped = data.obj if isinstance(data, memoryview) else data
    if not isinstance(mapped, mmap.mmap) or not hasattr(mapped, "madvise"):
        return start
    page = mmap.PAGESIZE
    first = start - start % page  # (a page partly before start was read by the scan too)
    last = end - end % page if end < len(mapped) else len(mapped)
    if last > first:
        mapped.madvise(mmap.MADV_DONTNEED, first, last - first)
        return last
    return start
