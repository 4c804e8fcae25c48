"""A command line's query, checked whole: ``list``, ``search`` and every ``--query`` (export,
remove, assign) refuse a filter not applied as written, in one place."""

from __future__ import annotations

from store.errors import PapersiftError

# What a value-less filter's error offers as an example (a query's filters: docs/search.md).
_EXAMPLES = {"tag:": "rl", "status:": "to-read", "is:": "read", "star:": ">=2", "stars:": ">=2", "year:": "2024",
             "author:": "hinton", "venue:": "icml", "kw:": "diffusion", "keyword:": "diffusion",
             "keywords:": "diffusion", "file:": "day1", "id:": "PAPERID", "topic:": "3", "batch:": "1",
             "added:": ">=2026-12-01", "similar:": "PAPERID", "by:": "ana", "star-by:": "ana", "status-by:": "ana:to-read",
             "tag-by:": "ana:rl", "note-by:": "ana", "team-star:": ">=2"}


def whole_query(typed: str) -> str:
    """A command line's query, whole (never still being typed), checked: a filter not applied as
    written (``status:reed``, ``tag: rl`` for tag:rl) refuses it, never "all papers" or the
    papers holding the word "rl", for ``list``, ``search`` and every ``--query``.

    Raises:
        PapersiftError: each problem, the query named.
    """
    from store.search.query import parse_query, valueless_filters
    problems = parse_query(typed).errors + [f"{key} has no value (e.g. {key}{_EXAMPLES.get(key, 'VALUE')})"
                                            for key in valueless_filters(typed)]
    if problems:
        raise PapersiftError(f"the query {typed!r}: " + "; ".join(problems))
    return typed
