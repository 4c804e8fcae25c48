"""An error tells the truth: a write failing at any step leaves what the CLI printed true on disk.

Every write step of a triage change, undo, redo, a tag rename, an import and a change that folds
the journal (the 500th) is made to fail in turn (the disk fills up at the Nth write or fsync).
After each: an exit status 1 saying "nothing was changed" means the library on disk is as before;
exit 0 means the change is in effect (and any postponed fold is said as a warning).
"""

from __future__ import annotations

import errno
import os
import shutil

import pytest

import store.annotations.storage
import store.files.atomic
from store import Library
from tui.cli import main

pytestmark = pytest.mark.slow


class FillsUpAt:
    """Stands in for ``os`` inside store.files.atomic: the ``n``-th write or fsync finds the disk full."""

    def __init__(self, n: int) -> None:
        self.left = n
        self.fired = False

    def __getattr__(self, name):
        return getattr(os, name)

    def _step(self, real, *args):
        self.left -= 1
        if self.left == 0:
            self.fired = True
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args)

    def write(self, *args):
        return self._step(os.write, *args)

    def fsync(self, *args):
        return self._step(os.fsync, *args)

    def replace(self, *args):
        return self._step(os.replace, *args)


def state(folder) -> tuple:
    lib = Library(folder)
    return len(lib), {pid: (a.status, a.star, tuple(a.tags), a.note) for pid, a in lib.annotations.items()}


def _prepared(tmp_path, seeds_dir) -> tuple:
    lib = Library(tmp_path / "template")
    lib.paper_changes.import_paths([seeds_dir])
    ids = [p.id for p in lib.corpus]
    lib.marks.set_status(ids[:2], "read")
    lib.marks.add_tags(ids[:3], ["rl"])
    lib.marks.set_star([ids[0]], 2)
    lib.undo()  # something to redo
    return lib.folder, ids


OPERATIONS = {
    "status": lambda ids, extra: ["status", ids[5], "read"],
    "bulk status": lambda ids, extra: ["status", *ids[10:22], "skipped"],  # a backup first
    "undo": lambda ids, extra: ["undo"],
    "redo": lambda ids, extra: ["redo"],
    "tags rename": lambda ids, extra: ["tags", "rename", "rl", "reinforcement"],
    "import": lambda ids, extra: ["import", str(extra)],
    "note (folds the journal)": lambda ids, extra: ["note", ids[7], "a note long enough " * 4],
}


@pytest.mark.parametrize("op", OPERATIONS)
def test_every_write_step_failing_leaves_the_printed_outcome_true(op, tmp_path, seeds_dir, monkeypatch, capsys):
    template, ids = _prepared(tmp_path, seeds_dir)
    extra = tmp_path / "more.jsonl"
    extra.write_text('{"title": "New", "abstract": "A new paper about injected write failures on a full disk."}\n')
    if op.startswith("note"):
        monkeypatch.setattr(store.annotations.storage, "COMPACT_LINES", 1)  # every change folds: the 500th, sooner
    argv = OPERATIONS[op](ids, extra)
    said_postponed = False
    for n in range(1, 200):
        case = tmp_path / f"case-{n}"
        shutil.copytree(template, case)
        before = state(case)
        disk = FillsUpAt(n)
        monkeypatch.setattr(store.files.atomic, "os", disk)
        rc = main(["--library", str(case), *argv])
        monkeypatch.setattr(store.files.atomic, "os", os)
        err = capsys.readouterr().err
        after = state(case)
        if rc != 0:
            assert "nothing was changed" in err, (op, n, err)
            assert after == before, (op, n, "an error was printed but the change is on disk")
        else:
            assert "nothing was changed" not in err, (op, n, err)
            if disk.fired:
                said_postponed |= "postponed" in err
        shutil.rmtree(case)
        if not disk.fired:  # every write step has had its turn
            assert rc == 0 and after != before, (op, "the operation itself changed nothing")
            break
    else:
        raise AssertionError(f"{op}: more than 200 write steps?")
    if op.startswith("note"):
        assert said_postponed, "a fold that failed after the change was saved must say so"
