"""LibraryCore.tag_counts: counted once, then kept as changes come (the tag panel asks after every
triage key): after any run of changes, undos, removals and other processes' writes, the counts are
the ones a full count gives, this member's only."""

from __future__ import annotations

import random
from collections import Counter

from store import Library


def counted(lib: Library) -> Counter[str]:
    return Counter(t for a in lib.annotations.values() for t in a.tags)


def test_kept_counts_are_a_full_count_after_every_step(lib):
    rng = random.Random(7)
    ids = [p.id for p in lib.corpus][:12]
    tags = ["rl", "vision", "theory", "later"]
    ana = Library(lib.folder, member="ana")
    other = Library(lib.folder)  # another papersift of the same member
    assert lib.tag_counts() == counted(lib)  # (the first ask counts; every later one is kept)
    for step in range(120):
        kind = rng.choice(["add", "add", "remove", "rename", "status", "undo", "redo", "ana", "other", "remove_paper"])
        picked = rng.sample(ids, rng.randint(1, 3))
        if kind == "add":
            lib.marks.add_tags(picked, rng.sample(tags, rng.randint(1, 2)))
        elif kind == "remove":
            lib.marks.remove_tags(picked, [rng.choice(tags)])
        elif kind == "rename":
            old, new = rng.sample(tags, 2)
            if old in lib.tag_counts():
                lib.marks.rename_tag(old, new)
        elif kind == "status":
            lib.marks.set_status(picked, rng.choice(["read", "unread", "skipped"]))
        elif kind == "undo":
            lib.undo()
        elif kind == "redo":
            lib.redo()
        elif kind == "ana":
            ana.refresh()
            ana.marks.add_tags(picked, [rng.choice(tags)])  # another member's tags: not this member's counts
            lib.refresh()
        elif kind == "other":
            other.refresh()
            other.marks.add_tags(picked, [rng.choice(tags)])
            lib.refresh()
        elif kind == "remove_paper" and step % 30 == 0:
            gone = picked[0]
            lib.remove([gone])
            ids.remove(gone)
        got = lib.tag_counts()
        assert got == counted(lib), (step, kind, got, counted(lib))
        assert all(n > 0 for n in got.values())
    assert sum(lib.tag_counts().values()) > 0


def test_the_counts_handed_out_are_a_copy(lib):
    pid = lib.corpus.papers[0].id
    lib.marks.add_tags([pid], ["rl"])
    mine = lib.tag_counts()
    mine["rl"] += 10
    assert lib.tag_counts()["rl"] == 1
