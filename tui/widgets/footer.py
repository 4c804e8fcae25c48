"""Textual's Footer, recomposed at most once per refresh; help and quit first when narrow.

The stock Footer schedules a full recompose (a new FooterKey per binding, each
restyled) on every bindings change, and a focus change is one: at start-up the
main screen's focus moves several times before the first paint, which cost
~0.2 s of rebuilt footers. Coalescing the requests (tui.compat) shows the same keys.

Below 160 columns the keys sit closer (the stock compact style), so that every key a
pane offers fits in 120. ? Help and q Quit come first at every width: at 80 columns the
footer is cut after about ten keys, and help is where the rest are listed; wider, the keys
keep the order a reader learned at 80.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widgets._footer import FooterKey, FooterLabel

from ..compat import CoalescedFooter

COMPACT_BELOW = 160  # columns
FIRST = ("help", "quit")  # the app bindings' actions


class Footer(CoalescedFooter):
    # The stock compact style sets a group's label ("J K Next/prev") against the next key.
    DEFAULT_CSS = "Footer.-compact FooterLabel { margin-right: 1; }"
    _keys_width = 0  # the width the keys were last laid out for

    def on_resize(self, event: events.Resize) -> None:
        """A new width: the keys laid out again, and those that do not fit it left out anew."""
        self.compact = event.size.width < COMPACT_BELOW
        if event.size.width != self._keys_width:
            self._keys_width = event.size.width
            self.refresh(recompose=True)

    def compose(self) -> ComposeResult:
        """The stock footer's keys, help and quit first, so the cut never hides them."""
        keys = list(super().compose())
        first = sorted((k for k in keys if getattr(k, "action", None) in FIRST),
                       key=lambda k: FIRST.index(getattr(k, "action", None)))
        keys = first + [k for k in keys if k not in first]
        self.call_after_refresh(self.call_after_refresh, self._drop_covered)  # (once the new keys are laid out)
        yield from keys

    def _drop_covered(self, tries: int = 5) -> None:
        """Keys that would run under the palette's key (docked right) are not shown: a key is
        offered whole or not at all ("s Ski▏^p palette" read as a key of its own)."""
        shown = [c for c in self.query_children() if isinstance(c, (FooterKey, FooterLabel)) and c.display]
        keys = [c for c in shown if "-command-palette" not in c.classes]
        palette = [c for c in shown if "-command-palette" in c.classes]
        if not all(c.region.width for c in shown):  # not laid out yet
            if tries:
                self.call_after_refresh(self._drop_covered, tries - 1)
            return
        edge = palette[0].region.x if palette else self.region.right
        for key in keys:
            if key.region.right > edge:
                key.display = False
