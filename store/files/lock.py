"""A cross-process write lock for one library.

papersift lets two instances (two terminals, the CLI beside the app) share a
library. Every mutation takes this exclusive ``flock`` for the length of one
read-modify-write, and the storage re-reads a file another process changed,
so neither process can lose the other's update.
"""

from __future__ import annotations

import fcntl
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from store.files.atomic import open_private
from store.errors import LibraryLockedError


class LibraryLock:
    """Re-entrant (per object) exclusive lock on ``<library>/.lock``."""

    def __init__(self, path: Path, timeout: float = 10.0):
        self.path = path
        self.timeout = timeout
        self._fd: int | None = None
        self._depth = 0

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold the lock for the block; waits up to ``timeout`` seconds."""
        if self._depth == 0:
            self._acquire()
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                self._release()

    @contextmanager
    def attempt(self) -> Iterator[bool]:
        """Hold the lock for the block if it is free now (yields True), else yield False at once:
        for a caller that must not wait (the app's UI thread)."""
        if self._depth:
            self._depth += 1
            try:
                yield True
            finally:
                self._depth -= 1
            return
        fd = self._open()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            yield False
            return
        self._fd, self._depth = fd, 1
        try:
            yield True
        finally:
            self._depth = 0
            self._release()

    def _open(self) -> int:
        # never through a link; a read-only folder or disk is said as any other write would be
        # (never replaced, even when hard-linked: another papersift may hold this file's lock; nothing is
        # written to it)
        return open_private(self.path, os.O_RDWR, unshare=False)

    def _acquire(self) -> None:
        fd = self._open()
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._fd = fd
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise LibraryLockedError(
                        f"{self.path.parent}: another papersift process has held the library lock for "
                        f"{self.timeout:.0f}s; try again when it finishes") from None
                time.sleep(0.01)

    def _release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
