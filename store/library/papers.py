"""The Library's papers changing: imports, titles derived anew, and near-duplicate merges reported
or split. Each takes the library lock, backs the corpus up, saves it atomically and rebuilds the
search index after, as one job; the Library offers them as its own methods.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from store.safe_text import file_name_text
from store import locations, versions
from store.annotations.backups import backup_file
from store.annotations.storage import now_iso
from store.corpus import Corpus
from store.errors import PapersiftError
from store.models import Paper
from store.records import Annotation, RecordKey
from store.library.removal import annotated_sample, replace_untouched_sample
from store.wording import counted

if TYPE_CHECKING:
    from store.formats.raw_record import RawRecord
    from store.ingest.summary import ImportSummary
    from store.library.core import LibraryCore

REREAD_FROM = 50_000  # papers held as objects after an import's save: read back from the file past this
SPLIT_ACTION = "split"
RETITLE_ACTION = "retitle"
SPLIT_OF = "split_of"  # the undo entry of a split names the paper its variants leave


@dataclass(frozen=True)
class Retitled:
    """What ``retitle`` did (or, with ``dry_run``, would do)."""

    changes: list[tuple[str, str, str]]  # (paper id, old title, new title), in library order
    derived: int  # papers whose title was derived from the abstract
    backup: Path | None  # the corpus as it was before (None when nothing changed, or a dry run)
    dry_run: bool = False
    current: bool = False  # the titles were this version's already, and left as they are (no ``again``)


class PaperChanges:
    """import_paths(), retitle(), dedup_report() and split() of a :class:`~store.library.Library`."""

    def __init__(self, core: LibraryCore) -> None:
        self._core = core

    # ------------------------------------------------------------------ import
    def import_paths(self, paths: Iterable[Path | str], progress: Callable[[int, int], None] | None = None,
                     replace_sample: bool = False) -> ImportSummary:
        """Import files and folders. Every file is parsed before anything is written.

        Args:
            replace_sample: a person's import (the CLI's, the app's): into a library that holds only
                the untouched bundled sample, it replaces the sample (see store.library.removal).

        Raises:
            InputError: a file is unreadable or malformed (the library is untouched).
        """
        # Imported here: parsing and dedup cost a `papersift search` process ~30 ms of imports.
        from store.ingest.importer import merge_records, prepare_merge
        from store.ingest.summary import ImportSummary
        from store.parallel import map_big_blocks, release_free_memory
        from store.ingest.parse import expand_paths
        from store.ingest.batches import next_batch, record_batch
        from store.ingest import dedup_cache

        map_big_blocks()
        passed: list[Path] = []
        files = expand_paths(list(paths), passed)
        summary = ImportSummary(files=len(files), passed_over=[file_name_text(p.name) for p in passed])
        records = _parsed(files, summary)
        # The lock is held only to merge and save: the per-abstract work before it and the index
        # build after it need none, and an app on this library waits for the lock to save a key
        # press (2,610 papers into 29,100: held 0.4 s instead of 6.7 s).
        self._core.refresh_corpus()  # read without the lock: writers replace the file atomically
        if replace_sample and not all(locations.bundled_seeds_dir() in f.resolve().parents for f in files):
            self._replace_sample(summary)
        dedup_path = self._core.folder / locations.DEDUP_CACHE_FILE
        cached = dedup_cache.load(dedup_path, self._core.corpus.generation, len(self._core.corpus))
        prep = prepare_merge(self._core.corpus, records, cached)
        with self._core.lock.held():
            self._core.refresh_corpus()
            # Merge in place (no copy of a 30k-paper corpus); if anything fails
            # before the atomic save, reload the untouched file.
            generation = self._core.corpus.generation  # what the cached index was made from
            try:
                first_new, summary.batch = len(self._core.corpus), next_batch(self._core.corpus)
                new_norms = merge_records(self._core.corpus, records, summary, progress, prep)
                after = prep.after or (cached if cached is not None and len(cached) == len(self._core.corpus)
                                       and not summary.revised else None)
                if record_batch(self._core.corpus, first_new, summary.batch, now_iso(), summary.revised,
                                [file_name_text(f.name) for f in files], chosen=replace_sample) is None:
                    summary.batch = 0
                del records, prep  # the raw records (every abstract again) are not needed past here
                release_free_memory()
                if summary.changed or not self._core.corpus_path.exists():
                    if self._core.corpus_path.exists():
                        backup_file(self._core.corpus_path, "import", replaced_whole=True)
                    self._core.corpus.save(self._core.corpus_path)
                    if after is not None:
                        dedup_cache.save(dedup_path, self._core.corpus.generation, after)
                    del after, cached  # (their name counts' words, kept, would pin the heap's pages)
                    if self._core.corpus.papers.in_memory() >= REREAD_FROM:
                        # Read back as the app reads it (papers parsed when asked): the index
                        # build then holds no Paper (~670 MB at 300k papers).
                        self._core.corpus = Corpus.load(self._core.corpus_path)
                        release_free_memory(collect=False)
            except BaseException:
                self._core.corpus = Corpus.load(self._core.corpus_path) if self._core.corpus_path.exists() else Corpus()
                self._core.invalidate()
                raise
        self._index_after_import(summary, generation, first_new, new_norms)
        return summary

    def _replace_sample(self, summary: ImportSummary) -> None:
        """Your first import: your papers replace the untouched bundled sample (an annotated one is
        kept, and counted)."""
        summary.replaced_sample = replace_untouched_sample(self._core)
        summary.sample_kept = 0 if summary.replaced_sample else annotated_sample(self._core)

    def _index_after_import(self, summary: ImportSummary, generation: str, first_new: int,
                            new_norms: dict[str, str]) -> None:
        """The search index (and the acronyms the papers define) brought up to the imported corpus:
        the cached index of ``generation`` updated with the papers from ``first_new`` on."""
        from store.search import acronyms

        if summary.changed or self._core.index_cache.loaded is None:
            self._core.invalidate()
            self._core.index_cache.update(generation, first_new, new_norms)
        if summary.changed:  # (the acronyms the papers define: the new papers' added, for the first search)
            acronyms.kept_after_import(self._core.folder / locations.ACRONYMS_FILE, self._core.corpus.papers,
                                       self._core.corpus.generation, generation, first_new, bool(summary.revised))

    @property
    def titles_outdated(self) -> bool:
        """True when the library's derived titles were made by older rules than this version's
        (``papersift retitle`` brings them up to date); never for a library whose titles were all read."""
        corpus = self._core.corpus
        return len(corpus) > 0 and corpus.title_rules < versions.TITLE_RULES and corpus.has_derived_titles()

    def retitle(self, dry_run: bool = False, again: bool = False) -> Retitled:
        """Derive again the titles of the papers that came without one, with this version's rules.

        A library keeps the titles it was imported with; when :mod:`store.titles.derive` improves,
        this brings them up to date. Titles read from a file (JSON, CSV, BibTeX) are never touched.
        The corpus is backed up and saved atomically, as an import does; ``dry_run`` says what would
        change and writes nothing.

        Titles already made by this version's rules stay as they are unless ``again``: a derived
        title weighs a name against the library (how many papers use it), so a grown library can
        name a paper differently, for better or worse, and a title a person has seen should not
        move on its own.
        """
        with self._core.lock.held():
            self._core.refresh_corpus()
            changes: list[tuple[str, str, str]] = []
            backup = None
            try:
                papers = [p for p in self._core.corpus if p.derived_title]
                if not again and self._core.corpus.title_rules >= versions.TITLE_RULES:
                    return Retitled([], len(papers), None, dry_run=dry_run, current=True)
                titles = _derived_again(self._core.corpus, papers)
                changes = [(p.id, p.title, t) for p, t in zip(papers, titles) if t != p.title]
                outdated = self._core.corpus.title_rules < versions.TITLE_RULES
                if dry_run:
                    return Retitled(changes, len(papers), None, dry_run=True)
                for paper, title in zip(papers, titles):
                    paper.title = title
                rules = self._core.corpus.title_rules
                self._core.corpus.title_rules = versions.TITLE_RULES
                if changes:
                    backup = backup_file(self._core.corpus_path, RETITLE_ACTION, replaced_whole=True)
                    # One undo step, as every change is: its titles, before and after (store.library.papers.redo_titles).
                    self._core.store.apply({}, RETITLE_ACTION, f"retitle {counted(len(changes), 'paper')}",
                                           extra={"titles": [list(c) for c in changes],
                                                  "rules": [rules, versions.TITLE_RULES]},
                                           member=self._core.member, owner=self._core.owner)
                if changes or outdated:  # (unchanged titles: the header alone says they are current)
                    self._core.corpus.save(self._core.corpus_path)
            except BaseException:
                self._core.corpus = Corpus.load(self._core.corpus_path)  # the file is untouched: drop the edits
                self._core.invalidate()
                raise
        if changes or outdated:  # after the lock, as an import does (a save is a new generation,
            self._core.invalidate()  # which the index cache on disk must record)
            self._core.index_cache.build()
        return Retitled(changes, len(papers), backup)

    # ------------------------------------------------------------------- dedup
    def near_duplicate_finder(self) -> Callable[[str], str | None]:
        """A lookup of this library's papers by text: a normalized abstract -> the id of the paper it
        is a near duplicate of (None: none is). Built once (MinHash over every abstract); a merge of
        a colleague's annotations uses it for papers whose id differs."""
        from store.ingest.dedup import NearDupIndex
        from store.text import normalize

        corpus = self._core.corpus
        near = NearDupIndex()
        near.add_many([p.id for p in corpus], [normalize(p.abstract) for p in corpus])

        def find(normalized: str) -> str | None:
            match, _ = near.query(normalized)
            return match.key if match else None
        return find

    def dedup_report(self) -> list[dict[str, Any]]:
        """Every near-duplicate merge: paper, merged variant, similarity, sources."""
        return [
            {"paper": p.id, "title": p.title, "variant": v.id, "similarity": v.similarity,
             "sources": [s.to_record() for s in v.sources]}
            for p in self._core.corpus for v in p.variants
        ]

    def split(self, key: str) -> list[Paper]:
        """Split a wrong near-duplicate merge; split-off papers inherit the annotation.

        Two files change, in an order a kill cannot turn into a loss: the split papers'
        annotations first, in one undo entry that names the split (``split_of``), then the
        corpus. A kill between them leaves annotations under the variants' ids, which the
        doctor finds from that entry and completes by splitting the corpus as asked.
        """
        from store.ingest.split import split_variants

        with self._core.lock.held():
            self._core.refresh()
            self._core.refresh_corpus()
            work = copy.deepcopy(self._core.corpus)
            parent = work.resolve(key)
            new = split_variants(work, key if key in {v.id for v in parent.variants} else parent.id)
            if not new:
                raise PapersiftError(f"{parent.id} has no near-duplicate variants to split")
            ann = self._core.annotations.get(parent.id)
            clones: dict[RecordKey, Annotation] = {}
            if ann:
                stamp = now_iso()
                for paper in new:
                    clone = copy.deepcopy(ann)
                    clone.paper_id = paper.id
                    clone.stamp_changes(Annotation(paper.id), stamp)
                    clone.updated = stamp
                    clone.created = clone.created or stamp
                    clones[clone.key] = clone
                self._core.store.apply(clones, SPLIT_ACTION, f"copy annotation to {counted(len(clones), 'split paper')}",
                                      extra={SPLIT_OF: parent.id}, member=self._core.member, owner=self._core.owner)
            backup_file(self._core.corpus_path, SPLIT_ACTION, replaced_whole=True)
            work.save(self._core.corpus_path)
            self._core.corpus = work
            self._core.invalidate()
            self._core.install(clones)
        self._core.index_cache.build()  # after the lock, as an import does
        return new


def redo_titles(core: LibraryCore, entry: dict[str, Any], undone: bool) -> None:
    """The corpus side of undoing (``undone``) or redoing a retitle: each changed paper's title
    back as it was, or as the retitle made it, and the title rules the corpus records with them.
    A paper no longer in the library is passed over; the caller holds the library lock."""
    changes = entry.get("titles") or []
    if entry.get("action") != RETITLE_ACTION or not changes:
        return
    rules = entry.get("rules") or []
    for row in changes:
        if not (isinstance(row, list) and len(row) == 3 and all(isinstance(x, str) for x in row)):
            continue
        pid, old, new = row
        idx = core.corpus.index_of(pid)
        if idx is not None:
            core.corpus.papers[idx].title = old if undone else new
    if len(rules) == 2 and all(isinstance(r, int) for r in rules):
        core.corpus.title_rules = rules[0] if undone else rules[1]
    core.corpus.save(core.corpus_path)
    core.invalidate()


def _parsed(files: list[Path], summary: ImportSummary) -> list[RawRecord]:
    """Every record of the files, in order (a file's entries without an abstract, and those skipped,
    counted into ``summary``)."""
    from store.ingest.parse import parse_file

    records: list[RawRecord] = []
    for f in files:
        parsed = parse_file(f)
        summary.skipped += getattr(parsed, "skipped", 0)
        summary.no_abstract += [f"{file_name_text(f.name)}: {key}" for key in getattr(parsed, "no_abstract", ())]
        records.extend(parsed)
        del parsed  # (the last file's list would keep every record it read past the merge)
    return records


def _derived_again(corpus: Corpus, papers: list[Paper]) -> list[str]:
    """The titles of ``papers`` (those without a title of their own) derived with this version's
    rules, settled against the library's (store.titles.library)."""
    from store.titles.library import field_names, name_tokens, settle
    from store.titles.derive import derive_titles

    fields = field_names(name_tokens(p.abstract) for p in corpus) if papers else frozenset()
    read = [p.title for p in corpus if not p.derived_title]
    pairs = [derive_titles(p.abstract) for p in papers]
    return settle([p.abstract for p in papers], [t for t, _ in pairs], fields, read,
                  nameless=[alternative for _, alternative in pairs])
