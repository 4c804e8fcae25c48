"""The team screen (w): each member's share, progress through it, stars given and agreement with
the others — what ``papersift team`` prints, for a lab triaging one library together."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from store import Library

from ..keymap import binding, key_label
from ..widgets.footer import Footer

BAR = 20  # cells of a progress bar


def progress_bar(done: int, total: int) -> Text:
    """``████░░░░`` for done of total (green done, dim the rest)."""
    filled = round(BAR * done / total) if total else 0
    return Text.assemble(("█" * filled, "green"), ("░" * (BAR - filled), "dim"))


def team_table(library: Library) -> Table:
    """One row per member: assigned, triaged of it (with a bar), triaged in all, stars, agreement."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    for name, justify in (("member", "left"), ("share", "right"), ("progress", "left"), ("triaged", "right"),
                          ("stars given", "right"), ("agreement", "right")):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for row in library.lab.progress():
        you = " (you)" if row.member == library.member else ""
        share = f"{row.triaged_assigned:,} / {row.assigned:,}" if row.assigned else "—"
        agree = f"{row.agreement:.0%} of {row.shared:,}" if row.agreement is not None else "—"
        table.add_row(Text(row.member + you, style="bold" if you else ""), share,
                      progress_bar(row.triaged_assigned, row.assigned) if row.assigned else Text(""),
                      f"{row.triaged:,}", f"{row.stars:,} on {row.starred:,}", agree)
    return table


class TeamScreen(ModalScreen[None]):
    BINDINGS = [binding("team.close", "Close team")]
    DEFAULT_CSS = """
    TeamScreen { align: center middle; }
    TeamScreen > VerticalScroll { width: 95%; height: 95%; border: thick $accent; background: $surface; padding: 0 1; }
    TeamScreen Static { width: 1fr; margin-bottom: 1; }
    """

    def __init__(self, library: Library) -> None:
        super().__init__()
        self.library = library

    def compose(self):
        lib = self.library
        lib.refresh()  # (members triaging the same folder: their latest marks)
        assigned = len(lib.assignments)
        with VerticalScroll():
            yield Label(f"[b]Team[/b] — {len(lib.lab.members())} members, {assigned:,} of {len(lib):,} papers "
                        f"assigned   [dim]{key_label(self.app, 'team.close')} closes[/dim]")
            yield Static(team_table(lib), id="team-table")
            yield Static(Text("Agreement: of the papers two members both triaged, the share where both kept "
                              "it (a star, read or to read) or both skipped it. In the list: by:NAME, "
                              "star-by:NAME:>=2, team-star:>=3, split: (starred by one, skipped by another), "
                              "assigned:NAME.", style="dim"), id="team-help")
            if not assigned:
                yield Static(Text("Nothing is assigned yet: papersift assign --to ana,ben,chen splits the "
                                  "papers no one has triaged among members, by topic.", style="dim"))
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
