"""The header: library name and triage progress with a bar."""

from __future__ import annotations

from rich.markup import escape
from textual.widgets import Static


class TriageHeader(Static):
    DEFAULT_CSS = """
    TriageHeader { height: 1; background: $panel; color: $text; padding: 0 1; }
    """
    _shown: str | None = None

    def show(self, library_name: str, triaged: int, total: int, note: str = "") -> None:
        width = 20
        filled = round(width * triaged / total) if total else 0
        bar = "█" * filled + "░" * (width - filled)
        extra = f"  [dim]{escape(note)}[/dim]" if note else ""
        markup = (f"[b]papersift[/b] · {escape(library_name)}   [green]{bar}[/green] "
                  f"{triaged:,} / {total:,} triaged{extra}")
        if markup != self._shown:  # an update lays the screen out again: not on every keystroke
            self._shown = markup
            self.update(markup)
