"""controllers.lab_sync: a lab's library with a git remote syncs as the app opens, the header says
when and what came, and a sync that cannot be made says why in one line."""

from __future__ import annotations

import asyncio
import shutil
import subprocess

import pytest

from store import Library
from store.sync.library_sync import sync
from tui.app import make_app
from tui.widgets.header import TriageHeader

from ..conftest import DATA, wait_workers

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="sync runs the git program")


def _lab(tmp_path):
    remote = tmp_path / "lab.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    ana = Library.open(tmp_path / "ana", seed_if_new=False, member="ana")
    ana.paper_changes.import_paths([DATA / "icml_slice.jsonl"])
    sync(ana, str(remote))
    ben = Library.open(tmp_path / "ben", seed_if_new=False, member="ben")
    sync(ben, str(remote))
    ids = [p.id for p in ben.corpus][:2]
    ben.marks.set_star(ids, 2)
    sync(ben)
    elsewhere = Library.open(tmp_path / "ana-desktop", seed_if_new=False, member="ana")  # ana's other copy
    sync(elsewhere, str(remote))
    elsewhere.marks.set_status(ids[:1], "to-read")
    sync(elsewhere)
    return remote, ids


async def _synced(app, pilot, timeout: float = 60) -> None:
    main = app.main_screen
    for _ in range(int(timeout / 0.1)):
        if not main.lab_sync._running:
            break
        await asyncio.sleep(0.1)
    main.sync.poll()  # (what the sync's process wrote, read as the screen does every 2 s)
    await wait_workers(app, pilot)
    await pilot.pause(0.1)


@pytest.mark.slow  # (a sync's process, ~2 s)
async def test_the_app_syncs_as_it_opens_and_the_header_says_what_came(tmp_path):
    remote, ids = _lab(tmp_path)
    app = make_app(Library(tmp_path / "ana", member="ana"), settings_path=tmp_path / "settings.json", resume=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_workers(app, pilot)
        await _synced(app, pilot)
        header = app.main_screen.query_one(TriageHeader)._shown or ""
        assert "synced just now · ben +2 marks; your +1 mark from another copy" in header
        await pilot.press("slash")
        await pilot.press(*"star-by:ben")
        await pilot.press("enter")
        await wait_workers(app, pilot)
        assert sorted(app.main_screen.results.shown_ids()) == sorted(ids)
        shutil.rmtree(remote)  # the remote is gone (offline): the next sync says so, nothing lost
        assert app.main_screen.lab_sync.run()
        await _synced(app, pilot)
        header = app.main_screen.query_one(TriageHeader)._shown or ""
        assert f"sync failed: no repository at {remote} (made once with: git init" in header
        assert len(Library(tmp_path / "ana").member_marks["ben"]) == 2


@pytest.mark.slow  # (two syncs' processes)
async def test_a_share_the_first_sync_brings_is_where_the_list_goes(tmp_path):
    """ben's library had no share when the app opened (the lead assigned the papers since): the
    app's first sync brings it, and the list goes to it, as an opening on a share does."""
    remote, ids = _lab(tmp_path)
    ana = Library(tmp_path / "ana", member="ana")
    sync(ana)
    ana.team.assign(["ana", "ben"], ana.team.untriaged(), None, new_members=True)
    sync(ana)
    ben = Library(tmp_path / "ben", member="ben")
    assert not ben.assignments
    app = make_app(ben, settings_path=tmp_path / "settings.json", resume=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_workers(app, pilot)
        await _synced(app, pilot)
        main = app.main_screen
        assert main.search_box.value == "assigned:ben"
        await wait_workers(app, pilot)
        shown = main.results.shown_ids()
        bens = {pid for pid, who in Library(tmp_path / "ben").assignments.items() if who == "ben"}
        assert shown and set(shown) == bens


@pytest.mark.slow
async def test_a_library_without_a_remote_never_syncs(tmp_path):
    lib = Library.open(tmp_path / "solo", member="ana")
    app = make_app(lib, settings_path=tmp_path / "settings.json", resume=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_workers(app, pilot)
        assert not app.main_screen.lab_sync.run()
        assert "synced" not in (app.main_screen.query_one(TriageHeader)._shown or "")
    assert not (tmp_path / "solo" / "sync").exists()


def test_quitting_the_app_syncs_once_more_and_says_so(tmp_path, capsys):
    from tui.cli.team import sync_on_quit
    remote, ids = _lab(tmp_path)
    ana = Library(tmp_path / "ana", member="ana")
    ana.marks.set_status(ids[:1], "read")
    sync_on_quit(ana)
    assert "ben +2 marks" in capsys.readouterr().err
    ben = Library(tmp_path / "ben", member="ben")
    sync(ben)
    assert Library(tmp_path / "ben").member_marks["ana"][ids[0]].status == "read"
    shutil.rmtree(remote)
    sync_on_quit(ana)
    assert capsys.readouterr().err.startswith(f"warning: sync: no repository at {remote}")
