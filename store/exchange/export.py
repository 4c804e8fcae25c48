"""Export annotated papers in any format of :mod:`store.formats` (Markdown, CSV, JSON, JSON Lines,
BibTeX, Org, CSL-JSON, RIS), and the query an export's filters make.

Every writer takes (Paper, Annotation) pairs and returns the file's text; exporting never changes
the library. One gate here, for every format, keeps what could run in a terminal out of the file.
The JSON/JSONL schema is what ``import-annotations`` reads back (:mod:`store.formats.jsonl`).
"""

from __future__ import annotations

from typing import Callable, Iterable

from store import formats
from store.choices import MARKDOWN_GROUPS, STATUSES  # noqa: F401 (MARKDOWN_GROUPS re-exported)
from store.formats import EXPORTS as FORMATS
from store.formats.records import Pair, escape_unsafe_json, without_sequences
from store.safe_text import export_safe

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
        pairs = [without_sequences(pair) for pair in pairs]
    if fmt == "md":
        out = write(pairs, group_by=group_by, abstracts=abstracts, library_name=library_name)
    else:
        out = write(pairs)
    if progress:
        progress(len(pairs), len(pairs))
    # One gate for every format: nothing a dump, a colleague or a tag carried may run in the terminal
    # of whoever opens the file. JSON keeps every character, written as an escape.
    return escape_unsafe_json(out) if fmt in JSON_FORMATS else export_safe(out)


def selection_query(status: Iterable[str] = (), tags: Iterable[str] = (), star: int | None = None,
                    query: str = "") -> str:
    """The search query for export filters (same syntax as the app)."""
    parts = [query] if query else []
    parts += [f"status:{s}" for s in status if s in STATUSES]
    parts += [f"tag:{t}" for t in tags]
    if star:
        parts.append(f"star:>={star}")
    return " ".join(parts)
