"""A start never fails because of what the last session saved: a saved search or sort that raises
is dropped, said in one line and logged, and the app opens on the plain list."""

from __future__ import annotations

import pytest

from store import Library
from store.library.search import LibrarySearch
from tui.app import make_app

from ..conftest import wait_workers


@pytest.fixture
def saved(tmp_path, monkeypatch):
    """A library left at a search (as `papersift` saves it on quitting), and a way to start the app."""
    monkeypatch.setenv("PAPERSIFT_NO_SYSTEM_CLIPBOARD", "1")
    lib = Library.open(tmp_path / "lib")

    def start(library=None):
        return make_app(library or Library(lib.folder), keymap_path=tmp_path / "k.toml",
                        settings_path=tmp_path / "settings.json")
    return lib, start


async def leave_at(start, query: str) -> None:
    app = start()
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("slash", *query, "enter")
        await wait_workers(app, pilot)
        await pilot.press("q")


def faulty_search(monkeypatch, bad: str) -> None:
    real = LibrarySearch.find

    def search(self, text="", sort="import", limit=None):
        if bad in getattr(text, "text", text):  # (the app passes the parsed Query)
            raise RuntimeError("the search broke")
        return real(self, text, sort, limit)
    monkeypatch.setattr(LibrarySearch, "find", search)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_saved_search_that_raises_is_dropped_and_the_list_opens(saved, monkeypatch):
    lib, start = saved
    await leave_at(start, "graph")
    faulty_search(monkeypatch, "graph")
    app = start()
    async with app.run_test(size=(160, 45)) as pilot:
        await wait_workers(app, pilot)
        await pilot.pause(0.1)
        await wait_workers(app, pilot)
        screen = app.main_screen
        assert app.is_running and screen.query_text == "" and len(screen.results.indices) == 35
        said = [str(n.message) for n in app._notifications if "dropped the saved search 'graph'" in str(n.message)]
        assert len(said) == 1 and "RuntimeError: the search broke" in said[0] and "papersift.log" in said[0]
        await pilot.press("q")
    assert app.return_code == 0
    log = (lib.folder / "papersift.log").read_text()
    assert "the saved search 'graph' failed" in log and "Traceback" in log and "RuntimeError" in log
    monkeypatch.undo()
    app = start()  # and the next start is clean: the plain list was saved
    async with app.run_test(size=(160, 45)) as pilot:
        await wait_workers(app, pilot)
        assert app.main_screen.query_text == ""
        assert not [n for n in app._notifications if "dropped" in str(n.message)]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_saved_sort_that_raises_is_dropped(saved, monkeypatch, tmp_path):
    lib, start = saved
    app = start()
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("S")  # status: saved in the settings
        await pilot.press("q")
    real = LibrarySearch.find

    def search(self, text="", sort="import", limit=None):
        if sort != "import":
            raise RuntimeError("that sort broke")
        return real(self, text, sort, limit)
    monkeypatch.setattr(LibrarySearch, "find", search)
    app = start()
    async with app.run_test(size=(160, 45)) as pilot:
        await wait_workers(app, pilot)
        assert app.main_screen.sort == "import" and len(app.main_screen.results.indices) == 35
        assert any("dropped the saved sort 'status'" in str(n.message) for n in app._notifications)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_search_that_raises_while_typing_is_said_and_the_app_stays(saved, monkeypatch):
    lib, start = saved
    faulty_search(monkeypatch, "zzz")
    app = start()
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("slash", "z", "z", "z")
        await wait_workers(app, pilot)
        assert app.is_running
        errors = [str(n.message) for n in app._notifications if n.severity == "error"]
        assert errors and "search 'zzz' failed (RuntimeError: the search broke)" in errors[-1]
    assert "search 'zzz' failed" in (lib.folder / "papersift.log").read_text()


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_restart_shows_the_paper_it_left_at_with_the_rows_around_it(saved):
    """At 80x24 the list is laid out after the paper is found: the paper was drawn on the top row,
    the rows above it hidden. It is shown mid-list."""
    lib, start = saved
    app = start()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_workers(app, pilot)
        await pilot.press(*["j"] * 20)
        await pilot.press("q")
    app = start()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_workers(app, pilot)
        await pilot.pause(0.1)
        results = app.main_screen.results
        shown_at = results.cursor - int(results.scroll_offset.y)
        assert results.cursor == 20 and 4 <= shown_at < results.size.height - 4, (results.scroll_offset, results.size)
        await pilot.press("q")
