"""Export annotated papers in any format of :mod:`store.formats` (Markdown, CSV, JSON, JSON Lines,
BibTeX, Org, CSL-JSON, RIS), and the query an export's filters make.

Every writer takes (Paper, Annotation) pairs and returns the file's text; exporting never changes
the library. One gate here, for every format, keeps what could run in a terminal out of the file.
The JSON/JSONL schema is what ``import-annotations`` reads back (:mod:`store.formats.jsonl`).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Callable, Iterable

from store import formats
from store.choices import MARKDOWN_GROUPS, STATUSES  # noqa: F401 (MARKDOWN_GROUPS re-exported)
from store.formats import EXPORTS as FORMATS
from store.formats.records import Pair, escape_unsafe_json
from store.safe_text import ESCAPE_SEQUENCE, export_safe

EXTENSIONS = formats.EXTENSIONS

JSON_FORMATS = formats.JSON_FORMATS


def export_text(pairs: list[Pair], fmt: str, *, group_by: str = "status", abstracts: bool = False,
                library_name: str = "", progress: Callable[[int, int], None] | None = None) -> str:
    """Render papers in one of ``FORMATS``."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of: {', '.join(FORMATS)}")
    if progress:
        progress(0, len(pairs))
    write = formats.load(formats.BY_NAME[fmt].writer)  # (the table's: store.formats)
    if fmt not in JSON_FORMATS:
        pairs = [_without_sequences(pair) for pair in pairs]
    if fmt == "md":
        out = write(pairs, group_by=group_by, abstracts=abstracts, library_name=library_name)
    else:
        out = write(pairs)
    if progress:
        progress(len(pairs), len(pairs))
    # One gate for every format: nothing a dump, a colleague or a tag carried may run in the terminal
    # of whoever opens the file. JSON keeps every character, written as an escape.
    return escape_unsafe_json(out) if fmt in JSON_FORMATS else export_safe(out)


def _without_sequences(pair: Pair) -> Pair:
    """A paper and annotation without terminal escape sequences, whole, before a text format
    writes them: the gate after the writer removes what is left of one, but a writer's escaping
    (Markdown's ``\\[``) splits a sequence first, so its tail was written ("[31mRed"), and a
    BibTeX key was made of it. JSON keeps every character (written as an escape)."""
    paper, ann = pair
    texts = (paper.title, paper.abstract, paper.venue, paper.area, *paper.authors, *paper.keywords)
    if any("\x1b" in t for t in texts):
        gone = ESCAPE_SEQUENCE.sub
        paper = replace(paper, title=gone("", paper.title), abstract=gone("", paper.abstract),
                        venue=gone("", paper.venue), area=gone("", paper.area),
                        authors=[gone("", a) for a in paper.authors], keywords=[gone("", k) for k in paper.keywords])
    if "\x1b" in ann.note:
        ann = copy.copy(ann)
        ann.note = ESCAPE_SEQUENCE.sub("", ann.note)
    return paper, ann


def selection_query(status: Iterable[str] = (), tags: Iterable[str] = (), star: int | None = None,
                    query: str = "") -> str:
    """The search query for export filters (same syntax as the app)."""
    parts = [query] if query else []
    parts += [f"status:{s}" for s in status if s in STATUSES]
    parts += [f"tag:{t}" for t in tags]
    if star:
        parts.append(f"star:>={star}")
    return " ".join(parts)
