"""A search the parser cannot apply as written, in the app: an unknown filter (``statu:read``) is
said in full where it can be read, and the list does not fill with every paper."""

from __future__ import annotations

import re

import pytest

from store.search.query import parse_query

from .driving import screen, settle, type_search
from .screentext import screen_lines


@pytest.mark.parametrize("width", [80, 160])
async def test_an_unknown_filter_is_said_whole_and_lists_no_paper(lib, make, width):
    app = make(lib)
    async with app.run_test(size=(width, 30)) as pilot:
        before = len(screen(app).results.indices)
        assert before == len(lib)
        results = await type_search(app, pilot, "statu:read")
        assert len(results.indices) == 0, "an unknown filter listed every paper"
        error = parse_query("statu:read").errors[0]
        box = results.content_region  # the list's own lines, the reader's beside them left out
        lines = screen_lines(app)[box.y:box.bottom]
        shown = re.sub(r"\s+", " ", " ".join(line[box.x:box.right] for line in lines))
        assert error in shown, f"the error is not on the screen whole: {error!r}"
        if width >= 120:  # (the tag panel is shown: it says no paper is, not "On this paper: none yet")
            from tui.widgets.tagpanel import TagPanel
            await pilot.pause()
            said = str(screen(app).query_one(TagPanel).query_one("#paper-tags").render())
            assert "No paper shown" in said and "On this paper" not in said, said
        # Fixed, the list is back.
        await pilot.press(*["backspace"] * len(":read"), *"s:unread")
        await pilot.pause()
        assert len(results.indices) == len(lib) and not results.unapplied


async def test_what_the_header_cannot_fit_ends_in_an_ellipsis(lib, make):
    """At 80 columns the search's note in the header ("unknown filter …") is cut: it ends in "…",
    on its one line, where it had stopped mid-word as if it were whole."""
    app = make(lib)
    async with app.run_test(size=(80, 30)) as pilot:
        await type_search(app, pilot, "statu:read")
        header = screen(app).counts.header
        top = screen_lines(app)[header.region.y]
        assert "triaged  unknown filter" in top and top.rstrip().endswith("…"), top
        assert header.region.height == 1


async def test_a_wrong_filter_value_lists_no_paper_once_typed(lib, make):
    """`status:reed` (enter): the list shows no paper and says why in its body, as for an unknown
    filter; it had gone on listing the whole library, the error only in the header, so `r`, `a`
    and `s` went to papers the filter was meant to leave out. While it is typed, the list stays."""
    app = make(lib)
    async with app.run_test(size=(100, 30)) as pilot:
        results = await type_search(app, pilot, "status:reed")
        assert len(results.indices) == len(lib)  # (the cursor on it: "status:re" was a prefix of read)
        await pilot.press("enter")
        await settle(pilot)
        error = "unknown status 'reed' (use unread, to-read, read, skipped)"
        assert len(results.indices) == 0 and results.unapplied == [error]
        box = results.content_region
        shown = re.sub(r"\s+", " ", " ".join(line[box.x:box.right] for line in screen_lines(app)[box.y:box.bottom]))
        assert error in shown
