"""What kind of title a paper shows: its own, one derived from its abstract, or, where no rule
found a phrase that reads as a title, an excerpt: the first words of what the abstract says the
paper does ("In this paper, we address this question in the canonical case of …"), shown marked
as such, never as if it were a title.

An excerpt is told by its words alone (a derived title that opens as a sentence does), so the
corpus file needs no field for it and a library whose titles an older papersift derived shows its
sentence-like titles marked too. Pure string work: every view (the list, the reader, the CLI) and
every export reads it here.
"""

from __future__ import annotations

import re

from store.choices import DERIVED, EXCERPT
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from store.models import Paper

# How a sentence opens, never a title: the paper's own voice ("We", "In this paper, we") or a
# background opener ("It is widely agreed that", "While X", "Recent advances in").
EXCERPT_START = re.compile(
    r"(?:We|Our|In this (?:position )?(?:paper|work|study|article)|This (?:position )?(?:paper|work|study|article)|"
    r"Here,? we|It (?:is|has been|was)|There (?:is|are|has|have)|While|Whereas|When|Despite|Although|Though|"
    r"Given|As|With the|In recent|Recent(?:ly)?|Existing|Current(?:ly)?|However|Since|Because)\b")
EXCERPT_NOTE = EXCERPT


def is_excerpt(title: str, derived: bool) -> bool:
    """Whether a paper's title is an excerpt (see the module docstring): a derived title only."""
    return derived and EXCERPT_START.match(title) is not None


def title_mark(paper: "Paper") -> str:
    """What an export says of a derived title: derived from the abstract, or an excerpt of it."""
    return EXCERPT_NOTE if is_excerpt(paper.title, paper.derived_title) else DERIVED


def shown_title(title: str, derived: bool) -> str:
    """The title as a row shows it: an excerpt in quotes, ending in "…" (it is the start of a
    sentence); any other title as it is."""
    return f"“{title.rstrip(' .,;:')}…”" if is_excerpt(title, derived) else title
