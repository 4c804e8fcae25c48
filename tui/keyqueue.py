"""Handle keys strictly one after another, so type-ahead is never misrouted.

Textual addresses a key to the widget focused when the App *dequeues* it, and
widgets then handle keys in their own queues. In a burst (a fast typist, a
terminal multiplexer, ``tmux send-keys``) "/" and the query behind it are all
addressed to the list before "/" has moved focus to the search box, so the
query runs as list commands. ``SerialKeys`` holds each key until the previous
one has been handled by its widget and every ancestor up to the App (and, if
it opened a screen, until that screen has painted and focused its input).
"""

from __future__ import annotations

import weakref
from collections import deque
from collections.abc import Sequence
from typing import Any
from functools import partial

from textual import events
from textual.app import App, ScreenStackError
from textual.message_pump import MessagePump
from textual.screen import Screen



class SerialKeys(App[None]):
    """App mixin: dispatch one key at a time."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._held_keys: deque[events.Key] = deque()
        self._key_in_flight = False
        # The keys this queue has sent on: Textual's routing hands the same event back to the
        # App's on_event, which must then route it instead of queueing it again.
        self._sent_keys: weakref.WeakSet[events.Key] = weakref.WeakSet()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded and event not in self._sent_keys:
            self._held_keys.append(event)
            if not self._key_in_flight:
                await self._dispatch_next_key()
            return
        await super().on_event(event)

    async def _dispatch_next_key(self) -> None:
        if not self._held_keys:
            self._key_in_flight = False
            return
        screen = self._screen_or_none()
        if screen is None:
            return
        self._key_in_flight = True
        event = self._held_keys.popleft()
        self._sent_keys.add(event)
        target = self.focused or screen
        chain = list(target.ancestors_with_self)
        await super().on_event(event)  # Textual's own routing: priority bindings, then forward
        self._after(chain, screen)

    def _after(self, chain: Sequence[MessagePump], screen: Screen[Any] | None) -> None:
        """Continue once every node in ``chain`` has processed what is queued now."""
        if chain:
            node, rest = chain[0], chain[1:]
            # A Callback *message* queues behind the key (call_next would not:
            # it runs after whatever the node is processing right now).
            if not node.post_message(events.Callback(callback=partial(self._after, rest, screen))):
                self._after(rest, screen)  # the node is closed (a dismissed screen): move on
            return
        now = self._screen_or_none()
        if now is None:
            return
        if now is not screen:
            # A screen opened or closed: let it mount and take focus first.
            self.call_after_refresh(self._resume)
        else:
            self.call_next(self._resume)

    def _screen_or_none(self) -> Screen[Any] | None:
        """The screen keys go to; None while quitting (the screens are gone: the keys held, typed
        after q, are dropped)."""
        try:
            return self.screen
        except ScreenStackError:
            self._held_keys.clear()
            self._key_in_flight = False
            return None

    async def _resume(self) -> None:
        await self._dispatch_next_key()
