"""README.md as a newcomer follows it: the set-up makes and uses a virtual environment first, it
says where the default library lives, its screenshot is the app's own screen today (its footer
line, the keys that work there), and it stays a short page."""

from __future__ import annotations

import re

from .conftest import ROOT

README = ROOT / "README.md"
SIZE = (100, 30)  # the screenshot's columns and lines


def sh_blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", text, re.S)


def screenshot(text: str) -> list[str]:
    return text.split("```text\n", 1)[1].split("```", 1)[0].splitlines()


def test_the_readme_stays_short():
    assert len(README.read_bytes()) <= 12 * 1024


def test_the_set_up_makes_and_uses_a_virtual_environment_first():
    setup = README.read_text(encoding="utf-8").split("## Set up", 1)[1].split("\n## ", 1)[0]
    first = sh_blocks(setup)[0]
    assert re.search(r"python3 -m venv \.venv && \. \.venv/bin/activate && .*pip install \.", first), first
    assert "pip install -e '.[test]'" in sh_blocks(setup)[1]


def test_the_readme_says_where_the_default_library_lives():
    from pathlib import Path

    import platformdirs  # (what store.locations.default_library_dir asks)
    home = str(platformdirs.user_data_path("papersift").parent).replace(str(Path.home()), "~")
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert f"{home}/papersift/library" in text, home
    assert "~/Library/Application Support/papersift/library" in text and "PAPERSIFT_LIBRARY" in text


async def screen_of_the_readme(tmp_path, monkeypatch) -> list[str]:
    """The app at the screenshot's size on the sample, as the screenshot shows it: one paper read,
    one starred twice and tagged, ``agent`` searched."""
    from store import Library
    from tui.app import make_app

    from .tui.driving import settle
    from .tui.screentext import screen_lines
    monkeypatch.setenv("PAPERSIFT_NO_SYSTEM_CLIPBOARD", "1")
    lib = Library.open(tmp_path / "library")
    by_title = {p.title.split(":")[0]: p.id for p in lib.corpus}
    lib.marks.set_status([by_title["TraceML"]], "read")
    lib.marks.set_star([by_title["OmniBehavior"]], 2)
    lib.marks.add_tags([by_title["OmniBehavior"]], ["agents"])
    _ = lib.discovery.similarity
    app = make_app(lib, keymap_path=tmp_path / "none.toml", settings_path=tmp_path / "settings.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"agent", "enter")
        await settle(pilot)
        await pilot.pause(0.3)
        return [line.rstrip() for line in screen_lines(app)]


async def test_the_screenshot_shows_todays_footer(tmp_path, monkeypatch):
    shown = await screen_of_the_readme(tmp_path, monkeypatch)
    pictured = screenshot(README.read_text(encoding="utf-8"))
    assert len(pictured) == SIZE[1]
    assert pictured[-1].rstrip() == shown[-1], f"README's footer:\n{pictured[-1]}\nthe app's:\n{shown[-1]}"
