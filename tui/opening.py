"""What the app opens on, and the header's note about it: papers arrived since the last visit
("312 new since your last visit (batch:>7)"), or a lab member's share ("ana's share
(assigned:ana)"). Pure functions of the library and the visit's counts."""

from __future__ import annotations

from store import Library


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
