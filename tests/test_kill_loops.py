"""Kill loops over the commands that write more than one file: `remove` (its undo entry, then the
corpus) and `undo` of a removal (the annotations, then the corpus), killed with SIGKILL at evenly
spread moments of their measured length. After `doctor --repair` nothing acknowledged is lost and
nothing is half done: the papers are there with their annotations, or gone with an undo that
brings them back with them."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time

import pytest

from store import Library
from store.doctor import run_doctor

from .conftest import papersift_argv
from .surface import SLICE

pytestmark = pytest.mark.slow

MOMENTS = 10


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kill") / "lib"
    lib = Library.open(folder, seed_if_new=False)
    lib.import_paths([SLICE])
    ids = [p.id for p in lib.corpus.papers]
    lib.add_tags(ids[:600], ["alpha"])
    lib.set_note(ids[0], "a note that must survive")
    return folder, ids[:600]


def measured(argv: list[str], env: dict[str, str]) -> float:
    started = time.monotonic()
    subprocess.run(argv, env=env, capture_output=True, check=True, timeout=120)
    return time.monotonic() - started


def killed_at(argv: list[str], env: dict[str, str], delay: float) -> None:
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)


def whole(folder, ids: list[str]) -> str:
    """'present' or 'removed' when the library is whole; fails on anything half done."""
    report = run_doctor(folder, repair=True)
    assert report.healthy, report.problems
    assert run_doctor(folder).problems == [], "a doctor after the repair still finds problems"
    lib = Library(folder)
    here = [lib.corpus.index_of(i) is not None for i in ids]
    if all(here):
        assert all(lib.annotation(i).tags == ["alpha"] for i in ids), "papers present without their tags"
        assert lib.annotation(ids[0]).note == "a note that must survive"
        return "present"
    assert not any(here), f"{sum(here)} of {len(ids)} papers left: a removal half done"
    assert lib.undo() is not None
    back = Library(folder)
    assert all(back.annotation(i).tags == ["alpha"] for i in ids), "an undo that brings papers back bare"
    return "removed"


@pytest.mark.parametrize("command", ["remove", "undo"])
def test_killed_at_evenly_spread_moments_nothing_is_lost_or_half_done(template, tmp_path, command):
    folder, ids = template
    seen = set()
    length = None
    for k in range(MOMENTS + 1):
        lib_dir = tmp_path / f"lib{k}"
        shutil.copytree(folder, lib_dir)
        env = {**os.environ, "PAPERSIFT_LIBRARY": str(lib_dir)}
        if command == "undo":
            Library(lib_dir).remove(ids)
        argv = [*papersift_argv(), *(["remove", "--query", "tag:alpha"] if command == "remove" else ["undo"])]
        if length is None:  # measured once, on a copy of its own
            probe = tmp_path / "probe"
            shutil.copytree(lib_dir, probe)
            length = measured(argv, {**env, "PAPERSIFT_LIBRARY": str(probe)})
        killed_at(argv, env, length * k / MOMENTS)
        seen.add(whole(lib_dir, ids))
    assert seen <= {"present", "removed"}
