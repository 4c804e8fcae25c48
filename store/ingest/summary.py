"""What an import did, as the CLI and the app say it: counts of what was read, new, merged, already
known, completed and revised, and the batch it became (store.ingest.importer fills it in)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from store.wording import counted, first_few


@dataclass
class ImportSummary:
    """What an import did."""

    files: int = 0
    read: int = 0
    new: int = 0
    exact: int = 0
    near: int = 0
    known: int = 0
    updated: int = 0
    added: Counter[str] = field(default_factory=Counter)  # what the updated papers got: "title" -> papers, ...
    skipped: int = 0
    no_abstract: list[str] = field(default_factory=list)  # "file: key" of references without an abstract
    revised: int = 0  # arXiv papers whose text a newer version replaced (store.ingest.batches)
    batch: int = 0  # the batch this import is (its papers' ``batch``); 0 when it changed nothing
    replaced_sample: int = 0  # the bundled sample's papers this first import replaced
    sample_kept: int = 0  # sample papers kept because some are annotated (the line says how to remove them)
    passed_over: list[str] = field(default_factory=list)  # files of a folder that are not dumps (READMEs, exports)
    sources_added: int = 0  # papers the library held, read from a file they were not known in (saved: file: finds them)

    @property
    def changed(self) -> bool:
        return bool(self.new or self.exact or self.near or self.updated or self.revised or self.sources_added)

    def line(self) -> str:
        return (f"read {counted(self.read, 'abstract')} from {counted(self.files, 'file')}: {self.new:,} new, "
                f"{counted(self.exact, 'exact duplicate')}, {counted(self.near, 'near-duplicate')} merged, "
                f"{self.known:,} already in the library"
                + (f" ({self.sources_added:,} of them now listed under {'this file' if self.files == 1 else 'these files'} "
                   "too: file: finds them)" if self.sources_added else "")
                + (f", {self._added()} added to {counted(self.updated, 'paper')} already there" if self.updated else "")
                + (f", {counted(self.revised, 'paper')} updated to a newer version (marks kept)" if self.revised else "")
                + (f"; passed over {first_few(self.passed_over)} (READMEs, licences and papersift's own "
                   "exports are not dumps)" if self.passed_over else "")
                + (f"; passed over {counted(self.skipped, 'paragraph')} too short to be an abstract"
                   if self.skipped else "")
                + (f"; passed over {counted(len(self.no_abstract), 'entry', 'entries')} without an abstract "
                   f"({first_few(self.no_abstract)})"
                   if self.no_abstract else "")
                + (f"; replaced the {counted(self.replaced_sample, 'bundled sample paper')} "
                   "(your library now holds your papers)" if self.replaced_sample else "")
                + (f"; the {counted(self.sample_kept, 'bundled sample paper')} stay, as some are annotated "
                   "(`papersift remove --sample` removes them)" if self.sample_kept else "")
                + (f"; saved as batch {self.batch} (search new: to list it; an import is no undo step: remove its "
                   f"papers to take it back)" if self.batch else ""))

    def _added(self) -> str:
        """What known papers got, commonest first: "2 titles, 2 author lists, 1 venue"."""
        return ", ".join(counted(n, *ADDED_NAMES[what]) for what, n in self.added.most_common())

    def to_dict(self) -> dict[str, object]:
        return {**{k: getattr(self, k) for k in ("files", "read", "new", "exact", "near", "known", "updated", "skipped",
                                                 "replaced_sample", "revised", "batch", "sources_added")},
                "added": dict(self.added), "no_abstract": list(self.no_abstract), "passed_over": list(self.passed_over)}


# What a known paper may get from a re-import (see _enrich), as the import summary names it.
ADDED_NAMES = {"title": ("title",), "authors": ("author list",), "url": ("link",), "external_id": ("source id",),
               "keywords": ("keyword list",), "area": ("area",), "venue": ("venue or year", "venues or years")}
