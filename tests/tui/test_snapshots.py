"""SVG snapshots of the main screen (Textual version pinned in pyproject: releases change snapshots)."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from store import Library

from ..conftest import wait_workers
from tui.app import make_app


@pytest.fixture
def demo_app(tmp_path, seeds_dir):
    lib = Library(tmp_path / "neurips-demo")  # the folder name shows in the header
    lib.paper_changes.import_paths([seeds_dir])
    ids = [p.id for p in lib.corpus]
    lib.marks.set_status(ids[:3], "read")
    lib.marks.set_status([ids[3]], "to-read")
    lib.marks.set_star([ids[3]], 2)
    lib.marks.add_tags([ids[3]], ["agents", "eval"])
    return make_app(lib, keymap_path=tmp_path / "none.toml", settings_path=tmp_path / "settings.json")


async def _freeze(pilot) -> None:
    import asyncio
    for _ in range(3000):  # the reader's "more like this" list appears once its model is built
        if pilot.app.library.discovery.similarity_ready:
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError("the similarity model was not ready after 30 s: the snapshot would be of a half-drawn reader")
    await pilot.pause(0.1)
    await wait_workers(pilot.app)
    await pilot.pause()
    for widget in pilot.app.screen.query(Input):
        widget.cursor_blink = False
    await pilot.pause()


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_main_screen_80x24(snap_compare, demo_app):
    assert snap_compare(demo_app, terminal_size=(80, 24), run_before=_freeze)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_main_screen_160x45_searching(snap_compare, demo_app):
    async def run_before(pilot):
        await pilot.press("slash", *"agent llm", "escape", "j", "j", "j")
        await wait_workers(pilot.app)
        await _freeze(pilot)
    assert snap_compare(demo_app, terminal_size=(160, 45), run_before=run_before)
