"""Every use of a private Textual member, in one place.

Textual is pinned to a minor version (pyproject.toml) because these reach past its
public API. Each is here with its reason, and ``tests/tui/test_compat.py`` fails loudly,
naming the member, if a Textual release changes it: a Textual upgrade means reading
this file and running that test.

- ``Input._watch_value``: a search runs inside the key's own handling, so the echoed
  key and the new list are drawn in one frame (the ``Changed`` message is handled a
  frame later). See :class:`ImmediateInput`.
- ``Input._on_paste``: Input keeps only the first line of a paste; ids copied one per
  line, or a title over two lines, must arrive whole. See :class:`ImmediateInput`.
- ``Footer.bindings_changed`` and ``Footer._bindings_ready``: the stock footer rebuilds
  itself on every focus change; the start-up's several focus moves cost ~0.2 s of
  rebuilt footers. See :class:`CoalescedFooter`.
- ``RadioSet._selected``: the keyboard highlight of a radio set starts on its first button,
  not the one picked; a dialog that offers the last choice again starts on it. See
  :class:`PickedRadioSet`.
- ``TextArea._on_paste``: a pasted text goes into the note editor cleaned of escape sequences
  and control characters, which the editor would draw to the terminal as they are. See
  :class:`SafeTextArea`.
- ``App._keymap``: the live keymap (Textual has ``set_keymap`` but no getter).
  See :func:`live_keymap`.
- ``Widget._size_updated``: a layout pass that changes a widget's size sets its virtual size as a
  reactive that asks for another layout pass, a second redraw of the screen (~25 ms at 160×45 in a
  real terminal) for each paper shown in the reader. The reader's abstract and the reader itself
  take their new size quietly: it changes nothing else's place (the reader always shows its
  scrollbar). See :class:`QuietlySizedStatic`, :class:`QuietlySizedScroll`.
- ``textual.screen.UPDATE_PERIOD``: a screen draws what changed at the next tick of a clock of
  this period (Textual's frame-rate cap, 1/60 s), counted from its last frame; a change made just
  after a frame, the reader's more-like-this panel once its lookup ends, waited up to ~17 ms (and
  a busy event loop's lateness on top) for a tick. See :func:`quicker_frames`.
- ``App.action_help_quit`` (Textual binds ctrl+c to it): it says how to quit in Textual markup
  (``Press [b]ctrl+q[/b] to quit the app``), and every notice of this app is plain text (they quote
  searches and tags), so the markup showed as written. See :class:`PlainQuitHint`.
- textual-serve's ``Server._make_app`` (tui.serve adds the access guard to the web app it
  builds; textual-serve has no hook for middleware). It stays in tui.serve, which imports
  aiohttp only when serving; the test checks it too.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App
from textual.geometry import Size
from textual.screen import Screen
from textual.containers import VerticalScroll
from textual.widgets import Footer, Input, RadioButton, RadioSet, Static, TextArea

from store.safe_text import export_safe


class ImmediateInput(Input):
    """An Input that calls :meth:`value_changed_now` from inside Input's own value watcher, and
    hands a whole multi-line paste to :meth:`paste_text`."""

    def _watch_value(self, value: str) -> None:
        # Input's watcher sets virtual_size to (content width, 1), which the screen's layout has
        # set to another size since: a reactive with layout=True, so every keystroke laid the
        # whole screen out again. Set quietly first, the watcher finds it unchanged; the box's
        # size never depends on it.
        self.set_reactive(Input.virtual_size, Size(self.content_width, 1))
        super()._watch_value(value)
        self.value_changed_now(value)

    def value_changed_now(self, value: str) -> None:
        """Called while the key that changed the value is handled (before it is drawn)."""

    def _on_paste(self, event: events.Paste) -> None:
        self.paste_text(event.text)
        event.prevent_default()  # not Input's own handler too (it would paste the first line again)
        event.stop()

    def paste_text(self, text: str) -> None:
        """A paste, every line of it (Input's own keeps the first): here, the lines joined by spaces."""
        line = " ".join(export_safe(text).split())  # (no escape sequence drawn in the box)
        if line:
            if self.selection.is_empty:
                self.insert_text_at_cursor(line)
            else:
                self.replace(line, *self.selection)


class SafeTextArea(TextArea):
    """A TextArea that draws no escape sequence or control character: a TextArea draws its text to
    the terminal as it is, so an ESC in it ran (a window title set, the text that followed drawn
    into it). Its text is given cleaned (``store.safe_text.export_safe``), and a paste is cleaned on
    the way in."""

    async def _on_paste(self, event: events.Paste) -> None:
        event.text = export_safe(event.text)
        await super()._on_paste(event)


class PlainQuitHint(App[None]):
    """App mixin: ctrl+c says how to quit as Textual does, in words with no markup."""

    def action_help_quit(self) -> None:
        """Bound by Textual to ctrl+c: a reflex to quit, answered with the key that quits from
        anywhere (the first active binding to quit, as Textual picks it: ctrl+q, which works in the
        search box too)."""
        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self.notify(f"Press {key} to quit the app", title="Do you want to quit?")
                return


class CoalescedFooter(Footer):
    """Textual's Footer, recomposed at most once per refresh however often the bindings change."""

    _recompose_pending = False

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True  # what the stock method sets before its first recompose
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._recompose_pending:
            self._recompose_pending = True
            self.call_after_refresh(self._recompose_once)

    async def _recompose_once(self) -> None:
        self._recompose_pending = False
        await self.recompose()


FRAME_PERIOD = 1 / 240  # seconds: the least time between two frames of a screen (see quicker_frames)


def quicker_frames() -> None:
    """Screens made from now on draw a change at most :data:`FRAME_PERIOD` after their last frame
    (Textual: 1/60 s). A frame still waits for the event loop to be idle, so the changes of one
    key's handling share a frame as before; the animator keeps its own 60 per second. At 300k
    papers in tmux the whole screen settled a typed character after 66 ms (median) against 87-95."""
    import textual.screen
    # (Final in Textual: a constant it reads when a screen starts its clock)
    textual.screen.UPDATE_PERIOD = FRAME_PERIOD  # type: ignore[misc]


def live_keymap(app: App[Any]) -> dict[str, str]:
    """The keymap the app runs with (action id -> comma-separated keys), as ``set_keymap`` set it."""
    return dict(app._keymap)


class PickedRadioSet(RadioSet):
    """A radio set whose keyboard highlight starts on the picked button (Textual's RadioSet puts it
    on the first; ↓ then ``space`` would pick the one after the first, not after the picked)."""

    def on_mount(self) -> None:
        self.call_after_refresh(self._highlight_picked)  # after RadioSet's own mount set it to the first

    def _highlight_picked(self) -> None:
        buttons = list(self.query(RadioButton))
        picked = next((i for i, b in enumerate(buttons) if b.value), None)
        if picked is not None:
            self._selected = picked

    @property
    def highlighted(self) -> int | None:
        """The index of the button the keyboard highlight is on."""
        return self._selected


class QuietlySizedStatic(Static):
    """A Static whose new size, found by a layout pass, asks for no second pass (its height is its
    text's; nothing else's place depends on it but through the pass that found it)."""

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)


class QuietlySizedScroll(VerticalScroll):
    """A VerticalScroll likewise (its scroll range still follows its content: Textual updates the
    scrollbars either way). For a scroll whose scrollbar is always shown (``overflow-y: scroll``):
    one that comes and goes changes its content's width, which does need the second pass."""

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)
