"""The help screen, generated from the live keymap (so user overrides show)."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table
from textual.containers import VerticalScroll
from textual.keys import format_key
from textual.screen import ModalScreen
from textual.widgets import Static

from ..keymap import REGISTRY, binding

CONTEXT_NAMES = {"app": "Anywhere", "main": "Triage (list and reader)", "list": "Results list",
                 "search": "Search box", "reader": "Reader", "tags": "Tag panel", "note": "Note editor",
                 "confirm": "Questions", "help": "Help", "export": "Export dialog", "dashboard": "Dashboard",
                 "topics": "Topic browser"}


def keys_table(keymap: dict[str, str]) -> Table:
    """Action, keys and action id for every binding, by context."""
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("keys", style="bold cyan", no_wrap=True)
    table.add_column("action")
    table.add_column("id (for keymap.toml)", style="dim")
    last_ctx = None
    for action_id in sorted(REGISTRY, key=lambda a: (list(CONTEXT_NAMES).index(a.split(".")[0])
                                                     if a.split(".")[0] in CONTEXT_NAMES else 99, a)):
        ctx = action_id.split(".")[0]
        if ctx != last_ctx:
            table.add_row(f"[b]{escape(CONTEXT_NAMES.get(ctx, ctx))}[/b]", "", "")
            last_ctx = ctx
        keys = ", ".join(format_key(k) for k in keymap.get(action_id, "").split(",") if k)
        table.add_row(escape(keys), escape(REGISTRY[action_id].description), action_id)
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [binding("help.close", "Close help")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90%; max-width: 100; height: 90%; border: thick $accent; background: $surface; padding: 0 1; }
    """

    def compose(self):
        with VerticalScroll():
            yield Static(keys_table(self.app.current_keymap()))

    def action_close(self) -> None:
        self.dismiss(None)
