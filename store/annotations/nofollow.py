"""Library files read without following a symbolic link (the open fails with ELOOP): a shared
library folder's links never lead a read out of it. The standard library alone, so that the
one-shot search, the corpus loader and the writers (:mod:`store.annotations.atomic`) share it
without importing one another."""

from __future__ import annotations

import io
import os
from pathlib import Path


def open_no_link(path: Path | str) -> io.BufferedReader:
    """A library file opened for reading, never through a symbolic link."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC)
    return io.BufferedReader(io.FileIO(fd, "rb", closefd=True))


def read_no_link(path: Path) -> bytes:
    """A library file's bytes, never read through a symbolic link."""
    with open_no_link(path) as fh:
        return fh.read()
