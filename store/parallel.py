"""Spread pure per-item work (normalizing, deriving titles) over the machine's cores.

Only for large batches, and only with the ``fork`` start method when no other
thread is running (forking a threaded process is unsafe; spawning would
re-import everything and cost more than it saves). Otherwise it runs serially,
with identical results.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
from functools import partial
from typing import TYPE_CHECKING, Callable, Iterator, TypeVar, cast

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

T = TypeVar("T")
R = TypeVar("R")
MIN_ITEMS = 3000


def _can_fork() -> bool:
    return ("fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
            and (os.cpu_count() or 1) > 1 and not os.environ.get("PAPERSIFT_NO_PARALLEL"))


def map_list(fn: Callable[[list[T]], list[R]], items: list[T]) -> list[R]:
    """``fn`` maps a list to a list of the same length; run it over chunks in parallel.

    Each chunk but the first goes to a child forked for this map (it inherits ``fn`` and its chunk:
    nothing is pickled on the way out, only the answers come back); the first is done here
    meanwhile. A pool of long-lived workers would save the forks (a few ms each) but brings
    threads and locks of its own, which an interrupt can leave held."""
    if len(items) < MIN_ITEMS or not _can_fork():
        return fn(items)
    workers = min(os.cpu_count() or 1, 8)
    size = -(-len(items) // workers)
    chunks = [items[i:i + size] for i in range(size, len(items), size)]
    with _forked([partial(fn, chunk) for chunk in chunks]) as answers:
        first = fn(items[:size])
        rest = [answer() for answer in answers]
    return [r for part in (first, *rest) for r in part]


def worker_started(parent: int) -> None:
    """In a forked worker, first: Ctrl-C is the parent's to handle (a terminal sends it to the
    whole process group; the parent stops its workers and says what became of the library), and
    the worker ends with its parent (a parent killed outright leaves no worker behind, writing
    into a closed pipe)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # (held back while it was forked)
    try:
        import ctypes
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # (the parent died before the line above)
        os._exit(0)


def release_free_memory(collect: bool = True) -> None:
    """Hand memory freed by a big batch back to the OS (glibc keeps it otherwise).

    The import's dedup stage frees tens of thousands of small arrays; without
    this the index build that follows stacks its peak on top of their pages.
    No-op where glibc's ``malloc_trim`` is unavailable.

    Args:
        collect: run the cycle collector first (skip it when only plain objects
            such as strings were dropped: a full collection over a big corpus
            takes a while).
    """
    import ctypes
    import ctypes.util
    import gc

    if collect:
        gc.collect()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        pass


def map_big_blocks() -> None:
    """Have glibc map every block of 128 KB or more on its own, and unmap it when freed.

    glibc raises that threshold (up to 32 MB) each time a mapped block is freed, after which
    mid-sized arrays (an import's per-slice temporaries, a chunk's replies) come from the heap,
    whose freed pages stay the process's between its long-lived objects. Fixing it keeps a big
    import's index build from stacking on them. It holds for the rest of the process (an app that
    imported keeps it: a mapping per big block costs a system call, not memory). No-op where
    ``mallopt`` is unavailable.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-3, 128 * 1024)  # M_MMAP_THRESHOLD (a fixed one: no dynamic raising)
    except (OSError, AttributeError):
        pass


@contextlib.contextmanager
def beside(fn: Callable[[], R]) -> Iterator[Callable[[], R] | None]:
    """Run ``fn`` in a forked child while the block runs here; the block gets a function that
    waits for ``fn``'s result (pickled back through a pipe), or None where forking is not possible
    (the caller then does the work itself). ``fn`` is not pickled: the child inherits it. If the
    child dies without an answer (killed, out of memory) the function raises ChildProcessError;
    an exception ``fn`` raised is raised again here."""
    if not _can_fork():
        yield None
        return
    with _forked([fn]) as answers:
        yield answers[0]


@contextlib.contextmanager
def _forked(fns: list[Callable[[], R]]) -> Iterator[list[Callable[[], R]]]:
    """A forked child per function, each computing it; the block gets one waiting function per
    child. When the block ends (or fails, or Ctrl-C stops it) every child still running is killed
    and every child is reaped: none outlives the block.

    The children are forked with Ctrl-C (SIGINT, which a terminal sends to the whole process
    group) held back, so that neither a child before it ignores it nor the parent in the middle of
    forking is interrupted; one that arrived meanwhile is raised here once every child is known."""
    ctx = multiprocessing.get_context("fork")
    started: list[tuple[BaseProcess, Connection]] = []

    def waiter(k: int) -> Callable[[], R]:
        def result() -> R:
            child, receive = started[k]
            try:
                ok, value = receive.recv()
            except EOFError:
                child.join(5)  # (its exit code, once it is reaped)
                raise ChildProcessError(f"the worker ended without an answer (exit code {child.exitcode})") from None
            if not ok:
                raise value
            return cast(R, value)
        return result
    try:
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            for fn in fns:
                receive, send = ctx.Pipe(duplex=False)
                child = ctx.Process(target=_answer, args=(fn, send, os.getpid()), daemon=True)
                try:
                    child.start()
                finally:
                    send.close()
                started.append((child, receive))
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)  # (a Ctrl-C held back is raised here)
        yield [waiter(k) for k in range(len(started))]
    finally:
        for proc, _ in started:
            # One still running may be blocked writing an answer no one will read (the block
            # failed, or Ctrl-C came while its answer was being read): it is killed, not waited for.
            if proc.exitcode is None:
                proc.kill()
        for proc, pipe in started:
            proc.join()
            pipe.close()


def _answer(fn: Callable[[], object], send: Connection, parent: int) -> None:
    worker_started(parent)
    try:
        answer: tuple[bool, object] = (True, fn())
    except BaseException as e:  # noqa: BLE001 (sent to the parent, which raises it)
        answer = (False, e)
    try:
        send.send(answer)
        send.close()
    except (BrokenPipeError, OSError):  # (the parent stopped waiting: nobody to answer)
        pass
