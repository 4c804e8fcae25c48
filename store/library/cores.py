"""What each part of the Library uses of it: a narrow, typed core per part.

A part (``store/library/marks.py``, ``search.py``, ...) is given the library's core
(:class:`~store.library.core.LibraryCore`) but typed as one of these Protocols, which name only
what the part reads or calls. A reader sees at a glance what a part depends on, a part cannot
reach for more without saying so here, and mypy checks that the core meets each of them where
the Library builds its parts. Members are read-only properties unless a part sets them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Protocol

if TYPE_CHECKING:
    from collections import Counter
    from pathlib import Path

    from store.annotations.database import AnnotationStore
    from store.corpus import Corpus
    from store.library.index_file import IndexCache
    from store.models import Paper
    from store.records import Annotation
    from store.search.index import SearchIndex


class MarksCore(Protocol):
    """What the marks use: the one durable write, this member's marks (the papers of a tag being
    renamed) and the annotations file (backed up before a rename)."""

    @property
    def annotations(self) -> Mapping[str, Annotation]: ...
    @property
    def annotations_path(self) -> Path: ...
    @property
    def store(self) -> AnnotationStore: ...

    def change(self, paper_ids: Iterable[str], fn: Callable[[Annotation], None], action: str, label: str,
               member: str | None = None) -> int: ...


class ScreeningCore(Protocol):
    """What the triage queue reads: the corpus and this member's marks."""

    @property
    def corpus(self) -> Corpus: ...
    @property
    def annotations(self) -> Mapping[str, Annotation]: ...


class StatsCore(ScreeningCore, Protocol):
    """What the counts read: the queue's, and the marks' tags."""

    def tag_counts(self) -> Counter[str]: ...


class DiscoveryCore(ScreeningCore, Protocol):
    """What more like this, recommendations and topics use: the queue's, and the index, the model's
    file and a paper by any of its names."""

    @property
    def index(self) -> SearchIndex: ...
    @property
    def similar_path(self) -> Path: ...

    def paper(self, key: str) -> Paper: ...


class _Members(Protocol):
    """Who is triaging, every member's marks and the assignments; the corpus and its index."""

    @property
    def member(self) -> str: ...
    @property
    def member_marks(self) -> dict[str, dict[str, Annotation]]: ...
    @property
    def assignments(self) -> dict[str, str]: ...
    @property
    def corpus(self) -> Corpus: ...
    @property
    def index(self) -> SearchIndex: ...


class TeamCore(_Members, Protocol):
    """What the team part uses: the members' (the index for a split's term vectors), the undo
    history (an assignment's seeds and how it split) and the one durable write of assignments."""

    @property
    def store(self) -> AnnotationStore: ...

    def change_assignments(self, assignees: Mapping[str, str], action: str, label: str,
                           extra: dict[str, Any] | None = None) -> int: ...


class FiltersCore(_Members, Protocol):
    """What the filters read: the members' (the team filters), and the folder (a phrase's texts
    kept beside the index)."""

    @property
    def folder(self) -> Path: ...


class SearchCore(FiltersCore, Protocol):
    """What the search uses: its filters', and this member's marks (tag and note words), the index
    as loaded (a keystroke never waits for it) and a paper by any of its names (similar:)."""

    @property
    def annotations(self) -> Mapping[str, Annotation]: ...
    @property
    def index_cache(self) -> IndexCache: ...

    def paper(self, key: str) -> Paper: ...
