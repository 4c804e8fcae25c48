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
    lib.lab.assign(["ana", "ben"], ids)
    ana, ben = Library(folder, member="ana"), Library(folder, member="ben")
    ana.set_star(ids[:2], 2)
    ana.add_tags(ids[:1], ["rl"])
    ben.set_status(ids[:1], "skipped")
    ben.set_star(ids[2:3], 3)
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
        assert set(rows) == {"ana", "ben", "lead"}
        assert "4 on 2" in rows["ana"] and "0% of 1" in rows["ana"] and "3 on 1" in rows["ben"]
        assert "(you)" in rows["lead"]
        await pilot.press("escape")
        assert not isinstance(app.screen, TeamScreen)


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
