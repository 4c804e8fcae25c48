"""The team screen (w): each member's share, progress through it, stars given and agreement with
the others — what ``papersift team`` prints, for a lab triaging one library together."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from store import Library
from store.wording import counted

from ..keymap import binding, key_label
from ..team_view import team_table
from ..widgets.footer import Footer


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
        rows = lib.lab.progress()
        with VerticalScroll():
            yield Label(f"[b]Team[/b] — {counted(len(rows), 'member')}, {assigned:,} of {counted(len(lib), 'paper')} "
                        f"assigned   [dim]{key_label(self.app, 'team.close')} closes[/dim]")
            yield Static(team_table(lib, rows), id="team-table")
            yield Static(Text("Share: papers triaged (given a status) of those assigned. Triaged: in all, as "
                              "the header counts. Agree: of the papers two members both judged, the share "
                              "where both kept it (a star, read or to read) or both skipped it. In the list: by:NAME, "
                              "star-by:NAME:>=2, status-by:NAME:to-read, tag-by:NAME:TAG, note-by:NAME, team-star:>=3, "
                              "split: (starred by one, skipped by another), "
                              "assigned:NAME.", style="dim"), id="team-help")
            if not assigned:
                yield Static(Text("Nothing is assigned yet: papersift assign --to ana,ben,chen splits the "
                                  "papers no one has triaged among members, by topic.", style="dim"))
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
