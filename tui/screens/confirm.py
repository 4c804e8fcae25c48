"""A yes/no question."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from ..keymap import binding, key_label
from ..widgets.footer import Footer


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [binding("confirm.yes", "Yes"), binding("confirm.no", "No")]
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 60; max-width: 100%; height: auto; border: thick $warning; background: $surface; padding: 1 2; }
    ConfirmScreen Label { width: 100%; }  /* a long question wraps instead of being cut */
    """

    def __init__(self, question: str | Text) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(self.question) if isinstance(self.question, str) else self.question)
            yes, no = key_label(self.app, "confirm.yes"), key_label(self.app, "confirm.no")
            yield Label(f"[b]{yes}[/b] yes   [b]{no}[/b] no", classes="dim")
        yield Footer()  # this dialog's keys, over the main screen's

    def action_yes(self) -> None:
        self.dismiss(True)

    def action_no(self) -> None:
        self.dismiss(False)
