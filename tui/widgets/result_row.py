"""One row of the results list as text: the selection mark, the status glyph, the stars, the
title (italic when derived, dim once read or skipped, the search's words highlighted, cut with
"…" to leave the tags room) and the tags, with the member a paper is assigned to."""

from __future__ import annotations

from typing import Callable

from rich.style import Style
from rich.text import Text

from store.choices import STATUS_GLYPH as GLYPH
from store.models import Paper
from store.records import Annotation
from store.safe_text import shown_label
from store.titles.kinds import shown_title

from ..render import highlight_words, plain_title

_PLAIN, _BOLD = Style(), Style(bold=True)


def row_text(paper: Paper, ann: Annotation | None, selected: bool, assignee: str | None, matched: set[str],
             width: int, style: Callable[[str], Style]) -> Text:
    """The row of ``paper`` (``ann``: the member's annotation, if any; ``assignee``: the member it is
    assigned to, when another) at ``width`` cells, in the list's component ``style``s."""
    status = ann.status if ann else "unread"
    star = ann.star if ann else 0
    tags = ann.tags if ann else []
    mark = "●" if selected else " "
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    text.append(mark, style=style("match") if mark != " " else _PLAIN)
    text.append(GLYPH[status] + " ", style=style("dim") if status != "to-read" else _BOLD)
    text.append(("★" * star).ljust(3) + " " if star else "", style=style("star"))
    tag_text = Text(no_wrap=True, end="")
    if assignee:
        tag_text.append(f" →{assignee}", style=style("dim"))
    for tag in tags:
        tag_text.append(" ")
        tag_text.append(f"#{shown_label(tag)}", style=style("tag"))
    title = shown_title(plain_title(paper.title), paper.derived_title)  # (an excerpt: quoted, "…")
    room = max(width - text.cell_len - min(tag_text.cell_len, width // 3), 10)
    title_text = Text(title, style=Style(italic=paper.derived_title, dim=status in ("read", "skipped")), end="")
    if matched:
        highlight_words(title_text, matched, style("match"))
    if title_text.cell_len > room:
        title_text.truncate(room - 1)
        title_text.append("…")
    text.append_text(title_text)
    text.append_text(tag_text)
    if text.cell_len > width:
        text.truncate(width)
    return text
