"""The library lock (store/files/lock.py): its timeout names the library; re-entrant in one process."""

import subprocess
import sys
import time

import pytest

from store.errors import LibraryLockedError


def test_the_lock_times_out_naming_the_library_when_another_process_holds_it(tmp_path):
    from store.files.lock import LibraryLock

    path = tmp_path / ".lock"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(path)!r}, os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(30)\n")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        lock = LibraryLock(path, timeout=0.3)
        started = time.monotonic()
        with pytest.raises(LibraryLockedError, match="another papersift process has held the library lock"):
            with lock.held():
                pass
        assert 0.3 <= time.monotonic() - started < 3
        with lock.attempt() as got:  # the UI thread's way: no wait at all
            assert got is False
    finally:
        holder.kill()
        holder.wait()
    with LibraryLock(path, timeout=0.3).held():  # free again
        pass


def test_the_lock_is_reentrant_in_one_process(tmp_path):
    from store.files.lock import LibraryLock

    lock = LibraryLock(tmp_path / ".lock")
    with lock.held():
        with lock.held():
            with lock.attempt() as got:
                assert got is True
