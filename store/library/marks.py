"""The triage marks a person makes: status, stars, tags and notes. Each change goes through the
Library's one durable write (``LibraryCore.change``: journaled, one undo entry, a backup before a bulk
change); the Library offers these as its own methods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from store.annotations.backups import backup_file
from store.errors import PapersiftError
from store.choices import MAX_STAR, STATUSES
from store.records import Annotation
from store.tags import normalize_tag, note_problem, tag_problem

if TYPE_CHECKING:
    from store.library.cores import MarksCore


class Marks:
    """set_status(), set_star(), bump_star(), add_tags(), remove_tags(), set_note(), rename_tag() and
    merge_tags() of a :class:`~store.library.Library`."""

    def __init__(self, core: MarksCore) -> None:
        self._core = core

    def set_status(self, paper_ids: Iterable[str], status: str) -> int:
        if status not in STATUSES:
            raise PapersiftError(f"unknown status {status!r}; use one of: {', '.join(STATUSES)}")

        def fn(a: Annotation) -> None:
            a.status = status
        return self._core.change(paper_ids, fn, "status", f"status {status}")

    def set_star(self, paper_ids: Iterable[str], star: int) -> int:
        if not 0 <= star <= MAX_STAR:
            raise PapersiftError(f"star must be 0 to {MAX_STAR}, not {star}")

        def fn(a: Annotation) -> None:
            a.star = star
        return self._core.change(paper_ids, fn, "star", f"star {star}")

    def bump_star(self, paper_ids: Iterable[str], delta: int) -> int:
        def fn(a: Annotation) -> None:
            a.star = max(0, min(MAX_STAR, a.star + delta))
        return self._core.change(paper_ids, fn, "star", "star +1" if delta > 0 else "star -1")

    def add_tags(self, paper_ids: Iterable[str], tags: Iterable[str]) -> int:
        clean = list(dict.fromkeys(t for t in (normalize_tag(t) for t in tags) if t))
        for t in clean or [""]:
            if problem := tag_problem(t):
                raise PapersiftError(problem)

        def fn(a: Annotation) -> None:
            for t in clean:
                if t not in a.tags:
                    a.tags.append(t)
        return self._core.change(paper_ids, fn, "tag", f"tag +{', +'.join(clean)}")

    def remove_tags(self, paper_ids: Iterable[str], tags: Iterable[str]) -> int:
        clean = {normalize_tag(t) for t in tags}

        def fn(a: Annotation) -> None:
            a.tags = [t for t in a.tags if t not in clean]
        return self._core.change(paper_ids, fn, "untag", f"tag -{', -'.join(sorted(clean))}")

    def set_note(self, paper_id: str, note: str, was: str | None = None) -> int:
        """Set a paper's note; ``was``: the note the text was written over (the app's editor), and
        when the note stored is another by now (the command line, or another papersift, saved one
        meanwhile), nothing is changed.

        Raises:
            PapersiftError: the note is no text papersift keeps, or it changed since ``was``.
        """
        note = note.replace("\x00", "").rstrip()  # (a NUL is no text: no file papersift reads may hold one)
        if problem := note_problem(note):
            raise PapersiftError(problem)

        def fn(a: Annotation) -> None:
            if was is not None and a.note != was:  # (read again under the lock: the newest on disk)
                raise PapersiftError("not saved: this note was changed elsewhere while you edited it (the "
                                     "command line or another papersift saved the one shown now)")
            a.note = note
        return self._core.change([paper_id], fn, "note", "note")

    def rename_tag(self, old: str, new: str) -> int:
        """Rename (or, if ``new`` exists, merge into it) a tag across the library: one change, one undo."""
        return self.merge_tags([old], new, action="rename-tag")

    def merge_tags(self, sources: Iterable[str], target: str, action: str = "merge-tags") -> int:
        """Make every paper tagged with any of ``sources`` tagged ``target`` instead, across the
        library, as one change (one history entry: one undo reverts it all), after a backup."""
        new_t = normalize_tag(target)
        if not new_t:
            raise PapersiftError("the new tag name is empty")
        if problem := tag_problem(new_t):
            raise PapersiftError(problem)
        olds = [t for t in dict.fromkeys(normalize_tag(s) for s in sources) if t and t != new_t]
        if not olds:
            raise PapersiftError(f"nothing to merge: name tags other than #{new_t}")
        pids = [pid for pid, a in self._core.annotations.items() if any(t in a.tags for t in olds)]
        if not pids:
            raise PapersiftError(f"no paper has the tag {' or '.join(repr(t) for t in olds)}")
        self._core.store.compact()  # a backup of annotations.json must hold the journal too
        backup_file(self._core.annotations_path, action)

        def fn(a: Annotation) -> None:
            a.tags = list(dict.fromkeys(new_t if t in olds else t for t in a.tags))
        verb = "rename tag" if action == "rename-tag" else "merge tags"
        return self._core.change(pids, fn, action, f"{verb} {', '.join(olds)} -> {new_t}")
