"""The fetch key (F) in the app (tui/controllers/daily.py, tui/screens/fetch_dialog.py): the dialog
checks what was typed, offers the categories last fetched, and a fetch that cannot reach arXiv says
so in one notice and changes nothing. (A fetch that brings papers: the generated surface test's
``fetch.run`` scenario.)"""

from __future__ import annotations

from store.ingest import arxiv_fetch
from tui.screens.fetch_dialog import FetchScreen

from ..arxiv_server import Recorded, day
from ..conftest import free_port
from .driving import screen, settle


async def _wait(pilot, done, rounds: int = 200) -> None:
    for _ in range(rounds):
        await settle(pilot)
        if done():
            return
        await pilot.pause(0.05)


async def test_a_bad_category_or_date_is_said_in_the_dialog(lib, make):
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)
        assert isinstance(app.screen, FetchScreen)
        app.screen.query_one("#fetch-categories").value = "cs LG!"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FetchScreen)
        assert "such as cs.LG" in str(app.screen.query_one("#fetch-error").render())  # ("cs": an archive)
        app.screen.query_one("#fetch-categories").value = "cs.LG foo.BAR"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FetchScreen)
        assert "no archive of arXiv's" in str(app.screen.query_one("#fetch-error").render())
        app.screen.query_one("#fetch-categories").value = "cs.LG"
        app.screen.query_one("#fetch-since").value = "yesterday"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FetchScreen) and "a date" in str(app.screen.query_one("#fetch-error").render())
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen(app)


async def test_offline_the_fetch_says_so_and_nothing_changes(lib, make, monkeypatch):
    monkeypatch.setattr(arxiv_fetch, "API", f"http://127.0.0.1:{free_port()}/api/query")  # nothing listens
    monkeypatch.setattr(arxiv_fetch, "DELAY", 0.0)
    monkeypatch.setattr(arxiv_fetch, "ATTEMPTS", 1)
    corpus = (lib.folder / "corpus.jsonl").read_bytes()
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)
        app.screen.query_one("#fetch-categories").value = "cs.LG"
        await pilot.press("enter")
        await _wait(pilot, lambda: any("nothing fetched" in str(n.message) for n in app._notifications))
        said = [str(n.message) for n in app._notifications]
        assert any("nothing fetched" in m and "arXiv" in m for m in said), said
        assert app.screen is screen(app) and app.is_running
    assert (lib.folder / "corpus.jsonl").read_bytes() == corpus
    assert not (lib.folder / "fetched").exists()


async def test_the_dialog_offers_the_categories_fetched_last(lib, make, monkeypatch):
    server = Recorded([(200, {}, day(1))])
    monkeypatch.setattr(arxiv_fetch, "API", server.url)
    monkeypatch.setattr(arxiv_fetch, "DELAY", 0.0)
    try:
        app = make(lib)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("F")
            await settle(pilot)
            assert app.screen.query_one("#fetch-categories").value == ""  # nothing fetched yet
            app.screen.query_one("#fetch-categories").value = "cs.LG, cs.RO"
            app.screen.query_one("#fetch-since").value = "2024-11-01"  # (the recorded day's papers)
            await pilot.press("enter")
            await _wait(pilot, lambda: any("new:" in str(n.message) or "replaced" in str(n.message)
                                           for n in app._notifications))
            assert list((lib.folder / "fetched").glob("arxiv-cs.LG-cs.RO-*.xml"))
            await pilot.press("F")
            await settle(pilot)
            assert app.screen.query_one("#fetch-categories").value == "cs.LG cs.RO"
            await pilot.press("escape")
    finally:
        server.close()


async def test_quitting_during_a_long_wait_neither_waits_nor_writes(lib, make, monkeypatch):
    """arXiv asks for a minute's wait; the person quits: the app closes at once (the fetch's thread
    is not one quitting waits for) and nothing was written."""
    import time

    server = Recorded([(503, {"Retry-After": "60"}, b"busy")])
    monkeypatch.setattr(arxiv_fetch, "API", server.url)
    corpus = (lib.folder / "corpus.jsonl").read_bytes()
    try:
        app = make(lib)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("F")
            await settle(pilot)
            app.screen.query_one("#fetch-categories").value = "cs.LG"
            await pilot.press("enter")
            await _wait(pilot, lambda: any("wait" in str(n.message) for n in app._notifications))
            assert screen(app).daily.running()
            started = time.monotonic()
            await pilot.press("q")
            await settle(pilot)
        assert time.monotonic() - started < 10 and not app.is_running
    finally:
        server.close()
    assert (lib.folder / "corpus.jsonl").read_bytes() == corpus and not (lib.folder / "fetched").exists()
