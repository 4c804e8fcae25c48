"""store.parallel: work beside the process in a forked child."""

from __future__ import annotations

import os

import pytest

from store import parallel


def test_beside_runs_the_work_in_another_process_and_hands_its_answer_back():
    here = os.getpid()
    with parallel.beside(lambda: (os.getpid(), list(range(5)))) as answer:
        assert answer is not None
        pid, items = answer()
    assert pid != here and items == [0, 1, 2, 3, 4]


def test_beside_raises_the_workers_exception_here():
    def fails() -> int:
        raise ValueError("bad input in the worker")
    with parallel.beside(fails) as answer:
        assert answer is not None
        with pytest.raises(ValueError, match="bad input in the worker"):
            answer()


def test_a_worker_that_dies_without_an_answer_raises_child_process_error():
    with parallel.beside(lambda: os._exit(3)) as answer:
        assert answer is not None
        with pytest.raises(ChildProcessError, match="exit code 3"):
            answer()


def test_a_block_that_fails_before_asking_does_not_wait_for_the_worker():
    big = b"x" * (8 << 20)  # more than a pipe holds: the worker blocks writing it
    with pytest.raises(RuntimeError), parallel.beside(lambda: big):
        raise RuntimeError("the block failed")


def test_without_fork_the_caller_is_told_to_do_the_work(monkeypatch):
    monkeypatch.setenv("PAPERSIFT_NO_PARALLEL", "1")
    with parallel.beside(lambda: 1) as answer:
        assert answer is None


def test_map_list_spreads_the_chunks_over_children_with_the_serial_answer(monkeypatch):
    monkeypatch.setattr(parallel, "MIN_ITEMS", 10)
    monkeypatch.setattr(parallel, "_can_fork", lambda: True)
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    items = list(range(100))
    got = parallel.map_list(lambda chunk: [(x * x, os.getpid()) for x in chunk], items)
    assert [sq for sq, _ in got] == [x * x for x in items]
    assert len({pid for _, pid in got}) == 3 and got[0][1] == os.getpid()  # the first chunk is done here


INTERRUPTED_READ = r"""
import multiprocessing.connection, os, sys
from store import parallel

def interrupted(self):  # Ctrl-C arriving while the worker's answer is being read
    raise KeyboardInterrupt
multiprocessing.connection.Connection.recv = interrupted
try:
    with parallel.beside(lambda: b"x" * (8 << 20)) as answer:  # more than a pipe holds
        answer()
except KeyboardInterrupt:
    print("interrupted", multiprocessing.active_children())
"""


def test_ctrl_c_while_an_answer_is_read_leaves_no_worker_and_no_wait():
    """The worker is blocked writing an answer nobody will read: it is killed, not waited for."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_READ], cwd=root, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(root)})
    assert done.stdout.strip() == "interrupted []", done.stderr[-2000:]
