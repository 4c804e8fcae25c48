"""Copy text: the system clipboard via pyperclip, else the terminal's (OSC 52).

Over SSH or on a headless machine pyperclip finds no clipboard program; the
terminal can still take the text through an OSC 52 escape, which Textual's
``App.copy_to_clipboard`` sends. The caller is told which one was used. What is copied is
pasted into terminals and documents: no escape sequence or control character is ever copied.
"""

from __future__ import annotations

import os
from typing import Any

from textual.app import App

from store.safe_text import export_safe


def copy_text(app: App[Any], text: str) -> str:
    """Copy ``text`` (as a text export writes it: no escape sequence or control character, a
    paper's or a note's, reaches a paste); returns "system clipboard" or "terminal clipboard (OSC 52)"."""
    text = export_safe(text)
    if not os.environ.get("PAPERSIFT_NO_SYSTEM_CLIPBOARD"):
        try:
            import pyperclip
            pyperclip.copy(text)
            return "system clipboard"
        except Exception:  # pyperclip.PyperclipException and platform errors
            pass
    app.copy_to_clipboard(text)
    return "terminal clipboard (OSC 52)"
