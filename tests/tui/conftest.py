"""Fixtures of the app tests: ``make`` builds the app on a library with a keymap and settings of
the test's own (and no system clipboard)."""

from __future__ import annotations

import pytest

from tui.app import make_app


@pytest.fixture
def make(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERSIFT_NO_SYSTEM_CLIPBOARD", "1")

    def build(lib, keymap_text: str | None = None):
        keymap = tmp_path / "keymap.toml"
        if keymap_text is not None:
            keymap.write_text(keymap_text)
        return make_app(lib, keymap_path=keymap, settings_path=tmp_path / "settings.json")
    return build
