"""``python -m store.discovery.lookup_helper MODEL TOKEN``: more-like-this lookups in a process of
their own, asked over its stdin and answered on its stdout (store.discovery.lookups is the asking
side).

A big library's app looks up the reader's nearest papers here: the lookup runs on the other core
while the app draws the paper it is for (in the app's process the two took turns with the GIL),
and the latent vectors every lookup reads (~150 MB at 300k papers) are held here, not in the app.
The model is the same file (``Similarity.load`` with the corpus generation ``TOKEN``), so the
neighbours are the app's own to the last bit.

Messages are fixed-size little-endian records: a question is :data:`QUESTION` (number, paper,
how many; a paper of -1 stops the lookup with that number), an answer :data:`ANSWER` (number, how
many, then that many paper numbers as int64 and scores as float64; -1 papers: stopped, -2: the
question was not one to answer). On start the helper answers question 0 with the model's paper
count (the asking side checks it is its corpus's). It exits when its stdin closes: the app ended,
or was killed.
"""

from __future__ import annotations

import os
import select
import struct
import sys
import threading
from pathlib import Path

import numpy as np

QUESTION = struct.Struct("<qqq")  # number, paper (-1: stop that number's lookup), how many
ANSWER = struct.Struct("<qq")  # number, papers (STOPPED, REFUSED, or that many pairs follow)
STOPPED, REFUSED = -1, -2
MOST = 2000  # the most neighbours a question may ask for (store.discovery.similar.CANDIDATES)


def read_exact(fd: int, size: int) -> bytes | None:
    """``size`` bytes from ``fd``, or None at its end (the other side closed it)."""
    out = b""
    while len(out) < size:
        chunk = os.read(fd, size - len(out))
        if not chunk:
            return None
        out += chunk
    return out


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def answer(number: int, pairs: list[tuple[int, float]]) -> bytes:
    """An answer's bytes: its header, the papers, their scores."""
    return (ANSWER.pack(number, len(pairs)) + np.array([i for i, _ in pairs], dtype="<i8").tobytes()
            + np.array([s for _, s in pairs], dtype="<f8").tobytes())


class Asked:
    """What a running lookup asks between its windows (``stop``): whether a stop for its number
    came in on stdin. Both of the lookup's threads ask, so the reading is under a lock; another
    question meanwhile (the asking side sends one at a time, so none should come) is kept for
    after."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.number = 0
        self.stopped = False
        self.ended = False  # stdin closed: the app is gone
        self.later: list[bytes] = []
        self._lock = threading.Lock()

    def begin(self, number: int) -> None:
        self.number, self.stopped = number, False

    def stop(self) -> bool:
        with self._lock:
            while not self.stopped and select.select([self.fd], [], [], 0)[0]:
                message = read_exact(self.fd, QUESTION.size)
                if message is None:
                    self.stopped = self.ended = True
                    break
                number, paper, _ = QUESTION.unpack(message)
                if paper >= 0:
                    self.later.append(message)
                elif number == self.number:
                    self.stopped = True
            return self.stopped


def serve(model: Path, token: str, fd_in: int, fd_out: int) -> int:
    """Load the model, say how many papers it has, answer questions until stdin closes."""
    from store.discovery.similar import LookupStopped, Similarity

    sim = Similarity.load(model, token)
    if sim is None:
        return 1  # another corpus's model, or damaged: the asking side looks up in its own process
    n_docs = sim.matrix.shape[0]
    _ = sim.latent  # (copied now, not in the first lookup)
    write_all(fd_out, ANSWER.pack(0, n_docs))
    asked = Asked(fd_in)
    while not asked.ended:
        message = asked.later.pop(0) if asked.later else read_exact(fd_in, QUESTION.size)
        if message is None:
            break
        number, paper, limit = QUESTION.unpack(message)
        if paper < 0:
            continue  # a stop for a lookup already answered
        if paper >= n_docs or not 1 <= limit <= MOST:
            write_all(fd_out, ANSWER.pack(number, REFUSED))
            continue
        asked.begin(number)
        try:
            reply = answer(number, sim.similar(paper, limit, stop=asked.stop))
        except LookupStopped:
            reply = ANSWER.pack(number, STOPPED)
        except Exception:  # a damaged model found mid-lookup: this question fails, not the helper
            reply = ANSWER.pack(number, REFUSED)
        if asked.ended:
            break
        write_all(fd_out, reply)
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m store.discovery.lookup_helper MODEL TOKEN", file=sys.stderr)
        return 2
    try:
        return serve(Path(argv[0]), argv[1], sys.stdin.fileno(), sys.stdout.fileno())
    except (BrokenPipeError, KeyboardInterrupt):
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
