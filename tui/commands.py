"""Command palette provider: every action a key does, by its description, and the command line's
commands that make sense in the app.

The key actions come from the bindings (:data:`tui.keymap.REGISTRY`, made from keymap.toml), so
a new key is offered the day it is added; the few that are not are named in
:data:`NOT_IN_PALETTE` and :data:`IN_DIALOGS` with the reason (``tests/tui/test_commands.py``
checks that the three cover keymap.toml).
"""

from __future__ import annotations

import datetime
import shlex
from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from .keymap import REGISTRY, keys_shown

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode

    from .host import PaletteHost

# Actions of these contexts are offered (the app's, the main screen's, its list's, its reader's and
# its search box's keys); app.quit too, so the palette's own list matches the keys.
PALETTE_CONTEXTS = ("app", "main", "list", "reader", "search")
# Keys of the main screen that are no command to look up, and why.
NOT_IN_PALETTE = {
    "list.cursor_down": "moving one row is what the key is for",
    "list.cursor_up": "moving one row is what the key is for",
    "list.page_down": "moving one page is what the key is for",
    "list.page_up": "moving one page is what the key is for",
    "reader.scroll_down": "scrolling a line is what the key is for",
    "reader.scroll_up": "scrolling a line is what the key is for",
    "reader.back": "the palette closes back in the reader; esc there is the way out",
    "search.done": "the palette closes back in the box; enter or esc there is the way out",
}
# The keys of a dialog work in that dialog: the palette offers the action that opens it.
IN_DIALOGS = {
    "tags": "main.tag", "note": "main.note", "confirm": "main.remove", "help": "app.help",
    "import": "main.import_files", "export": "app.export", "dashboard": "app.dashboard",
    "team": "app.team", "topics": "main.topics", "fetch": "main.fetch",
}


def _command_line(app: App[Any]) -> str:
    """``papersift --library DIR``: the start of a command on this app's library."""
    folder = cast("PaletteHost", app).library.folder
    return f"papersift --library {shlex.quote(str(folder))}"


def _recommendations(app: App[Any]) -> None:
    screen = cast("PaletteHost", app).main_screen
    screen.search_box.value = "rec:stars"  # what `papersift recommend` lists; the box's watcher searches


def _archive(app: App[Any]) -> None:
    month_ago = (datetime.date.today() - datetime.timedelta(days=30)).isoformat()
    app.notify(f"archiving runs from the command line, with a date: {_command_line(app)} archive "
               f"--skipped-before {month_ago} --dry-run lists the papers you skipped before it that no "
               f"member starred, means to read or has assigned; without --dry-run they move to archive.jsonl (one undo step)", timeout=20)


def _sync(app: App[Any]) -> None:
    screen = cast("PaletteHost", app).main_screen
    if screen.lab_sync.run():
        app.notify("syncing with the lab's repository…", timeout=4)
    elif screen.lab_sync.enabled():
        app.notify("a sync is running already", timeout=4)
    else:
        app.notify(f"this library has no lab repository yet: {_command_line(app)} sync REMOTE (a git address "
                   "or a bare repository's folder) once; then the app syncs as it opens and every few minutes",
                   timeout=20)


# The command line's commands the keys do not already run (more like this, topics, team and export
# have keys): (palette name, what it does, what runs it).
CLI_COMMANDS: tuple[tuple[str, str, Callable[[App[Any]], None]], ...] = (
    ("Recommendations", "the triage queue: unread papers most likely wanted, learned from every mark "
     "(papersift recommend)", _recommendations),
    ("Archive old skipped papers", "out of the way, kept with their marks: shows the command to run "
     "(papersift archive)", _archive),
    ("Sync with the lab", "everyone's marks and papers in, yours out, through the lab's git repository "
     "(papersift sync)", _sync),
)


class ActionsProvider(Provider):
    """Offers the app's, the triage screen's, its list's, reader's and search box's actions in
    ctrl+p, and the command line's commands that make sense in the app."""

    def _actions(self) -> Iterator[tuple[str, str, str, str]]:
        for action_id, info in REGISTRY.items():
            ctx, _, action = action_id.partition(".")
            if ctx in PALETTE_CONTEXTS and action_id not in NOT_IN_PALETTE:
                keys = cast("PaletteHost", self.app).current_keymap().get(action_id, "")
                yield info.description, action, ctx, keys

    async def _run(self, action: str, ctx: str) -> None:
        screen = cast("PaletteHost", self.app).main_screen
        target: DOMNode
        widget = {"list": screen.results, "reader": screen.reader, "search": screen.search_box}.get(ctx)
        if ctx == "app":
            target = self.app
        elif widget is not None and hasattr(widget, f"action_{action}"):
            target = widget  # select, select all, first, last; an earlier search
        else:
            target = screen  # the keys that act on the screen (open the reader, the next paper)
        await self.app.run_action(action, target)

    def _entries(self) -> Iterator[tuple[str, Callable[[], object], str]]:
        for description, action, ctx, keys in self._actions():
            shown = keys_shown(keys)
            yield description, partial(self._run, action, ctx), f"key: {shown}" if shown else "no key"
        for name, what, run in CLI_COMMANDS:
            yield name, partial(run, self.app), what

    async def discover(self) -> Hits:
        for name, run, help_text in self._entries():
            yield DiscoveryHit(name, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, run, help_text in self._entries():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), run, help=help_text)
