"""The header: library name and triage progress with a bar."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from store.safe_text import display_safe


class TriageHeader(Static):
    """One line: what does not fit ends in "…" (wrapped, it stopped mid-note as if it were whole)."""

    DEFAULT_CSS = """
    TriageHeader { height: 1; background: $panel; color: $text; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """
    _shown: str | None = None

    def show(self, library_name: str, triaged: int, total: int, note: str = "") -> None:
        width = 20
        filled = round(width * triaged / total) if total else 0
        bar = "█" * filled + "░" * (width - filled)
        # Built as Content, never markup: the library's name and the note are the user's words.
        line = Content.assemble(("papersift", "bold"), f" · {display_safe(library_name, False)}   ", (bar, "green"),
                             f" {triaged:,} / {total:,} triaged",
                             (f"  {display_safe(note, False)}" if note else "", "dim"))
        if line.plain != self._shown:  # an update lays the screen out again: not on every keystroke
            self._shown = line.plain
            self.update(line)
