"""The note editor: multi-line, saved on ctrl+s; escape asks before discarding changes."""

from __future__ import annotations

from rich.markup import escape
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from ..keymap import binding, key_label
from ..widgets.footer import Footer
from .confirm import ConfirmScreen


class NoteScreen(ModalScreen[str | None]):
    """Dismisses with the new note text, or None when cancelled."""

    BINDINGS = [binding("note.save", "Save note"), binding("note.cancel", "Cancel")]
    DEFAULT_CSS = """
    NoteScreen { align: center middle; }
    NoteScreen > Vertical { width: 90%; max-width: 100; height: 70%; border: thick $accent; background: $surface; }
    NoteScreen TextArea { height: 1fr; }
    """

    def __init__(self, title: str, note: str) -> None:
        super().__init__()
        self.title_text = title
        self.original = note

    def compose(self):
        with Vertical():
            yield Label(f"[b]Note[/b] — {escape(self.title_text)}   [dim]{key_label(self.app, 'note.save')} save · "
                        f"{key_label(self.app, 'note.cancel')} cancel[/dim]")
            yield TextArea(self.original, id="note-text", soft_wrap=True, show_line_numbers=False)
        yield Footer()  # this dialog's keys, over the main screen's

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        if self.query_one(TextArea).text == self.original:
            self.dismiss(None)
            return

        def decided(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(ConfirmScreen("Discard your changes to this note?"), decided)
