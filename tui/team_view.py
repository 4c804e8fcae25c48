"""The team table (who has which share, how far along, stars given, agreement), in Rich: what
``papersift team`` prints and the team screen shows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from store.safe_text import display_safe

if TYPE_CHECKING:
    from store import Library
    from store.library.team import MemberProgress

BAR = 12  # cells of a progress bar
NAME = 16  # cells of a member's name in the table (a longer one ends in "…")


def progress_bar(done: int, total: int) -> Text:
    """``████░░░░`` for done of total (green done, dim the rest)."""
    filled = round(BAR * done / total) if total else 0
    return Text.assemble(("█" * filled, "green"), ("░" * (BAR - filled), "dim"))


def team_table(library: Library, rows: list[MemberProgress] | None = None) -> Table:
    """One row per member: their share (triaged of assigned, with a bar), papers they triaged in
    all, papers starred (and the stars given on them: "2 (6★)"), agreement. Fits 80 columns: a long name is cut."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    for name, justify in (("member", "left"), ("share", "right"), ("", "left"), ("triaged", "right"),
                          ("starred", "right"), ("agree", "right")):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for row in library.team.progress() if rows is None else rows:
        you = row.member == library.member
        member = display_safe(row.member, keep_newlines=False)  # (a name is checked on load; never raw to a terminal)
        name = member if len(member) <= NAME else member[:NAME - 1] + "…"
        share = f"{row.triaged_assigned:,}/{row.assigned:,}" if row.assigned else "—"
        agree = f"{row.agreement:.0%} of {row.shared:,}" if row.agreement is not None else "—"
        table.add_row(Text(name + (" (you)" if you else ""), style="bold" if you else ""), share,
                      progress_bar(row.triaged_assigned, row.assigned) if row.assigned else Text(""),
                      f"{row.triaged:,}", f"{row.starred:,} ({row.stars:,}★)" if row.stars else "0", agree)
    return table




def team_lines(library: Library, rows: list[MemberProgress], width: int) -> tuple[Text, list[Text]]:
    """:func:`team_table` cut into its header line and one line per member (in ``rows``' order),
    its columns aligned as the table lays them out at ``width``: the team screen's list."""
    from rich.console import Console

    console = Console(width=max(width, 40), color_system="truecolor", legacy_windows=False)
    lines = console.render_lines(team_table(library, rows), console.options, pad=False)
    texts = []
    for line in lines:
        text = Text()
        for seg in line:
            if not seg.control:
                text.append(seg.text, seg.style)
        texts.append(text)
    return texts[0], texts[1:1 + len(rows)]
