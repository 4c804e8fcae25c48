"""The team in the app: the team screen's rows, the reader's line of other members' marks, the
assignee in the list, the team-stars sort, and the team filters typed in the search box."""

from __future__ import annotations

import pytest
from rich.console import Console

from store.library import Library
from tui.app import make_app
from tui.screens.team import TeamScreen
from tui.team_view import team_table
from tui.widgets.reader import Reader

from ..conftest import wait_workers


def _text(renderable) -> str:
    console = Console(width=160, record=True)
    console.print(renderable)
    return console.export_text()


def _lab(folder) -> tuple[Library, list[str]]:
    """The sample split between ana and ben; ana stars two papers, ben skips one of them."""
    lib = Library.open(folder, member="lead")
    ids = [p.id for p in lib.corpus]
    lib.team.assign(["ana", "ben"], ids)
    ana, ben = Library(folder, member="ana"), Library(folder, member="ben")
    ana.marks.set_star(ids[:2], 2)
    ana.marks.add_tags(ids[:1], ["rl"])
    ben.marks.set_status(ids[:1], "skipped")
    ben.marks.set_star(ids[2:3], 3)
    lib.refresh()
    return lib, ids


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_team_screen_lists_each_member(tmp_path):
    lib, ids = _lab(tmp_path / "lib")
    app = make_app(lib, settings_path=tmp_path / "settings.json", resume=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_workers(app, pilot)
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, TeamScreen)
        table = _text(team_table(lib))
        rows = {line.split()[0]: line for line in table.splitlines()[1:] if line.strip()}
        assert set(rows) == {"ana", "ben"}  # (lead only assigned the papers: no member of the lab)
        assert "2 (4★)" in rows["ana"] and "0% of 1" in rows["ana"] and "1 (3★)" in rows["ben"]
        assert "2 members" in _text(app.screen.query_one("Label").render())
        await pilot.press("escape")
        assert not isinstance(app.screen, TeamScreen)
        await pilot.press("w", "j", "enter")  # ben (the second row): his share in the list
        await wait_workers(app, pilot)
        main = app.main_screen
        assert main.query_text == "assigned:ben"
        assert sorted(main.results.shown_ids()) == sorted(p for p, who in lib.assignments.items() if who == "ben")
        await pilot.press("w", "m")  # (the screen opens on the first member, or on you): ana's marks
        await wait_workers(app, pilot)
        assert main.query_text == "by:ana" and sorted(main.results.shown_ids()) == sorted(ids[:2])
    lib.marks.set_star(ids[5:6], 1)  # a mark of their own: lead is a member now
    rows = {line.split()[0]: line for line in _text(team_table(lib)).splitlines()[1:] if line.strip()}
    assert set(rows) == {"ana", "ben", "lead"} and "(you)" in rows["lead"]


@pytest.mark.slow
async def test_a_member_opens_on_their_share_and_one_key_shows_the_whole_library(tmp_path):
    """--as ana opens on the papers assigned to ana, and the header says so; esc shows the whole
    library; the member filters read ana's own marks (status-by:ana:to-read)."""
    lib, ids = _lab(tmp_path / "lib")
    ana = Library(lib.folder, member="ana")
    share = [pid for pid, name in ana.assignments.items() if name == "ana"]
    ana.marks.set_status(share[:3], "to-read")
    app = make_app(Library(lib.folder, member="ana"), settings_path=tmp_path / "settings.json")
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_workers(app, pilot)
        await pilot.pause(0.1)
        await wait_workers(app, pilot)
        main = app.main_screen
        from tui.widgets.header import TriageHeader
        header = main.query_one(TriageHeader)
        assert main.query_text == "assigned:ana" and sorted(main.results.shown_ids()) == sorted(share)
        assert "ana's share (assigned:ana)" in (header._shown or "")
        await pilot.press("escape")
        await wait_workers(app, pilot)
        await pilot.pause(0.1)
        assert main.query_text == "" and len(main.results.shown_ids()) == len(lib)
        assert "share" not in (header._shown or "")
        await pilot.press("slash")
        await pilot.press(*"assigned:ana status-by:ana:to-read")
        await pilot.press("enter")
        await wait_workers(app, pilot)
        assert sorted(main.results.shown_ids()) == sorted(share[:3])
    lead = make_app(Library(lib.folder, member="lead"), settings_path=tmp_path / "lead.json")
    async with lead.run_test(size=(140, 40)) as pilot:  # no share of their own: the whole library
        await wait_workers(lead, pilot)
        assert lead.main_screen.query_text == "" and len(lead.main_screen.results.shown_ids()) == len(lib)


@pytest.mark.slow
async def test_reader_and_list_show_everyones_marks(tmp_path):
    lib, ids = _lab(tmp_path / "lib")
    app = make_app(lib, settings_path=tmp_path / "settings.json", resume=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_workers(app, pilot)
        main = app.main_screen
        assert main.current_paper_id() == ids[0]
        from tui.widgets.header import TriageHeader
        assert "· as lead " in (main.query_one(TriageHeader)._shown or "")  # who you are, in a lab's library
        line = app.screen.query_one(Reader).team_line(ids[0])
        assert line is not None
        said = line.plain
        assert said.startswith("assigned to ") and "ana ★★ #rl" in said and "ben skipped" in said
        Library(lib.folder, member="ben").marks.set_note(ids[0], "short and to the point")
        Library(lib.folder, member="ana").marks.set_note(ids[0], " ".join(f"word{i}" for i in range(30)))
        lib.refresh()
        said = app.screen.query_one(Reader).team_line(ids[0]).plain  # type: ignore[union-attr]
        assert "ben skipped “short and to the point”" in said  # (whole)
        cut = said[said.index("“word0"):said.index("”") + 1]
        assert cut.endswith(" word11…”") and len(cut) <= 82, said  # (its start, after a whole word, said to be cut)
        row = main.results._row_text(0).plain
        assert "→" + lib.assignments[ids[0]] in row
        main.sort = "team-stars"
        await pilot.press("slash")
        await pilot.press(*"team-star:>=2")
        await pilot.press("enter")
        await wait_workers(app, pilot)
        shown = main.results.shown_ids()
        assert set(shown) == {ids[0], ids[1], ids[2]}
        await pilot.press("slash")
        for _ in range(len("team-star:>=2")):
            await pilot.press("backspace")
        await pilot.press(*"split:")
        await pilot.press("enter")
        await wait_workers(app, pilot)
        assert main.results.shown_ids() == [ids[0]]


@pytest.mark.slow
async def test_each_member_comes_back_to_their_own_place(tmp_path):
    """One library, one settings file: ana leaves the app on a search; ben, opening it next, gets
    his share, not ana's search; ana, back, gets her search."""
    lib, ids = _lab(tmp_path / "lib")
    settings = tmp_path / "settings.json"
    app = make_app(Library(lib.folder, member="ana"), settings_path=settings)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_workers(app, pilot)
        app.main_screen.search_box.value = "diffusion"
        await wait_workers(app, pilot)
        await pilot.pause(0.1)
        await pilot.press("ctrl+q")
    app = make_app(Library(lib.folder, member="ben"), settings_path=settings)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_workers(app, pilot)
        await pilot.pause(0.1)
        assert app.main_screen.query_text == "assigned:ben"
    app = make_app(Library(lib.folder, member="ana"), settings_path=settings)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_workers(app, pilot)
        await pilot.pause(0.1)
        assert app.main_screen.query_text == "diffusion"
