"""The team screen (w): each member's share, progress through it, stars given and agreement with
the others — what ``papersift team`` prints, for a lab triaging one library together. A member is
picked in the list: enter shows their share in the main list, m the papers they marked."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from store import Library
from store.wording import counted

from ..keymap import binding, key_label
from ..team_view import team_lines
from ..widgets.footer import Footer
from .page import PickingPage


class TeamScreen(PickingPage[str]):
    """Dismisses with the search that shows the picked member's papers (None when closed)."""

    # (before the list's own enter, which the footer does not show: so that it offers this one)
    BINDINGS = [binding("team.open", "Show the member's share", label="Share", priority=True),
                binding("team.marks", "Show the papers the member marked", label="Marks"),
                binding("team.close", "Close team"),
                binding("team.down", "Next member", show=False),
                binding("team.up", "Previous member", show=False)]
    DEFAULT_CSS = """
    TeamScreen { align: center middle; }
    TeamScreen > Vertical { width: 95%; height: 95%; border: thick $accent; background: $surface; padding: 0 1; }
    TeamScreen OptionList, TeamScreen OptionList:focus { height: auto; max-height: 1fr; border: none; padding: 0;
                                                         text-wrap: nowrap; text-overflow: ellipsis; }
    TeamScreen Static { width: 1fr; }
    TeamScreen #team-help { margin-top: 1; }
    """

    def __init__(self, library: Library) -> None:
        super().__init__()
        self.library = library
        self.shares: dict[str, int] = {}  # each listed member's assigned papers

    def compose(self) -> ComposeResult:
        lib = self.library
        lib.refresh()  # (members triaging the same folder: their latest marks)
        assigned = len(lib.assignments)
        rows = lib.team.progress()
        self.shares = {row.member: row.assigned for row in rows}
        header, lines = team_lines(lib, rows, self.app.size.width - 8)
        with Vertical():
            keys = (f"{key_label(self.app, 'team.open')} shows a member's share · {key_label(self.app, 'team.marks')} "
                    f"the papers they marked · " if rows else "")
            yield Label(f"[b]Team[/b] — {counted(len(rows), 'member')}, {assigned:,} of {counted(len(lib), 'paper')} "
                        f"assigned   [dim]{keys}{key_label(self.app, 'team.close')} closes[/dim]")
            yield Static(header, id="team-header")
            yield OptionList(*(Option(line, id=row.member) for row, line in zip(rows, lines)), id="team-table")
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

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        self.set_focus(options)
        if options.option_count:
            you = next((i for i in range(options.option_count)
                        if options.get_option_at_index(i).id == self.library.member), 0)
            options.highlighted = you

    def _picked(self) -> str | None:
        options = self.query_one(OptionList)
        if options.highlighted is None or not options.option_count:
            return None
        return options.get_option_at_index(options.highlighted).id

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_open()

    def action_open(self) -> None:
        member = self._picked()
        if member is not None:  # (no member listed: nothing to show)
            self.dismiss(f"assigned:{member}" if self.shares.get(member) else f"by:{member}")

    def action_marks(self) -> None:
        member = self._picked()
        if member is not None:
            self.dismiss(f"by:{member}")
