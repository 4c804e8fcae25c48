"""The command palette (ctrl+p, tui/commands.py): every action a key does, generated from
keymap.toml, and the command line's commands that make sense in the app, each run as a person
runs it (ctrl+p, its name typed, enter)."""

from __future__ import annotations

import pytest
from textual.command import CommandList
from textual.widgets import Input

from tui.commands import CLI_COMMANDS, IN_DIALOGS, NOT_IN_PALETTE
from tui.keymap import REGISTRY, default_keymap

from .driving import screen, settle

KEYMAP = sorted(default_keymap())


async def palette_prompts(pilot, typed: str = "") -> list[str]:
    """The palette's entries (their first line) for ``typed``, as it lists them."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    pilot.app.screen.query_one(Input).value = typed
    await pilot.pause(0.3)
    hits = pilot.app.screen.query_one(CommandList)
    return [str(hits.get_option_at_index(i).prompt).split("\n")[0] for i in range(hits.option_count)]


async def run_command(pilot, name: str) -> None:
    prompts = await palette_prompts(pilot, name)
    assert name in prompts, (name, prompts)
    hits = pilot.app.screen.query_one(CommandList)
    for _ in range(prompts.index(name) - (hits.highlighted or 0)):
        await pilot.press("down")
    await pilot.press("enter")
    await settle(pilot)


def test_every_action_of_keymap_toml_is_offered_or_said_why_not():
    """A new key is in the palette the day it is added, or named here with the reason it is not."""
    for action_id in KEYMAP:
        context = action_id.split(".")[0]
        assert action_id not in NOT_IN_PALETTE or context not in IN_DIALOGS, action_id
    stale = (set(NOT_IN_PALETTE) - set(KEYMAP)) | (set(IN_DIALOGS) - {a.split(".")[0] for a in KEYMAP})
    assert not stale, f"said not to be in the palette, but keymap.toml has no such action or context: {stale}"
    for context, opener in IN_DIALOGS.items():
        assert opener in KEYMAP and opener.split(".")[0] not in IN_DIALOGS, (context, opener)


async def test_the_palette_lists_every_bound_action(lib, make):
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        prompts = await palette_prompts(pilot)
        listed = set(prompts)
        offered = [a for a in KEYMAP if a not in NOT_IN_PALETTE and a.split(".")[0] not in IN_DIALOGS]
        missing = [a for a in offered if REGISTRY[a].description not in listed]
        assert not missing, f"bound actions the palette does not offer: {missing}"
        assert {name for name, _, _ in CLI_COMMANDS} <= listed
        assert prompts.count("Quit") == 1  # (ours, with its key: not Textual's too)


@pytest.mark.parametrize("name, key", [("Next paper", "reader.next_paper"), ("Previous paper", "reader.prev_paper")])
async def test_the_readers_keys_run_from_the_palette(lib, make, name, key):
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("j", "j")
        await run_command(pilot, name)
        assert screen(app).results.cursor == (3 if key == "reader.next_paper" else 1)


async def test_an_earlier_search_from_the_palette(lib, make):
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"agent", "enter", "escape")
        await settle(pilot)
        assert screen(app).query_text == ""
        await run_command(pilot, "Earlier search")
        assert screen(app).query_text == "agent"


async def test_recommendations_from_the_palette(lib, make):
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("plus")  # a star to learn from
        await run_command(pilot, "Recommendations")
        assert screen(app).query_text == "rec:stars" and len(screen(app).results.indices)


@pytest.mark.parametrize("name, command", [("Archive old skipped papers", "archive --skipped-before")])
async def test_commands_that_need_arguments_say_the_command_line(lib, make, name, command):
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run_command(pilot, name)
        said = [n.message for n in app._notifications]
        assert any("papersift" in m and command in m and str(lib.folder) in m for m in said), said


async def test_sync_from_the_palette_says_how_to_set_it_up_without_a_repository(lib, make):
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run_command(pilot, "Sync with the lab")
        said = [n.message for n in app._notifications]
        assert any("sync REMOTE" in m and str(lib.folder) in m for m in said), said


async def test_sync_from_the_palette_syncs_a_library_with_a_repository(lib, make, tmp_path):
    import shutil
    import subprocess
    if shutil.which("git") is None:
        pytest.skip("sync runs the git program")
    from store.sync.library_sync import sync
    remote = tmp_path / "lab.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    sync(lib, str(remote))
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for _ in range(300):  # (the sync the app starts as it opens)
            if not screen(app).lab_sync._running:
                break
            await pilot.pause(0.1)
        await run_command(pilot, "Sync with the lab")
        said = [n.message for n in app._notifications]
        assert any("syncing with the lab" in m for m in said), said
