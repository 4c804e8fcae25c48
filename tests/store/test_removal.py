"""store/library/removal.py: a removal and its undo keep the import order."""

from __future__ import annotations

from store import Library
from store.library.removal import REMOVE_ACTION, redo_corpus


def _order(lib: Library) -> list[str]:
    return [p.id for p in lib.corpus]


def test_an_undone_removal_puts_papers_back_in_their_places(lib):
    before = _order(lib)
    gone = [before[3], before[0], before[20], before[-1]]
    lib.marks.add_tags([before[20]], ["keep"])
    assert lib.remove(gone) == 4
    assert _order(lib) == [i for i in before if i not in gone]
    assert lib.undo()
    assert _order(lib) == before
    assert _order(Library.open(lib.corpus_path.parent)) == before  # on disk too, not only in memory
    assert lib.annotation(before[20]).tags == ["keep"]
    assert lib.redo()
    assert _order(lib) == [i for i in before if i not in gone]


def test_a_removal_recorded_without_places_comes_back_at_the_end(lib):
    """An undo entry written before places were kept still brings its papers back."""
    before = _order(lib)
    record = lib.paper(before[2]).to_record()
    lib.remove([before[2]])
    redo_corpus(lib, {"action": REMOVE_ACTION, "papers": [record]}, undone=True)
    assert _order(lib) == [i for i in before if i != before[2]] + [before[2]]
