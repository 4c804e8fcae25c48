"""Screening through the keys alone: a reader who finds one wanted paper by a search, then takes
the most likely paper (main.likely) and marks it, again and again, finds the wanted papers first;
the recommended list stays on the row being read; the header says how far to read."""

from __future__ import annotations

import json

import pytest

from store import Library

from ..conftest import DATA
from .driving import screen, settle, until

AREA = "reinforcement learning"


def _labelled(tmp_path):
    lib = Library.open(tmp_path / "lib", seed_if_new=False)
    lib.paper_changes.import_paths([DATA / "iclr_slice.jsonl"])
    areas = {json.loads(line)["title"]: json.loads(line)["primary_area"]
             for line in (DATA / "iclr_slice.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()}
    wanted = {p.id for p in lib.corpus if areas.get(p.title) == AREA}
    assert 10 <= len(wanted) <= 40
    return lib, wanted


async def _sort_recommended(pilot, main) -> None:
    """`S` until the list is in the recommended order (the triage queue's)."""
    while main.sort != "recommended":
        await pilot.press("S")
        await settle(pilot)


@pytest.mark.slow  # (about 10 s: 40 marks, each ranked again in a worker)
async def test_screening_through_the_keys_finds_the_wanted_papers_first(tmp_path, make):
    lib, wanted = _labelled(tmp_path)
    app = make(lib)
    marks = 40   # a fifth of the slice
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = screen(app)
        await pilot.press("slash", *"reinforcement learning", "enter")
        await settle(pilot)
        seen: list[str] = []

        def current() -> str:
            return lib.corpus.papers[main.results.current_index].id

        first = current()
        await pilot.press("a" if first in wanted else "s")
        seen.append(first)
        await pilot.press("escape")   # the search cleared: the whole list again
        await settle(pilot)
        assert len(main.results.indices) == len(lib)
        for _ in range(marks - 1):
            await pilot.press("L")
            await until(pilot, lambda: current() not in seen)
            pid = current()
            await pilot.press("a" if pid in wanted else "s")
            seen.append(pid)
            await until(pilot, lambda marked=pid: lib.annotation(marked).status != "unread")
        found = sum(p in wanted for p in seen)
        # reading a fifth of the papers in the queue's order finds far more than a fifth of the wanted ones
        assert found >= 0.6 * len(wanted), (found, len(wanted))
        assert {p for p, a in lib.annotations.items() if a.status == "to-read"} == set(seen) & wanted


@pytest.mark.slow  # (a few seconds: the model is built for the list)
async def test_the_recommended_list_keeps_the_row_being_read_and_says_how_far_to_read(tmp_path, make):
    lib, wanted = _labelled(tmp_path)
    ids = [p.id for p in lib.corpus]
    lib.marks.set_status([i for i in ids[:60] if i not in wanted], "skipped")
    lib.marks.set_status([i for i in ids[:60] if i in wanted], "to-read")
    assert any(i in wanted for i in ids[:60])
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = screen(app)
        await _sort_recommended(pilot, main)
        header = app.export_screenshot().replace("&#160;", " ")
        est = lib.discovery.screening.estimate()
        assert est is not None and est.marked == 60
        assert f"{est.found} wanted found; mark" not in header and "wanted found; likely at most" in header
        await pilot.press("d")                  # the dashboard says it too
        await settle(pilot)
        dashboard = app.export_screenshot().replace("&#160;", " ")
        assert "How far to read" in dashboard and f"{est.found} wanted found" in dashboard
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("j", "j", "j")
        row, paper = main.results.cursor, main.results.current_index
        above = [int(i) for i in main.results.indices[:row]]
        await pilot.press("plus")               # a star on the paper read: the list is ranked again
        await settle(pilot)
        await until(pilot, lambda: lib.annotation(lib.corpus.papers[paper].id).star == 1)
        await settle(pilot)
        assert main.results.cursor == row and main.results.current_index == paper
        # the rows above stay as they were; the rows below are the queue's new order
        ranked = [int(i) for i in lib.search.find("", sort="recommended").indices]
        shown = [int(i) for i in main.results.indices]
        assert shown[:row] == above
        assert shown[row + 1:] == [i for i in ranked if i not in above and i != paper]
        await pilot.press("L")                  # the queue's first, wherever it is in the list
        await until(pilot, lambda: main.results.current_index == ranked[0])


@pytest.mark.slow  # (a few seconds: the model is built for the list)
async def test_the_recommended_sort_says_when_nothing_is_marked_and_L_says_what_to_do(tmp_path, make):
    lib, _ = _labelled(tmp_path)
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = screen(app)
        await _sort_recommended(pilot, main)
        assert "nothing marked yet: in import order" in app.export_screenshot().replace("&#160;", " ")
        assert [int(i) for i in main.results.indices] == list(range(len(lib)))
        await pilot.press("L")
        await until(pilot, lambda: any("nothing to learn from yet" in n.message for n in app._notifications))


@pytest.mark.slow  # (a few seconds: the model is built for the list, twice)
async def test_the_queue_kept_from_the_last_visit_says_how_far_to_read_at_once(tmp_path, make):
    """Quit in the recommended sort and come back: the list opens as the queue, and its header
    says how far to read without a key pressed (it said so only after a mark or a sort)."""
    lib, wanted = _labelled(tmp_path)
    ids = [p.id for p in lib.corpus]
    lib.marks.set_status([i for i in ids[:60] if i not in wanted], "skipped")
    lib.marks.set_status([i for i in ids[:60] if i in wanted], "to-read")
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await _sort_recommended(pilot, screen(app))
    again = make(Library(lib.folder))
    async with again.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert screen(again).sort == "recommended"
        await until(pilot, lambda: "wanted found; likely at most" in again.export_screenshot().replace("&#160;", " "))


@pytest.mark.slow  # (a few seconds: the model is built for the list)
async def test_a_list_of_filters_in_the_queues_order_says_why_each_paper_is_recommended(tmp_path, make):
    """In the recommended sort, a list of filters alone (status:unread, topic:14) is in the queue's
    order, and the reader says why a paper is recommended there too (it said so only for the whole
    library); a list ranked by its words does not."""
    import io

    from rich.console import Console

    lib, wanted = _labelled(tmp_path)
    ids = [p.id for p in lib.corpus]
    lib.marks.set_status([i for i in ids[:60] if i not in wanted], "skipped")
    lib.marks.set_status([i for i in ids[:60] if i in wanted], "to-read")
    app = make(lib)

    def reader_text() -> str:
        console = Console(width=300, file=io.StringIO(), record=True)
        console.print(screen(app).query_one("#reader-body").content)
        return console.export_text()

    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await _sort_recommended(pilot, screen(app))
        await pilot.press("slash", *"status:unread", "enter")
        await settle(pilot)
        await until(pilot, lambda: "recommended because:" in reader_text())
        screen(app).search_box.value = ""
        await pilot.press("slash", *"policy", "enter")
        await settle(pilot)
        assert screen(app).search_box.value == "policy" and len(screen(app).results.indices)
        assert "recommended because:" not in reader_text()
