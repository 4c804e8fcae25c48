"""The help screen, generated from the live keymap (so user overrides show)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.markup import escape
from rich.table import Table
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.keys import format_key
from textual.widgets import Static

from ..keymap import REGISTRY, default_keymap
from ..widgets.footer import Footer
from .page import ScrollingPage, page_bindings

if TYPE_CHECKING:
    from ..host import KeymapHost

CONTEXT_NAMES = {"app": "Anywhere", "main": "Triage (list and reader)", "list": "Results list",
                 "search": "Search box", "reader": "Reader", "tags": "Tag panel", "note": "Note editor",
                 "confirm": "Questions", "help": "Help", "export": "Export dialog", "import": "Import dialog",
                 "fetch": "Fetch dialog", "dashboard": "Dashboard", "team": "Team screen",
                 "topics": "Topic browser"}


# The search box's syntax (store.search.query), shown under the keys: the app's only other place for it
# is the search box's placeholder, cut at most widths.
SEARCH_SYNTAX = (
    ("words", "any order, typos forgiven, prefixes while typing; tags and notes count too"),
    ('rlhf OR dpo  diffusion OR "flow matching"', "either (OR in capitals; the other words still count)"),
    ('"exact phrase"', "in the title, keywords, abstract or note (a hyphen reads as a space)"),
    ("status:unread", "also to-read, read, skipped (a prefix will do: status:to)"),
    ("tag:rl  -tag:maybe", "with / without a tag"),
    ("star:>=2", "also star:3, star:<2"),
    ("author:peyre", "a word of an author's name, case and accents ignored; -author: excludes"),
    ("venue:neurips  year:>=2024", "where and when (a dump's header line, or the input's fields); -venue: excludes"),
    ('kw:bandit  kw:"federated learning"', "part of a keyword or area the input gave (OpenReview, arXiv, BibTeX...); -kw: excludes"),
    ("file:day2  -file:day1", "read from a file whose name holds the text (a duplicate across files: in each)"),
    ("topic:7", "a topic from the topic browser"),
    ("id:3f2a  3f2a9c01d4e7", "papers by id or id prefix; whole ids (from an export, or I) need no id:"),
    ("similar:ID  rec:stars  rec:TAG", "more like a paper; the triage queue (from every mark); like a tag's papers"),
    ("by:ana  star-by:ana:>=2", "a lab's library: what a member triaged, starred (--as NAME says who you are)"),
    ("status-by:ana:to-read  tag-by:ana:rl  note-by:ana", "a member's own status, tags, notes (bare: any)"),
    ("team-star:>=3  split:", "every member's stars summed; starred by one member, skipped by another"),
    ("assigned:ana  -assigned:", "a member's share (papersift assign); assigned to no one"),
    ("new:  batch:3  batch:>=2", "the newest import's papers; an import by its number (papersift fetch, import)"),
    ("added:>=2026-12-01  updated:", "arrived since a date (added:2026-12: that month); a newer arXiv version came"),
)


def syntax_table() -> Table:
    """The search syntax, one row per form."""
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column("form", style="bold cyan", no_wrap=True)
    table.add_column("meaning")
    table.add_row("[b]Search syntax[/b]", "")
    for form, meaning in SEARCH_SYNTAX:
        table.add_row(escape(form), meaning)
    return table


def keys_table(keymap: dict[str, str]) -> Table:
    """Action, keys and action id for every binding, by context, in keymap.toml's order."""
    # The screens the app loads when first opened register their bindings as they load: all of
    # them, so the help lists their keys before they were ever opened.
    from . import confirm, dashboard, export, import_dialog, note, team, topics  # noqa: F401
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("keys", style="bold cyan", no_wrap=True)
    table.add_column("action")
    table.add_column("id (for keymap.toml)", style="dim")
    last_ctx = None
    contexts = list(CONTEXT_NAMES)
    shipped = list(default_keymap())  # keymap.toml's order: search, read, to-read, skip ... not a-z by id

    def place(action_id: str) -> tuple[int, int, str]:
        ctx = action_id.split(".")[0]
        return (contexts.index(ctx) if ctx in contexts else 99,
                shipped.index(action_id) if action_id in shipped else 999, action_id)

    for action_id in sorted(REGISTRY, key=place):
        ctx = action_id.split(".")[0]
        if ctx != last_ctx:
            table.add_row(f"[b]{escape(CONTEXT_NAMES.get(ctx, ctx))}[/b]", "", "")
            if ctx == "app":  # (Textual's own key, which the footer shows too: not in keymap.toml)
                table.add_row(escape(format_key(App.COMMAND_PALETTE_BINDING)),
                              "Commands: every action, and the command line's, by name", "(Textual's palette)")
            last_ctx = ctx
        keys = ", ".join(format_key(k) for k in keymap.get(action_id, "").split(",") if k)
        table.add_row(escape(keys), escape(REGISTRY[action_id].description), action_id)
    return table


class HelpScreen(ScrollingPage):
    BINDINGS = page_bindings("help", "Close help")
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90%; max-width: 100; height: 90%; border: thick $accent; background: $surface; padding: 0 1; }
    HelpScreen #search-syntax { margin-top: 1; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(keys_table(cast("KeymapHost", self.app).current_keymap()))
            yield Static(syntax_table(), id="search-syntax")
        yield Footer()  # this dialog's keys, over the main screen's
