"""More-like-this lookups asked of a helper process (store.discovery.lookup_helper).

:class:`LookupHelper` answers ``similar(paper, limit, stop)`` as
:meth:`store.discovery.similar.Similarity.similar` does, from the same model file, in a process
of its own. One question at a time: a second caller waits for the first's answer. A caller's
``stop`` is asked while it waits, and passed on (the helper stops at its next window). When the
helper cannot answer (it failed to start, exited, or took longer than a lookup ever takes), it
is ended and :class:`HelperGone` raised: the caller looks up in its own process from then on.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from store.discovery.similar import LookupStopped
from store.discovery.lookup_helper import ANSWER, QUESTION, REFUSED, STOPPED, read_exact, write_all

POLL = 0.004  # seconds between a waiting caller's looks at its ``stop``
FIRST_ANSWER = 60.0  # seconds the first answer may take (the helper loads and checks the model first)
LATER_ANSWER = 10.0  # seconds any later answer may take (a lookup takes tens of ms)


class HelperGone(Exception):
    """The helper cannot answer (look up in this process instead)."""


class LookupHelper:
    """The asking side of one helper process, serving the model at ``model`` for corpus
    generation ``token`` of ``n_docs`` papers. Started at once; :meth:`close` ends it (and so
    does this process's end: the helper exits when its stdin closes)."""

    def __init__(self, model: Path, token: str, n_docs: int) -> None:
        self.n_docs = n_docs
        self._lock = threading.Lock()  # one question at a time
        self._number = 0
        self._ready = False  # the helper said its paper count
        # The helper's lookups on one core and one lane (its own second thread): BLAS threads
        # of its own would take the core the app draws on.
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-m", "store.discovery.lookup_helper", str(model), token],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def similar(self, paper: int, limit: int, stop: Callable[[], bool] | None = None) -> list[tuple[int, float]]:
        """The ``limit`` papers most like ``paper``, best first (as Similarity.similar).

        Raises LookupStopped when ``stop`` said so first, HelperGone when the helper cannot answer."""
        with self._lock:
            proc = self._proc
            if proc is None or proc.stdin is None or proc.stdout is None:
                raise HelperGone
            try:
                if not self._ready:
                    self._wait(proc, 0, stop, FIRST_ANSWER)
                    number, count = self._header(proc)
                    if number != 0 or count != self.n_docs:
                        raise HelperGone  # another model than this corpus's
                    self._ready = True
                self._number += 1
                write_all(proc.stdin.fileno(), QUESTION.pack(self._number, paper, limit))
                self._wait(proc, self._number, stop, LATER_ANSWER)
                number, count = self._header(proc)
                if number != self._number:
                    raise HelperGone
                if count == STOPPED:
                    raise LookupStopped
                if count == REFUSED or count < 0 or count > limit:
                    raise HelperGone
                body = read_exact(proc.stdout.fileno(), 16 * count)
                if body is None:
                    raise HelperGone
            except (HelperGone, OSError):
                self._end()
                raise HelperGone from None
            papers = np.frombuffer(body, dtype="<i8", count=count)
            scores = np.frombuffer(body, dtype="<f8", count=count, offset=8 * count)
            if len(papers) and (papers.min() < 0 or papers.max() >= self.n_docs):
                self._end()
                raise HelperGone
            return [(int(i), float(s)) for i, s in zip(papers, scores)]

    def _wait(self, proc: subprocess.Popen[bytes], number: int, stop: Callable[[], bool] | None,
              seconds: float) -> None:
        """Until the helper's answer can be read; a ``stop`` that says so is passed on once."""
        assert proc.stdout is not None and proc.stdin is not None
        deadline = time.monotonic() + seconds
        asked_to_stop = False
        while not select.select([proc.stdout], [], [], POLL)[0]:
            if time.monotonic() > deadline:
                raise HelperGone
            if stop is not None and not asked_to_stop and stop():
                if number == 0:  # (the helper is still loading: nothing asked yet; the next call waits on)
                    raise LookupStopped
                write_all(proc.stdin.fileno(), QUESTION.pack(number, -1, 0))
                asked_to_stop = True

    def _header(self, proc: subprocess.Popen[bytes]) -> tuple[int, int]:
        assert proc.stdout is not None
        header = read_exact(proc.stdout.fileno(), ANSWER.size)
        if header is None:
            raise HelperGone
        number, count = ANSWER.unpack(header)
        return number, count

    def close(self) -> None:
        """End the helper (it exits once its stdin closes; killed if it does not within a second).
        A caller waiting for an answer meanwhile is not waited for: the helper is killed, and
        that caller, seeing it gone, ends it (HelperGone)."""
        if self._lock.acquire(blocking=False):
            try:
                self._end()
            finally:
                self._lock.release()
        else:
            proc = self._proc
            if proc is not None:
                proc.kill()

    def _end(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        for pipe in (proc.stdin, proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
