"""The note editor: multi-line, saved on ctrl+s; escape asks before discarding changes.

Until it is saved or discarded, the text is kept as a draft (store.annotations.drafts) half a second
after each change and when the editor goes away (the app quitting with it open), so a
closed terminal or a crash loses nothing: the next time the note is opened, the draft
is offered back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from store.safe_text import display_safe, export_safe

from ..compat import SafeTextArea
from ..keymap import TypingKeys, binding, key_label
from ..widgets.footer import Footer
from .confirm import ConfirmScreen

if TYPE_CHECKING:
    from textual.timer import Timer

DRAFT_DELAY = 0.5  # seconds of no typing before the draft is written


class NoteArea(TypingKeys, SafeTextArea):
    """The note's text box: every key that types is the note's, "+" and "/" too."""


class NoteScreen(ModalScreen[str | None]):
    """Dismisses with the new note text, or None when cancelled.

    Args:
        title: the paper's title, for the header.
        note: the saved note (what escape compares against).
        draft: unsaved text from an earlier session, shown instead of the note.
        keep_draft: called with the text to keep as a draft (None: the draft is done with).
    """

    BINDINGS = [binding("note.save", "Save note"), binding("note.cancel", "Cancel")]
    DEFAULT_CSS = """
    NoteScreen { align: center middle; }
    NoteScreen > Vertical { width: 90%; max-width: 100; height: 70%; border: thick $accent; background: $surface; }
    NoteScreen TextArea { height: 1fr; }
    /* a long title is cut with an ellipsis on its own line: the keys above it stay whole */
    NoteScreen #note-title { width: 100%; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, title: str, note: str, draft: str | None = None,
                 keep_draft: Callable[[str | None], None] | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.original = note
        self.draft = draft
        self.keep_draft = keep_draft or (lambda text: None)
        self._timer: Timer | None = None
        self._text = draft if draft is not None else note  # the editor's text, as of its last change
        self._done = False  # saved or discarded: no draft to keep

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text.assemble(("Note", "bold"), "   ",
                                      (f"{key_label(self.app, 'note.save')} save · "
                                       f"{key_label(self.app, 'note.cancel')} cancel", "dim")))
            yield Label(Text(display_safe(self.title_text, False)), id="note-title")
            text = export_safe(self.draft if self.draft is not None else self.original)  # (drawn as it is)
            yield NoteArea(text, id="note-text", soft_wrap=True, show_line_numbers=False)
        yield Footer()  # this dialog's keys, over the main screen's

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._text = event.text_area.text
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DRAFT_DELAY, self._keep)

    def _keep(self) -> None:
        if not self._done:
            self.keep_draft(self._text if self._text != self.original else None)

    def on_unmount(self) -> None:
        if not self._done:  # the app is closing with the editor open
            self._keep()

    def _finish(self, result: str | None) -> None:
        """Saved (the draft goes once the note is stored) or discarded (the draft goes now)."""
        self._done = True
        if self._timer is not None:
            self._timer.stop()
        if result is None:
            self.keep_draft(None)
        elif result != self.original:
            self.keep_draft(result)  # the very last keystrokes too, should storing the note fail
        self.dismiss(result)

    def action_save(self) -> None:
        self._finish(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        if self.query_one(TextArea).text == self.original:
            self._finish(None)
            return

        def decided(discard: bool | None) -> None:
            if discard:
                self._finish(None)

        self.app.push_screen(ConfirmScreen("Discard your changes to this note?"), decided)
