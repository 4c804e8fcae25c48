"""The fetch key (F) in the app (tui/controllers/daily.py, tui/screens/fetch_dialog.py): the dialog
checks what was typed, offers the categories last fetched, and a fetch that cannot reach arXiv says
so in one notice and changes nothing. (A fetch that brings papers: the generated surface test's
``fetch.run`` scenario.)"""

from __future__ import annotations

import time

import pytest

from store.ingest import arxiv_fetch
from tui.screens.fetch_dialog import FetchScreen

from ..arxiv_server import Recorded, day
from ..conftest import free_port
from .driving import screen, settle


@pytest.fixture
def arxiv(monkeypatch):
    """``arxiv(script)``: arXiv's API answered by a local stand-in (store.ingest.arxiv_fetch reads
    its address when a fetch starts), no wait between requests."""
    servers: list[Recorded] = []

    def serve(script: list[tuple[int, dict[str, str], bytes]]) -> Recorded:
        servers.append(Recorded(script))
        monkeypatch.setattr(arxiv_fetch, "API", servers[-1].url)
        monkeypatch.setattr(arxiv_fetch, "DELAY", 0.0)
        return servers[-1]
    yield serve
    for server in servers:
        server.close()


async def _wait(pilot, done, rounds: int = 200) -> None:
    for _ in range(rounds):
        await settle(pilot)
        if done():
            return
        await pilot.pause(0.05)


async def _open(pilot) -> FetchScreen:
    await pilot.press("F")
    await settle(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, FetchScreen)
    return dialog


async def _ask(pilot, categories: str, since: str = "") -> None:
    """The dialog opened, ``categories`` and ``since`` typed, Enter."""
    dialog = await _open(pilot)
    dialog.query_one("#fetch-categories").value = categories
    dialog.query_one("#fetch-since").value = since
    await pilot.press("enter")


def _said(app, words: str) -> bool:
    return any(words in str(n.message) for n in app._notifications)


async def test_a_bad_category_or_date_is_said_in_the_dialog(lib, make):
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for categories, since, said in (("cs LG!", "", "such as cs.LG"),  # ("cs": an archive)
                                        ("cs.LG foo.BAR", "", "no archive of arXiv's"),
                                        ("cs.LG", "yesterday", "a date")):
            await _ask(pilot, categories, since)
            await settle(pilot)
            assert isinstance(app.screen, FetchScreen)
            assert said in str(app.screen.query_one("#fetch-error").render())
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
        await _ask(pilot, "cs.LG")
        await _wait(pilot, lambda: _said(app, "nothing fetched"))
        said = [str(n.message) for n in app._notifications]
        assert any("nothing fetched" in m and "arXiv" in m for m in said), said
        assert app.screen is screen(app) and app.is_running
    assert (lib.folder / "corpus.jsonl").read_bytes() == corpus
    assert not (lib.folder / "fetched").exists()


async def test_the_dialog_offers_the_categories_fetched_last(lib, make, arxiv):
    arxiv([(200, {}, day(1))])
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert (await _open(pilot)).query_one("#fetch-categories").value == ""  # nothing fetched yet
        await pilot.press("escape")
        await _ask(pilot, "cs.LG, cs.RO", "2024-11-01")  # (the recorded day's papers)
        await _wait(pilot, lambda: _said(app, "new:") or _said(app, "replaced"))
        assert list((lib.folder / "fetched").glob("arxiv-cs.LG-cs.RO-*.xml"))
        assert (await _open(pilot)).query_one("#fetch-categories").value == "cs.LG cs.RO"
        await pilot.press("escape")


async def test_quitting_during_a_long_wait_neither_waits_nor_writes(lib, make, arxiv):
    """arXiv asks for a minute's wait; the person quits: the app closes at once (the fetch's thread
    is not one quitting waits for) and nothing was written."""
    arxiv([(503, {"Retry-After": "60"}, b"busy")])
    corpus = (lib.folder / "corpus.jsonl").read_bytes()
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _ask(pilot, "cs.LG")
        await _wait(pilot, lambda: _said(app, "wait"))
        assert screen(app).daily.running()
        started = time.monotonic()
        await pilot.press("q")
        await settle(pilot)
    assert time.monotonic() - started < 10 and not app.is_running
    assert (lib.folder / "corpus.jsonl").read_bytes() == corpus and not (lib.folder / "fetched").exists()
