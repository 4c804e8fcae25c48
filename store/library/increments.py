"""What an import changed in the papers a library already held, for the caches that are updated
rather than rebuilt (the search index: :meth:`store.library.index_file.IndexCache.update`)."""

from __future__ import annotations

from typing import Any, Iterator, Sequence, overload

from store.corpus import Corpus
from store.models import Paper
from store.paper_lines import PaperList


def index_document(paper: Paper) -> tuple[str, str]:
    """What the search index holds of a paper: (title with keywords, abstract). Keywords count as
    the title does: both say in a few words what the paper is about."""
    return _document([paper.title, paper.keywords, paper.abstract])


class IndexDocuments(Sequence[tuple[str, str]]):
    """:func:`index_document` of every paper of a corpus, read as the index build iterates and not
    kept: a corpus read from its file builds no Paper for it (at 300k papers those held ~670 MB
    beside the index's postings)."""

    KEYS = ("title", "keywords", "abstract")

    def __init__(self, papers: PaperList) -> None:
        self._papers = papers

    def __len__(self) -> int:
        return len(self._papers)

    @overload
    def __getitem__(self, i: int) -> tuple[str, str]: ...
    @overload
    def __getitem__(self, i: slice) -> list[tuple[str, str]]: ...

    def __getitem__(self, i: int | slice) -> tuple[str, str] | list[tuple[str, str]]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return _document(self._papers.fields(i, self.KEYS))

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return map(_document, self._papers.unparsed_fields(self.KEYS))


def _document(fields: list[Any]) -> tuple[str, str]:
    """:func:`index_document` of a paper's title, keywords and abstract (IndexDocuments.KEYS)."""
    title, keywords, abstract = fields
    return " ".join([title, *keywords]), abstract


def changed_rows(corpus: Corpus, n_before: int) -> list[int]:
    """The papers among the first ``n_before`` whose indexed text (title, keywords, abstract)
    differs from their line in the file the corpus was read from: a new version's text, a title
    or a cross-list's category that arrived. Only parsed papers can have changed (a change parses
    the paper first); one added since the file was read counts as changed."""
    papers = corpus.papers
    rows = []
    for i, paper in papers.parsed_items():
        if i >= n_before:
            continue
        before = papers.as_read(i)
        if before is None or index_document(before) != index_document(paper):
            rows.append(i)
    return rows
