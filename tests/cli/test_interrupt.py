"""Ctrl-C during a big import (the terminal sends SIGINT to the whole process group: the parent and
its forked workers) ends it at once, says what became of the library, prints no traceback and
leaves no process; a parent killed outright leaves no worker behind either."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..conftest import papersift_argv

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def big_dump(tmp_path_factory) -> Path:
    """12,000 generated abstracts: enough for the import to fork its workers (store.parallel)."""
    out = tmp_path_factory.mktemp("big") / "big.txt"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "generate.py"), "12000", str(out)], check=True,
                   capture_output=True, timeout=300)
    return out


def digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.name in ("corpus.jsonl", "annotations.json")}


def group(pgid: int) -> list[str]:
    found = subprocess.run(["pgrep", "-g", str(pgid)], capture_output=True, text=True).stdout.split()
    return [pid for pid in found if pid != str(pgid) or _alive(pgid)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").exists() and Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def started_import(folder: Path, dump: Path) -> subprocess.Popen:
    """`papersift import` in a session of its own (as a terminal's foreground job), once its
    workers are running."""
    env = {**os.environ, "PAPERSIFT_LIBRARY": str(folder)}
    proc = subprocess.Popen([*papersift_argv(), "import", str(dump)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while len(group(proc.pid)) < 2:  # the forked workers are up
        assert proc.poll() is None and time.monotonic() < deadline, "the import never forked its workers"
        time.sleep(0.02)
    return proc


def test_ctrl_c_ends_an_import_at_once_and_says_the_library_is_unchanged(tmp_path, big_dump, run_cli):
    folder = tmp_path / "lib"
    run_cli("list", "--limit", "1", library=folder)  # a library (the sample) to import into
    before = digest(folder)
    proc = started_import(folder, big_dump)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    sent = time.monotonic()
    try:
        out, err = proc.communicate(timeout=10)
    except BaseException:  # (a hang fails the test, and leaves no process behind)
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    assert time.monotonic() - sent < 1.0, "Ctrl-C took over a second"
    assert proc.returncode == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-2000:]
    assert "interrupted: the library is unchanged" in err
    deadline = time.monotonic() + 2  # (the workers are stopped by SIGTERM; a busy machine reaps them late)
    while group(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = group(proc.pid)
    if left:
        os.killpg(proc.pid, signal.SIGKILL)
    assert left == [], "a worker outlived the interrupted import"
    assert digest(folder) == before


def test_a_parent_killed_outright_leaves_no_worker(tmp_path, big_dump, run_cli):
    folder = tmp_path / "lib"
    run_cli("list", "--limit", "1", library=folder)
    proc = started_import(folder, big_dump)
    os.kill(proc.pid, signal.SIGKILL)
    try:
        _, err = proc.communicate(timeout=10)
    except BaseException:  # (a hang fails the test, and leaves no process behind)
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    deadline = time.monotonic() + 2
    while group(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = group(proc.pid)
    if left:
        os.killpg(proc.pid, signal.SIGKILL)
    assert left == [], "workers left running after their parent was killed"
    assert "BrokenPipeError" not in err and "Traceback" not in err


def test_ctrl_c_after_the_import_was_saved_says_it_went_in(tmp_path, big_dump, run_cli):
    """Ctrl-C once the corpus is saved (its index still being built): the import went in, and
    the message says so (not "the changes saved before the interrupt", which `history` would not
    list)."""
    folder = tmp_path / "lib"
    run_cli("list", "--limit", "1", library=folder)
    corpus = folder / "corpus.jsonl"
    before = corpus.stat().st_mtime_ns
    proc = started_import(folder, big_dump)
    deadline = time.monotonic() + 120
    while corpus.stat().st_mtime_ns == before:  # (the corpus is replaced atomically: saved whole)
        assert proc.poll() is None and time.monotonic() < deadline, "the import ended before its corpus was seen saved"
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=20)
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    assert "Traceback" not in err, err[-2000:]
    if proc.returncode == 0:  # (the index was built before the interrupt arrived: nothing to say)
        pytest.skip("the import ended before Ctrl-C arrived")
    assert proc.returncode == 130
    assert "interrupted after the import was saved: the library holds" in err, err
    assert "`papersift list --query new:` lists the new ones" in err
    listed = run_cli("list", "--query", "new:", "--format", "plain", library=folder)
    assert len(listed.stdout.splitlines()) > 10_000
