"""Textual's Footer, recomposed at most once per refresh.

The stock Footer schedules a full recompose (a new FooterKey per binding, each
restyled) on every bindings change, and a focus change is one: at start-up the
main screen's focus moves several times before the first paint, which cost
~0.2 s of rebuilt footers. Coalescing the requests shows the same keys.
"""

from __future__ import annotations

from textual.widgets import Footer as TextualFooter


class Footer(TextualFooter):
    _recompose_pending = False

    def bindings_changed(self, screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._recompose_pending:
            self._recompose_pending = True
            self.call_after_refresh(self._recompose_once)

    async def _recompose_once(self) -> None:
        self._recompose_pending = False
        await self.recompose()
