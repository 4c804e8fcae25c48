"""The main screen's search (tui/screens/main_search.py): each keystroke parses its query once,
and the search and its worker take that parse along."""

from __future__ import annotations

import sys

import pytest

from store.search import query as query_module

from .conftest import wait_workers
from tui.app import make_app


@pytest.mark.parametrize("typed", ["tag:x graph", "\"neural net\""])  # inline, and a worker (a phrase)
async def test_one_parse_per_keystroke(lib, tmp_path, monkeypatch, typed):
    monkeypatch.setenv("PAPERSIFT_NO_SYSTEM_CLIPBOARD", "1")
    parsed: list[str] = []
    real = query_module.parse_query

    def counting(text: str, *args, **kwargs):
        parsed.append(text)
        return real(text, *args, **kwargs)
    for module in list(sys.modules.values()):  # every module that imported it by name
        if getattr(module, "parse_query", None) is real:
            monkeypatch.setattr(module, "parse_query", counting)
    app = make_app(lib, keymap_path=tmp_path / "keymap.toml", settings_path=tmp_path / "settings.json")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        await wait_workers(app)
        await pilot.press("slash")
        for i, char in enumerate(typed):
            parsed.clear()
            await pilot.press("space" if char == " " else char)
            await pilot.pause()
            await wait_workers(app)
            await pilot.pause()
            assert parsed == [typed[:i + 1]], f"after {typed[:i + 1]!r}: parsed {parsed}"
        assert app.main_screen.query_text == typed
