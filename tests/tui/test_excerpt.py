"""A paper no rule could title shows, in the list and the reader, the first words of what it says it
does, marked as such (store.titles.kinds), never as if it were a title."""

from __future__ import annotations

import os

from rich.console import Console

from store import Library
from store.titles.kinds import EXCERPT_NOTE

from .driving import screen

NO_PHRASE = ("It is widely agreed that when AI models assist decision-makers in high-stakes domains, they should "
             "communicate the confidence of their predictions. However, decision-makers struggle to use it. In this "
             "paper, we address this question in the canonical case of binary predictions and binary decisions.")


def _two_papers(tmp_path) -> Library:
    """A library of the excerpt paper and a named one."""
    lib = Library(tmp_path / "lib")
    (tmp_path / "d.txt").write_text("Dump\n\n" + NO_PHRASE + "\n\nWe propose ZephyrNet, a method for video "
                                    "prediction from optical flow.\n")
    lib.paper_changes.import_paths([tmp_path / "d.txt"])
    return lib


def _shown(app, selector: str) -> str:
    """The text a widget of the main screen shows."""
    console = Console(width=160, record=True, file=open(os.devnull, "w"))
    console.print(screen(app).query_one(selector).content)
    return console.export_text()


async def test_the_list_and_the_reader_mark_an_excerpt(tmp_path, make):
    lib = _two_papers(tmp_path)
    app = make(lib)
    async with app.run_test(size=(160, 30)) as pilot:
        await pilot.pause()
        results = screen(app).results
        rows = [results.render_line(y).text for y in range(2)]
        assert any("“In this paper, we address this question" in r for r in rows), rows  # (cut to the pane)
        assert any("ZephyrNet: a method for video prediction" in r and "“" not in r for r in rows), rows
        excerpt_row = next(i for i, r in enumerate(rows) if "“" in r)
        for _ in range(excerpt_row):
            await pilot.press("j")
        await pilot.pause()
        assert f"({EXCERPT_NOTE})" in _shown(app, "#reader-body")


async def test_more_like_this_quotes_an_excerpt_as_the_list_does(tmp_path, make):
    """The panel under the reader showed an excerpt as if it were a title (the list quotes it)."""
    lib = _two_papers(tmp_path)
    app = make(lib)
    async with app.run_test(size=(160, 30)) as pilot:
        await pilot.pause()
        reader = screen(app).reader
        papers = lib.corpus.papers
        shown = reader.paper_index
        assert shown is not None
        reader.show_similar(shown, [(i, papers[i].title) for i in range(len(papers))])
        await pilot.pause()
        panel = _shown(app, "#reader-similar")
        assert "· “In this paper, we address this question" in panel and "· ZephyrNet: a method" in panel, panel
