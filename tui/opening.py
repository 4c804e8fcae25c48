"""What the app opens on, and the header's note about it: papers arrived since the last visit
("312 new since your last visit (batch:>7)"), or a lab member's share ("ana's share
(assigned:ana)"), or the search the library was left with. :class:`Opening` holds the choice;
the functions are pure ones of the library and the visit's counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from store import Library

from . import limits


def share_query(library: Library, query: str, new: int, resume: bool) -> str:
    """``assigned:NAME`` when the member triaging has papers assigned and the library opens on no
    search of its own (not on papers arrived since the last visit, not back at a search, not
    ``--fresh``); "" otherwise."""
    if query or new or not resume:
        return ""
    member = library.member
    return f"assigned:{member}" if member in library.assignments.values() else ""


def standing_note(member: str, share: str, standing_for: str | None, new: int, updated: int) -> str:
    """The opening's header note. ``new``: the papers the opening list holds (its share's, or those
    arrived since ``standing_for``'s batch); ``updated``: papers a newer version replaced since."""
    if share:  # (how many: the list's title says; the header keeps room for the sync's note)
        return f"{member}'s share ({share})"
    return "; ".join([f"{new:,} new since your last visit ({standing_for})"] * bool(new)
                     + [f"{updated:,} updated to a newer version (updated:)"] * bool(updated))


@dataclass
class Opening:
    """Where the main screen opens (``query`` resumed, the cursor on ``paper``), and the header's
    note about it, kept until another list is shown."""

    library: Library
    query: str
    paper: str | None
    new: int  # papers arrived since the last visit
    seen: int  # the last batch seen then
    updated: int  # papers a newer version replaced since
    share: str  # the member's share's query, when the library opens on it
    standing_for: str | None  # the query the note speaks of
    shown: bool = False  # a list was shown since the opening (another query then drops the note)

    @classmethod
    def choose(cls, library: Library, place: tuple[str, str | None], new: int, seen: int, updated: int,
               resume: bool) -> Opening:
        """The opening for the saved ``place`` (query, paper) and the visit's counts."""
        query, paper = place
        share = share_query(library, query, new, resume)
        standing_for = f"batch:>{seen}" if new else None
        if share:
            query, paper, standing_for = share, None, share
        if paper is not None and library.corpus.index_of(paper) is None:
            paper = None  # gone since (a merge, another library at the same path)
        return cls(library, query, paper, new, seen, updated, share, standing_for)

    def note(self, new: int) -> str:
        """The header's note, with ``new`` papers in the opening's list ('' when there is none)."""
        if not (self.new or self.updated or self.share):
            return ""
        return standing_note(self.library.member, self.share, self.standing_for, new, self.updated)

    def note_after(self, query: str, found: int | None, standing: str) -> str:
        """The header's note once the list of ``query`` is shown (``standing``: the note now): gone once
        another list is shown, and counting what the opening's list holds (the imports' own count
        said how many they added; papers removed since are not in the list)."""
        standing_for = self.standing_for or ""
        if self.shown and query.strip() != standing_for:
            return ""
        if standing_for and query.strip() == standing_for and standing and found is not None:
            return self.note(found)
        return standing

    def resume(self, search: Callable[[str, str | None], None], later: Callable[[Callable[[], None]], object],
               say: Callable[[str, float], None], clear_key: str, on_a_paper: bool) -> None:
        """Run the opening's search and say where the library opened."""
        query, paper = self.query, self.paper
        if self.share:  # a lab member's own papers: they start there
            search(query, None)
            say(f"your share, {self.library.member}: the papers assigned to you · {clear_key} shows the whole "
                "library", 8)
        elif query and self.new and query == f"batch:>{self.seen}":  # papers arrived: start on them
            search(query, None)
            say(f"{self.new:,} new since your last visit · {clear_key} shows the whole library", 8)
        elif query:  # the search the library was left with; its results keep the cursor on the paper
            if len(self.library) <= limits.BIG_LIBRARY:
                search(query, paper)
            else:  # after the first paint: at 300k papers the search takes ~0.5 s
                later(lambda: search(query, paper))
            say(f"back where you left off: {query} · {clear_key} clears the search", 6)
        elif on_a_paper:
            say("back where you left off", 4)
