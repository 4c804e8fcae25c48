"""Command palette provider: every action with a binding, by its description."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Provider

from .keymap import REGISTRY

PALETTE_CONTEXTS = ("app", "main")


class ActionsProvider(Provider):
    """Offers the app's and the triage screen's actions in ctrl+p."""

    def _actions(self):
        for action_id, info in REGISTRY.items():
            ctx, _, action = action_id.partition(".")
            if ctx in PALETTE_CONTEXTS:
                keys = self.app.current_keymap().get(action_id, "")
                yield info.description, action, ctx, keys

    async def _run(self, action: str, ctx: str) -> None:
        target = self.app if ctx == "app" else self.app.main_screen
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
