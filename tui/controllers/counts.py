"""What the main screen counts: the list's border title (how many match, how many of those are
still unread, weaker matches, the sort, the selection) and the header's triaged count."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from store.search import quick

from ..widgets.header import TriageHeader

if TYPE_CHECKING:
    from store import Library
    from store.search.result import SearchResult

    from ..widgets.results import ResultsList


class Counts:
    """The counts the list and the header show.

    Args:
        library: what is counted.
        results: the list whose border title says them.
        header: the header that says the whole library's progress.
    """

    def __init__(self, library: Library, results: ResultsList, header: TriageHeader) -> None:
        self.library = library
        self.results = results
        self.header = header
        self._shown = (0, 0, "", 0)  # result set, library size, sort note, weaker matches
        self._triaged: np.ndarray | None = None  # see triaged_mask
        self.standing = ""  # kept in the header while it has no other note ("312 new since your last visit")
        self.screening = ""  # while the list is the triage queue: how far down it is worth reading
        self.result_note = ""  # what the list's search said (a filter not applied, a compound counted)
        self.lab_sync = ""  # a lab's git sync: "synced 2 min ago · ben +12 marks" (controllers.lab_sync)

    def new_results(self, result: SearchResult, sort_note: str) -> None:
        """A result set is in the list: count it (the header says what a filter could not apply)."""
        self._shown = (len(result.matches), result.total, sort_note, result.weaker)
        self.show_list_title()
        # What a filter could not apply (did you mean), and what a compound counted besides its
        # own spelling ("sim-to-real (also sim2real)"): in the header, where a line has room.
        self.result_note = "; ".join([*result.errors, *(["counted: " + ", ".join(result.widened)] if result.widened else []),
                                      *(["read as: " + ", ".join(result.read_as)] if result.read_as else [])])
        self.show_header(self.result_note)

    def annotations_changed(self, changed: list[str] | None) -> None:
        """Annotations changed (those of the papers ``changed``, when known): count again."""
        if changed is not None and self._triaged is not None:  # a triage key: only its papers
            for pid in changed:
                i = self.library.corpus.index_of(pid)
                if i is not None:
                    self._triaged[i] = self.library.annotation(pid).status != "unread"
        else:
            self._triaged = None  # rebuilt when next needed (7.7 ms at 29k annotated papers)
        self.show_list_title()
        self.show_header()

    def forget_triaged(self) -> None:
        """Paper positions moved (a removal, a reload): the triaged mask is taken again."""
        self._triaged = None

    def show_list_title(self) -> None:
        """The results' border title: how many match, how many of those are still unread (a search
        or filter is a piece of work of its own: the header counts the whole library), the sort,
        how many are selected."""
        shown, total, sort, weaker = self._shown
        results = self.results
        picked = len(results.selected)
        unread = ""
        if shown and shown < total:
            left = shown - int(np.count_nonzero(self.triaged_mask()[results.indices[:shown]]))
            unread = f" · {left:,} unread"
        # The count is the result set's (every word); weaker matches below the divider are not in it.
        # At the cap the weaker matches listed are the closest of more: "+100 weaker" read as a count.
        more = ("" if not weaker else f" · +{weaker:,} weaker" if weaker < quick.WEAKER_SHOWN
                else f" · +{weaker:,} closest weaker")
        # The selection before the notes on the list: a long title is cut at its end, and what a
        # bulk r, a or s is about to change must stay in sight.
        results.border_title = (f"{shown:,} / {total:,}{unread}" + (f" · {picked:,} selected" if picked else "")
                                + f"{more}{sort}")

    def triaged_mask(self) -> np.ndarray:
        """The library's triaged_mask, taken once per change to the annotations, not on every
        keystroke."""
        if self._triaged is None or len(self._triaged) != len(self.library):
            self._triaged = self.library.stats.triaged_mask()
        return self._triaged

    def show_header(self, note: str = "") -> None:
        lib = self.library
        lab = any(anns for name, anns in lib.member_marks.items() if name != lib.member) or bool(lib.assignments)
        name = f"{lib.name} · as {lib.member}" if lab else lib.name  # (in a lab's library: who you are)
        triaged = int(np.count_nonzero(self.triaged_mask()))  # (kept as triage keys come: no scan of every mark per key)
        self.header.show(name, triaged, len(lib), "; ".join(filter(None, [note or self.standing, self.screening, self.lab_sync])))
