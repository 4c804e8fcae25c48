"""Command palette provider: every action with a binding, by its description."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Provider

from .keymap import REGISTRY

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from .host import PaletteHost

PALETTE_CONTEXTS = ("app", "main", "list")
# Moving the cursor one row or page is what the keys are for, not a command to look up.
NOT_IN_PALETTE = {"list.cursor_down", "list.cursor_up", "list.page_down", "list.page_up"}


class ActionsProvider(Provider):
    """Offers the app's, the triage screen's and the results list's actions in ctrl+p."""

    def _actions(self):
        for action_id, info in REGISTRY.items():
            ctx, _, action = action_id.partition(".")
            if ctx in PALETTE_CONTEXTS and action_id not in NOT_IN_PALETTE:
                keys = cast("PaletteHost", self.app).current_keymap().get(action_id, "")
                yield info.description, action, ctx, keys

    async def _run(self, action: str, ctx: str) -> None:
        screen = cast("PaletteHost", self.app).main_screen
        target: DOMNode
        if ctx == "app":
            target = self.app
        elif ctx == "list" and hasattr(screen.results, f"action_{action}"):
            target = screen.results  # select, select all, first, last
        else:
            target = screen  # the list's keys that act on the screen (open the reader, clear the filter)
        await self.app.run_action(action, target)

    async def discover(self):
        for description, action, ctx, keys in self._actions():
            yield DiscoveryHit(description, partial(self._run, action, ctx), help=f"key: {keys}")

    async def search(self, query: str):
        matcher = self.matcher(query)
        for description, action, ctx, keys in self._actions():
            score = matcher.match(description)
            if score > 0:
                yield Hit(score, matcher.highlight(description), partial(self._run, action, ctx), help=f"key: {keys}")
