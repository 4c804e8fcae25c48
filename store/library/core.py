"""The state every part of a library works on, and the few operations they share.

:class:`LibraryCore` owns the folder's paths, its cross-process lock, the corpus, the
annotations and the search index. The parts (:mod:`.marks`, :mod:`.papers`, :mod:`.search`,
:mod:`.discovery`, :mod:`.stats`, :mod:`.removal`) take a core, never the
:class:`~store.library.Library`, so no part can reach back into the facade: a part's changes go
through :meth:`change`, :meth:`install` and :meth:`invalidate`, which are public here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Mapping


from store import locations
from store.files.atomic import PRIVATE_FOLDER, refuse_links
from store.annotations.backups import backup_file
from store.annotations.database import FROM_LAB, AnnotationStore
from store.annotations.storage import now_iso
from store.annotations.drafts import NoteDrafts
from store.files.lock import LibraryLock
from store.corpus import Corpus, file_signature, migrate_v1
from store.errors import PapersiftError, UnknownPaperError
from store.library.member_views import MemberViews, read_views, unreadable_notice, with_changes
from store.library.index_file import IndexCache
from store.models import Paper
from store.records import Annotation, Assignment, Record, RecordKey
from store.search.index import SearchIndex
from store.safe_text import shown_unsafe
from store.team.members import checked_member, default_member, member_problem
from store.wording import counted

BULK_BACKUP_THRESHOLD = 10  # a change to this many papers at once is preceded by a backup


def _usable_folder(folder: Path | str) -> Path:
    """A library's folder, made (0700) where it is missing; refused when it is a file, cannot be
    made, or holds other files and no library; its library files checked for links."""
    path = Path(folder).expanduser()
    locations.refuse_a_folder_of_other_files(path)
    try:
        path.mkdir(mode=PRIVATE_FOLDER, parents=True, exist_ok=True)
    except OSError as exc:  # a file of that name, a read-only place, ...
        why = "a file, not a folder" if path.is_file() else exc.strerror or str(exc)
        raise PapersiftError(f"{path}: cannot be used as a library folder ({why})") from None
    refuse_links(path, locations.LIBRARY_DATA)  # a shared folder's links never lead us out
    return path


def _migrate_v1(folder: Path, corpus_path: Path, lock: LibraryLock) -> None:
    """A version-1 library (corpus.json) is converted once, with the old file kept in backups/."""
    old = folder / locations.CORPUS_FILE_V1
    if old.exists() and not corpus_path.exists():
        with lock.held():
            if old.exists() and not corpus_path.exists():
                backup_file(old, "migrate-v1")
                migrate_v1(old, corpus_path)
                old.unlink()


class LibraryCore:
    """A library folder's state: ``corpus.jsonl``, ``annotations.json``, the index cache, backups.

    Every cache a part builds from this state is registered with :meth:`on_invalidate`, and
    :meth:`invalidate` clears them all when the corpus changes."""

    def __init__(self, folder: Path | str, member: str | None = None) -> None:
        self.member = checked_member(member) if member else default_member()  # who is triaging
        self.folder = _usable_folder(folder)
        self.corpus_path = self.folder / locations.CORPUS_FILE
        self.annotations_path = self.folder / locations.ANNOTATIONS_FILE
        self.index_path = self.folder / locations.INDEX_CACHE_FILE
        self.similar_path = self.folder / locations.SIMILAR_CACHE_FILE
        self.drafts = NoteDrafts(self.folder / locations.DRAFTS_FILE)
        self.lock = LibraryLock(self.folder / locations.LOCK_FILE)
        _migrate_v1(self.folder, self.corpus_path, self.lock)
        self.corpus = Corpus.load(self.corpus_path) if self.corpus_path.exists() else Corpus()
        self.store = AnnotationStore(self.annotations_path)
        # Each replaced whole on every change, never edited in place (see install): worker threads read them.
        self.annotations: dict[str, Annotation] = {}  # the member's own marks, by paper id
        self.member_marks: dict[str, dict[str, Annotation]] = {}  # every member's marks (this member's included)
        # Every member's cleared records (back at their defaults, keeping when each mark was taken
        # back: Annotation.is_cleared), by member and paper id: no marks, so no view above holds
        # them; a change or a merge starts from them, and a team file carries them.
        self.cleared: dict[str, dict[str, Annotation]] = {}
        self.assignments: dict[str, str] = {}  # paper id -> the member it is assigned to
        self.owner = self.member  # whose records carry no member name (see AnnotationStore.owner)
        self.notices: list[str] = []  # what the library put right on its own (a step a kill cut short), said once
        self._unusable_said = 0  # records under unusable member names already said
        self._unreadable_said = (0, 0)  # records with fields of the wrong kind, and values that are none, said
        self._unsound_said = 0  # undo entries papersift cannot read, said
        self.assignment_stamps: dict[str, dict[str, str]] = {}  # paper id -> its assignment's change times (kept cleared)
        # Papers per tag of this member's, replaced (never edited) as changes come; None: counted when asked.
        self._tag_counts: Counter[str] | None = None
        self.reload_annotations()
        # The papers whose records this Library changed (its changes, undos and redos): what the
        # app's "this session" line counts, never another process's changes read meanwhile.
        self.touched: set[str] = set()
        self.removed: set[str] = set()  # the papers this Library took out (an undo puts them back)
        self.restored: set[str] = set()  # papers an earlier removal took out that an undo here brought back
        self.index_cache = IndexCache(self.index_path, lambda: self.corpus)
        self._invalidators: list[Callable[[], None]] = []

    @property
    def name(self) -> str:
        return self.folder.name

    def __len__(self) -> int:
        return len(self.corpus)

    @property
    def index(self) -> SearchIndex:
        """The search index (read from its cache file or built on first use: :class:`IndexCache`)."""
        index = self.index_cache.loaded  # (held: no call out of this file on a keystroke's path)
        return index if index is not None else self.index_cache.get()

    # ------------------------------------------------------------- annotations
    def paper(self, key: str) -> Paper:
        """The paper for an id, alias or unambiguous id prefix, or an arXiv id (2412.10003, any version)."""
        try:
            return self.corpus.resolve(key)
        except UnknownPaperError:
            from store.ingest.batches import ArxivIndex, arxiv_key
            found = arxiv_key(key)
            row = ArxivIndex(self.corpus).rows.get(found[0]) if found else None
            if row is None:
                raise
            return self.corpus.papers[row]

    def annotation(self, paper_id: str) -> Annotation:
        """The member's annotation of the paper (a fresh default one if it has none)."""
        return self.member_annotation(paper_id, self.member)

    def member_annotation(self, paper_id: str, member: str) -> Annotation:
        """A member's annotation of the paper: a copy, or a fresh default one, carrying the member
        by name."""
        ann = self.member_marks.get(member, {}).get(paper_id) or self.cleared.get(member, {}).get(paper_id)
        return ann.copy() if ann else Annotation(paper_id, member=member)

    def assignment(self, paper_id: str) -> Assignment:
        """The paper's assignment record (a fresh one, to no one, when it has none)."""
        return Assignment(paper_id, self.assignments.get(paper_id, ""), dict(self.assignment_stamps.get(paper_id, {})))

    def member_records(self, member: str) -> dict[str, Annotation]:
        """A member's records by paper id: their marks and their cleared records (what a team file
        carries, so that taking a mark back reaches the lead as a change)."""
        return {**self.cleared.get(member, {}), **self.member_marks.get(member, {})}

    def reload_annotations(self) -> None:
        """Read every member's records into the views: ``annotations`` (this member's), ``team``
        and ``assignments``."""
        stored_owner = self.store.owner()
        self.owner = stored_owner if stored_owner and member_problem(stored_owner) is None else self.member
        views, unusable = read_views(self.store.load_records(self.owner).values())
        if unusable and len(unusable) != self._unusable_said:
            self._unusable_said = len(unusable)
            self.notices.append(f"{self.annotations_path.name}: {counted(len(unusable), 'record')} under a member "
                                f"name papersift cannot use (e.g. '{shown_unsafe(unusable[0][:40])}'): kept, not "
                                "shown (`papersift doctor` lists them)")
        self._say_unreadable()
        self._tag_counts = None  # (counted again when next asked)
        self._set_views(views)

    def _set_views(self, views: MemberViews) -> None:
        self.member_marks, self.assignments, self.assignment_stamps, self.cleared = (views.team, views.assignments, views.stamps,
                                                                        views.cleared)
        self.annotations = views.team.get(self.member, {})

    def _say_unreadable(self) -> None:
        """Records a forged or damaged file holds that papersift cannot read in full: said once
        (again when their number changes; see store.library.member_views.unreadable_notice)."""
        found = self.store.unreadable
        said = (found["fields"], found["record"])
        if said != self._unreadable_said and any(said):
            self._unreadable_said = said
            self.notices.append(unreadable_notice(found, self.annotations_path.name))

    def corpus_changed_on_disk(self) -> bool:
        """Whether the corpus file was written since this library read or wrote it (a stat)."""
        return file_signature(self.corpus_path) != self.corpus.file_signature

    def refresh_corpus(self) -> bool:
        """Pick up papers another process wrote (an import, a split): True when the corpus was
        reloaded. A stat when nothing changed, so the app can ask every few seconds."""
        read = self.read_changed_corpus()
        return read is not None and self.install_corpus(*read)

    def read_changed_corpus(self) -> tuple[Corpus, tuple[int, int, int] | None] | None:
        """The corpus file another process wrote, read but not installed, and the signature of
        the file this library had then (None when it has not changed). It touches nothing of
        this library, so the app runs it in a thread: at 300k papers the read takes ~1.3 s. No
        lock is needed: writers replace the file atomically, and a file replaced during the
        read shows as changed on the next look.

        Raises:
            CorruptFileError: the file on disk cannot be read.
        """
        if not self.corpus_changed_on_disk() or not self.corpus_path.exists():
            return None
        had = self.corpus.file_signature
        return Corpus.load(self.corpus_path), had

    def install_corpus(self, corpus: Corpus, had: tuple[int, int, int] | None) -> bool:
        """Use a corpus from :meth:`read_changed_corpus`: True when its papers differ. Refused
        (False) when this library wrote or read its corpus since that read began (``had`` is no
        longer its file's signature): the next look reads the file again."""
        if had != self.corpus.file_signature:
            return False
        if corpus.generation == self.corpus.generation:
            self.corpus.file_signature = corpus.file_signature
            return False
        self.corpus = corpus
        self.invalidate()
        return True

    def refresh(self) -> bool:
        """Pick up annotations another process wrote. Returns True when something changed."""
        if self.store.changed_on_disk():
            self.reload_annotations()
            return True
        return False

    def take_problems(self) -> list[str]:
        """Damage found in the annotations journal since last asked (each kept in backups/ and
        said once), and a step a kill cut short that opening the library finished: for the CLI's
        stderr and the app's notices."""
        unsound = sum(self.store.unsound.values())  # (counted by the last history, undo or redo)
        if unsound and unsound != self._unsound_said:
            self._unsound_said = unsound
            self.notices.append(f"{self.annotations_path.name}: papersift cannot read "
                                f"{counted(unsound, 'undo entry', 'undo entries')} (not the kind it writes): passed "
                                "over by history, undo and redo, and left as found (`papersift doctor` counts them)")
        notices, self.notices = self.notices, []
        return notices + self.store.storage.take_reports() + self.drafts.take_reports()

    def change(self, paper_ids: Iterable[str], fn: Callable[[Annotation], None], action: str, label: str,
               member: str | None = None) -> int:
        """Apply ``fn`` to each paper's annotation (this member's, or ``member``'s) and store the
        changed ones durably, as one undo step of this member's. Returns how many papers changed."""
        with self.lock.held():
            self.refresh()
            stamp = now_iso()
            changes: dict[RecordKey, Record] = {}
            for pid in dict.fromkeys(paper_ids):
                old = self.member_annotation(pid, member or self.member)
                new = old.copy()
                fn(new)
                if new != old:
                    new.stamp_changes(old, stamp)
                    new.updated = stamp
                    new.created = new.created or stamp
                    changes[new.key] = new
            return self._store_changes(changes, action, label)

    def change_assignments(self, assignees: Mapping[str, str], action: str, label: str,
                           extra: dict[str, Any] | None = None) -> int:
        """Assign each paper to its member ("" takes its assignment off), in one undo step whose
        label is ``label`` as given (it says how many papers itself); ``extra`` is kept on the step
        (how the papers were split, the members' seeds). Returns how many papers changed."""
        with self.lock.held():
            self.refresh()
            stamp = now_iso()
            changes: dict[RecordKey, Record] = {}
            for pid, assignee in assignees.items():
                old = self.assignment(pid)
                if assignee != old.assignee:
                    new = Assignment(pid, assignee, dict(old.stamps))
                    new.stamp_changes(old, stamp)  # (an assignment's only time is its stamp)
                    changes[new.key] = new
            return self._store_changes(changes, action, label, counted_label=True, extra=extra)

    def _store_changes(self, changes: dict[RecordKey, Record], action: str, label: str, counted_label: bool = False,
                       extra: dict[str, Any] | None = None) -> int:
        """Store changed records durably as one undo step of this member's (with a backup first
        when they are many) and make them the library's. The step's label says on how many papers,
        unless ``counted_label``. Returns how many papers changed. (Called with the lock held.)"""
        if not changes:
            return 0
        papers = len({a.paper_id for a in changes.values()})
        if len(changes) >= BULK_BACKUP_THRESHOLD:
            self.store.compact()  # a backup of annotations.json must hold the journal too
            backup_file(self.annotations_path, f"bulk-{action}")
        self.store.apply(changes, action, label if papers == 1 or counted_label else f"{label} on {counted(papers, 'paper')}",
                         member=self.member, owner=self.owner, extra=extra)
        self.install(changes)
        return papers

    def install(self, changes: Mapping[RecordKey, Record]) -> None:
        """Make stored changes the library's annotations: new mappings, never an edit of one a
        worker thread may be reading (copy on write: a search holds one snapshot throughout)."""
        self.touched.update(a.paper_id for a in changes.values())
        counts = self._tag_counts
        if counts is not None:  # this member's tag counts, by what the changes add and take away
            counts = Counter(counts)
            for ann in changes.values():
                if isinstance(ann, Annotation) and ann.member == self.member:
                    old = self.annotations.get(ann.paper_id)
                    counts.subtract(old.tags if old else ())
                    counts.update(ann.tags)
            self._tag_counts = +counts  # (a new Counter, tags no paper holds any more left out)
        self._set_views(with_changes(MemberViews(self.member_marks, self.cleared, self.assignments, self.assignment_stamps),
                                     changes.values()))

    def replace_annotations(self, changes: Collection[Record], action: str, label: str,
                            from_lab: bool = False) -> int:
        """Store exact annotations (timestamps as given; each under the member it carries, one
        naming none the library's owner's, as a stored record names none), with a backup and one
        undo entry: this member's, or (``from_lab``: what a lab's sync brought, colleagues' marks
        among it) no member's to undo."""
        if not changes:
            return 0
        with self.lock.held():
            self.refresh()
            self.store.compact()  # a backup of annotations.json must hold the journal too
            backup_file(self.annotations_path, action)
            named = (replace(a, member=self.owner) if isinstance(a, Annotation) and not a.member else a for a in changes)
            keyed: dict[RecordKey, Record] = {a.key: a for a in named}
            self.store.apply(keyed, action, label, member=FROM_LAB if from_lab else self.member, owner=self.owner)
            self.install(keyed)
        return len(changes)

    def records_of_papers(self, paper_ids: Iterable[str]) -> dict[RecordKey, Record]:
        """Every record the papers have (each member's and the assignment), cleared: what a
        removal stores, so undo puts all of them back."""
        wanted = set(paper_ids)
        cleared: dict[RecordKey, Record] = {
            RecordKey(pid, name): Annotation(pid, member=name)
            for marks in (self.member_marks, self.cleared) for name, anns in marks.items() for pid in anns
            if pid in wanted}
        cleared.update({RecordKey.assignment(pid): Assignment(pid)
                        for pid in wanted if pid in self.assignments or pid in self.assignment_stamps})
        return cleared

    def tag_counts(self) -> Counter[str]:
        """Papers per tag (this member's): counted once, then kept as changes come (see
        :meth:`install`), since the tag panel asks after every triage key. A copy."""
        counts = self._tag_counts
        if counts is None:
            counts = self._tag_counts = Counter(t for a in self.annotations.values() for t in a.tags)
        return Counter(counts)

    # ------------------------------------------------------------------ caches
    def on_invalidate(self, clear: Callable[[], None]) -> None:
        """Register a cache of a part's to clear whenever the corpus changes."""
        self._invalidators.append(clear)

    def invalidate(self) -> None:
        """The corpus changed: drop the index and every registered cache (each rebuilt on use)."""
        self.index_cache.drop()
        for clear in self._invalidators:
            clear()
