"""What an import changed in the papers a library already held, for the caches that are updated
rather than rebuilt (the search index: :meth:`LibraryCore.update_index`)."""

from __future__ import annotations

from store.corpus import Corpus
from store.models import Paper


def index_document(paper: Paper) -> tuple[str, str]:
    """What the search index holds of a paper: (title with keywords, abstract). Keywords count as
    the title does: both say in a few words what the paper is about."""
    return " ".join([paper.title, *paper.keywords]), paper.abstract


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
