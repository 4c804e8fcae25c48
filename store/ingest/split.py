"""Undoing a near-duplicate merge: a merged variant becomes a paper of its own again.

The paper it becomes has the variant's own title, authors, link, venue and keywords, as its
record gave them (store.models.Variant.fields; a variant merged before they were kept gets a
title derived from its text). What the variant had filled in the paper it joined, and the paper
still holds unchanged, is taken back from it; another variant of the paper that holds the same
field then fills it, as it would have had the two never met.
"""

from __future__ import annotations

from typing import Any

from store.corpus import Corpus
from store.ingest.importer import enrich
from store.models import Paper, Variant
from store.titles.derive import derive_title
from store.titles.library import settle


def split_variants(corpus: Corpus, key: str) -> list[Paper]:
    """Undo a near-duplicate merge: variants become papers of their own.

    Args:
        key: a paper id (split all its variants off) or a variant id.

    Returns:
        The new papers. The pairs are recorded so a re-import does not merge them again.
    """
    idx = corpus.index_of(key)
    if idx is None:
        return []
    parent = corpus.papers[idx]
    chosen = [v for v in parent.variants if v.id == key] or (list(parent.variants) if key == parent.id else [])
    new = []
    for v in chosen:
        parent.variants.remove(v)
        parent.aliases.remove(v.id)
        parent.sources = [s for s in parent.sources if not any(s == vs for vs in v.sources)]
        paper = _as_paper(v, corpus)
        _take_back(parent, v, corpus)
        corpus.separate.add(frozenset((parent.id, v.id)))
        corpus.add(paper)
        new.append(paper)
    for kept in parent.variants:  # what a variant split off took back, another that holds it gives
        kept.gave += [name for name in enrich(parent, kept.fields) if name not in kept.gave]
    corpus.rebuild_lookup()
    return new


def _derived(abstract: str, corpus: Corpus) -> str:
    return settle([abstract], [derive_title(abstract)], frozenset(), [p.title for p in corpus])[0]


def _as_paper(v: Variant, corpus: Corpus) -> Paper:
    own: dict[str, Any] = v.fields
    return Paper(id=v.id, abstract=v.abstract, title=own.get("title") or _derived(v.abstract, corpus),
                 derived_title=not own.get("title"), authors=list(own.get("authors", [])), sources=list(v.sources),
                 external_id=own.get("external_id", ""), url=own.get("url", ""), venue=own.get("venue", ""),
                 year=own.get("year", ""), keywords=list(own.get("keywords", [])), area=own.get("area", ""))


def _take_back(parent: Paper, v: Variant, corpus: Corpus) -> None:
    """The fields ``v`` filled in ``parent`` at its merge, cleared where the paper still holds
    them as ``v`` gave them (a value changed since is the paper's own)."""
    own = v.fields
    for name in v.gave:
        if name == "title":
            if not parent.derived_title and parent.title == own.get("title"):
                parent.title, parent.derived_title = _derived(parent.abstract, corpus), True
        elif name == "venue":
            if (parent.venue, parent.year) == (own.get("venue", ""), own.get("year", "")):
                parent.venue = parent.year = ""
        elif getattr(parent, name) == own.get(name):
            setattr(parent, name, [] if isinstance(getattr(parent, name), list) else "")
