"""tui.compat's reach into Textual: each private member it uses is still there and still does what
compat relies on. A failure here names the member a Textual upgrade changed (see tui/compat.py)."""

import inspect

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Footer, Input

from tui import compat


def test_input_still_has_the_private_watcher_and_paste_handler():
    assert callable(getattr(Input, "_watch_value", None)), "Input._watch_value is gone (tui.compat.ImmediateInput)"
    assert "value" in inspect.signature(Input._watch_value).parameters
    assert callable(getattr(Input, "_on_paste", None)), "Input._on_paste is gone (tui.compat.ImmediateInput)"


def test_text_area_still_has_the_private_paste_handler():
    from textual.widgets import TextArea
    assert inspect.iscoroutinefunction(getattr(TextArea, "_on_paste", None)), \
        "TextArea._on_paste is gone (tui.compat.SafeTextArea)"
    assert list(inspect.signature(TextArea._on_paste).parameters) == ["self", "event"]


def test_footer_still_sets_bindings_ready_in_bindings_changed():
    source = inspect.getsource(Footer.bindings_changed)
    assert "_bindings_ready" in source, "Footer.bindings_changed no longer sets _bindings_ready (CoalescedFooter)"
    assert "recompose" in source


def test_app_keeps_its_keymap_in_a_private_dict():
    app = App()
    app.set_keymap({"quit": "ctrl+q"})
    assert compat.live_keymap(app) == {"quit": "ctrl+q"}, "App._keymap changed (tui.compat.live_keymap)"


def test_textual_serve_still_builds_its_web_app_in_make_app():
    server = pytest.importorskip("textual_serve.server")
    assert inspect.iscoroutinefunction(server.Server._make_app), "textual-serve's Server._make_app changed (tui.serve)"


class _Box(compat.ImmediateInput):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def value_changed_now(self, value: str) -> None:
        self.seen.append(value)


class _BoxApp(App):
    def compose(self) -> ComposeResult:
        yield _Box()
        yield compat.CoalescedFooter()


async def test_the_hooks_run_when_textual_calls_the_private_members():
    """Typing runs value_changed_now during the key (the private watcher); a two-line paste arrives
    whole (the private paste handler); focus changes leave one footer with the keys."""
    from textual import events

    app = _BoxApp()
    async with app.run_test() as pilot:
        box = app.query_one(_Box)
        box.focus()
        await pilot.press("a", "b")
        assert box.seen[-1] == "ab"
        box.post_message(events.Paste("one\ntwo"))
        await pilot.pause()
        assert box.value == "abone two" and box.seen[-1] == "abone two"
        for _ in range(3):
            box.blur()
            box.focus()
        await pilot.pause()
        assert len(app.query(compat.CoalescedFooter)) == 1


async def test_a_picked_radio_set_highlights_its_pick():
    """RadioSet._selected is the keyboard highlight (tui.compat.PickedRadioSet starts it on the pick)."""
    from textual.widgets import RadioButton, RadioSet

    assert "_selected" in dir(RadioSet), "RadioSet._selected is gone (tui.compat.PickedRadioSet)"

    class Sets(App):
        def compose(self) -> ComposeResult:
            with compat.PickedRadioSet(id="picked"):
                for n in range(4):
                    yield RadioButton(str(n), value=n == 2)
            with RadioSet(id="stock"):
                for n in range(4):
                    yield RadioButton(str(n), value=n == 2)

    app = Sets()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.query_one("#picked", compat.PickedRadioSet).highlighted == 2
        assert app.query_one("#stock", RadioSet)._selected == 0  # what Textual does alone


def test_widgets_still_take_their_size_from_the_layout_pass_through_size_updated():
    """Widget._size_updated(size, virtual_size, container_size, layout): the screen's layout pass
    calls it, and layout=False sets the virtual size without asking for another pass
    (tui.compat.QuietlySizedStatic, QuietlySizedScroll)."""
    from textual.screen import Screen
    from textual.widget import Widget
    params = list(inspect.signature(Widget._size_updated).parameters)
    assert params == ["self", "size", "virtual_size", "container_size", "layout"], \
        "Widget._size_updated changed (tui.compat.QuietlySizedStatic)"
    assert "_size_updated(" in inspect.getsource(Screen._refresh_layout), "the layout pass no longer calls it"
    source = inspect.getsource(Widget._size_updated)
    assert "set_reactive(Widget.virtual_size" in source and "if layout" in source


async def test_a_quietly_sized_scroll_still_scrolls_its_whole_content():
    """The reader's classes take a new size without a second layout pass, and still scroll all of
    a longer text and none of a shorter one."""
    from textual.geometry import Size

    class Reading(App[None]):
        CSS = "QuietlySizedScroll { overflow-y: scroll; height: 10; }"

        def compose(self) -> ComposeResult:
            with compat.QuietlySizedScroll():
                yield compat.QuietlySizedStatic("short", id="text")

    app = Reading()
    async with app.run_test(size=(40, 12)) as pilot:
        scroll = app.query_one(compat.QuietlySizedScroll)
        text = app.query_one("#text", compat.QuietlySizedStatic)
        await pilot.pause()
        assert scroll.max_scroll_y == 0
        text.update("\n".join(f"line {i}" for i in range(30)))
        await pilot.pause()
        await pilot.pause()
        assert scroll.virtual_size.height >= 30 and scroll.max_scroll_y >= 20
        scroll.scroll_end(animate=False)
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y
        text.update("short again")
        await pilot.pause()
        await pilot.pause()
        assert scroll.max_scroll_y == 0 and text.size == Size(text.size.width, 1)


async def test_screens_draw_at_most_a_frame_period_after_their_last_frame(tmp_path):
    """quicker_frames sets the period of the clock a screen draws its changes on (Textual's
    ``textual.screen.UPDATE_PERIOD``, read when a screen starts that clock)."""
    import textual.screen

    from store import Library
    from tui.app import make_app
    assert hasattr(textual.screen, "UPDATE_PERIOD"), "textual.screen.UPDATE_PERIOD is gone (tui.compat.quicker_frames)"
    app = make_app(Library(tmp_path / "lib"), keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    assert textual.screen.UPDATE_PERIOD == compat.FRAME_PERIOD
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        timers = [t for t in app.screen._timers if t.name == "screen_update"]
        assert [t._interval for t in timers] == [compat.FRAME_PERIOD], "a screen's frame clock is no longer its update timer"


def test_ctrl_c_is_still_bound_to_help_quit():
    bound = {b.key: b.action for b in App.BINDINGS if not isinstance(b, tuple)}
    assert bound.get("ctrl+c") == "help_quit", "Textual no longer binds ctrl+c to help_quit (tui.compat.PlainQuitHint)"
    assert "[b]" in inspect.getsource(App.action_help_quit), \
        "App.action_help_quit changed its notice (tui.compat.PlainQuitHint says it in plain words)"
