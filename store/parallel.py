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
from typing import TYPE_CHECKING, Callable, Iterator, Literal, TypeVar, cast

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.pool import Pool

T = TypeVar("T")
R = TypeVar("R")
MIN_ITEMS = 3000


def _can_fork() -> bool:
    return ("fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
            and (os.cpu_count() or 1) > 1 and not os.environ.get("PAPERSIFT_NO_PARALLEL"))


_shared_pool: Pool | Literal[False] | None = None  # None: outside a block; False: inside one, no pool yet


@contextlib.contextmanager
def shared_pool() -> Iterator[None]:
    """Reuse one pool of forked workers for every :func:`map_list` inside the block.

    An import maps twice (normalize, then fingerprint and title); forking and
    reaping the workers once instead of twice saves ~50 ms. The workers are
    forked at the first big map, so they see the parent's state as of then.
    """
    global _shared_pool
    if _shared_pool is not None:  # nested: the outer block owns the pool
        yield
        return
    _shared_pool = False  # "inside a block, no pool yet"
    try:
        yield
    except BaseException:  # (Ctrl-C, an error): the workers are stopped, not waited for
        pool, _shared_pool = _shared_pool, None
        if pool:
            pool.terminate()
            pool.join()
        raise
    pool, _shared_pool = _shared_pool, None
    if pool:
        pool.close()
        pool.join()


def map_list(fn: Callable[[list[T]], list[R]], items: list[T]) -> list[R]:
    """``fn`` maps a list to a list of the same length; run it over chunks in parallel."""
    global _shared_pool
    if len(items) < MIN_ITEMS or not (_shared_pool or _can_fork()):
        return fn(items)
    workers = min(os.cpu_count() or 1, 8)
    size = -(-len(items) // (workers * 2))
    chunks = [items[i:i + size] for i in range(0, len(items), size)]
    if _shared_pool is False:
        _shared_pool = multiprocessing.get_context("fork").Pool(workers, initializer=worker_started, initargs=(os.getpid(),))
    if _shared_pool:
        parts = _shared_pool.map(fn, chunks)
    else:
        with multiprocessing.get_context("fork").Pool(workers, initializer=worker_started, initargs=(os.getpid(),)) as pool:
            parts = pool.map(fn, chunks)
    return [r for part in parts for r in part]


def worker_started(parent: int) -> None:
    """In a forked worker, first: Ctrl-C is the parent's to handle (a terminal sends it to the
    whole process group; the parent stops its workers and says what became of the library), and
    the worker ends with its parent (a parent killed outright leaves no worker behind, writing
    into a closed pipe)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
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
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_answer, args=(fn, send, os.getpid()), daemon=True)
    child.start()
    send.close()
    answered = False

    def result() -> R:
        nonlocal answered
        try:
            ok, value = receive.recv()
        except EOFError:
            child.join(5)  # (its exit code, once it is reaped)
            raise ChildProcessError(f"the worker ended without an answer (exit code {child.exitcode})") from None
        finally:
            answered = True
        if not ok:
            raise value
        return cast(R, value)
    try:
        yield result
    finally:
        if not answered:  # (the block failed: the child may be blocked writing its answer)
            child.terminate()
        child.join()
        receive.close()


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
