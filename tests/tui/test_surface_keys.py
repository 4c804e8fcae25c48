"""The surface test of the keys: every action of keymap.toml, by each of its keys, in the context
where it works, and the triage keys again from the reader and through the command palette, on the
bundled sample and on 2,000 real papers. Each must do what its name says (tests/surface_actions.py),
leave the app running with no error said or logged, and the app must start again on the state
that session saved. Generated from keymap.toml: a new key without a scenario fails here."""

from __future__ import annotations

import webbrowser

import pytest

from store import Library
from tui.commands import NOT_IN_PALETTE, PALETTE_CONTEXTS

from ..surface import SLICE, Drive, app_for, every_action, every_key, library_copy, reopens
from ..surface_actions import CONTEXT, SCENARIOS, enter

READER_TOO = [a for a in every_action() if a.split(".")[0] in ("main", "app")]
PALETTE = [a for a in every_action() if a.split(".")[0] in PALETTE_CONTEXTS and a not in NOT_IN_PALETTE
           and a != "app.quit"]


def test_every_action_of_keymap_toml_has_a_scenario():
    assert set(every_action()) - set(SCENARIOS) == set(), "actions with no scenario in tests/surface_actions.py"
    assert set(SCENARIOS) - set(every_action()) == set(), "scenarios of actions keymap.toml no longer has"


@pytest.fixture(scope="session")
def sample_template(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sample") / "lib"
    Library.open(folder)  # the app's first start: the bundled sample
    return folder


@pytest.fixture(scope="session")
def slice_template(tmp_path_factory):
    folder = tmp_path_factory.mktemp("slice") / "lib"
    lib = Library.open(folder, seed_if_new=False)
    lib.paper_changes.import_paths([SLICE])
    lib.discovery.prepare_similarity_cache()
    return folder


@pytest.fixture
def person(tmp_path, monkeypatch):
    """A person's environment: no system clipboard, a home of their own, a browser that records."""
    monkeypatch.setenv("PAPERSIFT_NO_SYSTEM_CLIPBOARD", "1")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    return opened


async def drive(template, tmp_path, opened, steps: list[tuple[str, str, str, str]], restart: bool = True) -> None:
    """One app session on a copy of ``template`` that fires each step's action (id, context, how:
    "key" or "palette", key) from its context and checks its effect and the app's health; then
    quits, and (``restart``) starts the app again on what that session saved."""
    lib = library_copy(template, tmp_path / "lib")
    app = app_for(lib, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        d = Drive(app, pilot, tmp_path)
        d.opened = opened
        await d.settle()
        for action_id, context, how, key in steps:
            await enter(d, context)
            d.key_fired = action_id
            d.new_notices()
            opened.clear()

            async def fire(how: str = how, key: str = key, action_id: str = action_id) -> None:
                if how == "palette":
                    await palette_run(d, d.main_registry_description(action_id))
                else:
                    await d.press(key)

            await SCENARIOS[action_id](d, fire)
            if not app.is_running:
                break
            d.check_healthy(f"{action_id} by {how} {key} from {context}")
        if app.is_running:
            await d.back_to_list()
            await pilot.press(d.key("app.quit"))
            await pilot.pause()
    assert app.return_code == 0, f"exit status {app.return_code}"
    if restart:
        await reopens(lib.folder, tmp_path)


async def palette_run(d: Drive, description: str) -> None:
    """ctrl+p, the description typed, and enter on the hit that is exactly it (a fuzzy match may
    rank another first: "Open" before "Open link")."""
    from textual.command import CommandList

    from textual.widgets import Input

    await d.press("ctrl+p")
    d.app.screen.query_one(Input).value = description  # as typed (one search instead of one a letter)
    await d.pilot.pause(0.2)
    await d.settle()
    hits = d.app.screen.query_one(CommandList)
    prompts = [str(hits.get_option_at_index(i).prompt).split("\n")[0] for i in range(hits.option_count)]
    assert description in prompts, (description, prompts)
    for _ in range(prompts.index(description) - (hits.highlighted or 0)):
        await d.press("down")
    await d.press("enter")


def context_of(action_id: str) -> str:
    return CONTEXT.get(action_id.split(".")[0], "list")


def by_context() -> dict[str, list[str]]:
    """The actions grouped by the context they are driven from, app.quit last (it ends a session)."""
    groups: dict[str, list[str]] = {}
    for action_id in every_action():
        groups.setdefault(context_of(action_id), []).append(action_id)
    groups["list"].sort(key=lambda a: a == "app.quit")
    return groups


# The contexts of a few keys each (a dialog's) share one app session: an app started and started
# again costs ~2.5 s, more than their keys. Each step still enters its context from the list.
BUSY = ("list", "reader", "search", "tags")


def sessions() -> dict[str, list[str]]:
    """The contexts each app session drives: each busy one alone, and the dialogs' together (the
    fetch and the import last: into the untouched sample, the first of them replaces the sample)."""
    contexts = sorted(by_context(), key=lambda c: (c in ("fetch", "import"), c == "import"))
    return {**{c: [c] for c in BUSY}, "dialogs": [c for c in contexts if c not in BUSY]}


def test_every_context_is_in_a_session():
    driven = [c for group in sessions().values() for c in group]
    assert sorted(driven) == sorted(by_context()) and len(driven) == len(set(driven))


@pytest.mark.parametrize("session", sorted(sessions()))
async def test_every_key_on_the_sample(session, sample_template, tmp_path, person):
    keys = [(a, k) for a, k in every_key() if context_of(a) in sessions()[session]]
    keys.sort(key=lambda ak: ak[0] == "app.quit")  # (it ends the session)
    # The sessions that change the library most start it again here; every session does on 2,000
    # papers (the slow tier), and the key sweep does in a real terminal.
    await drive(sample_template, tmp_path, person, [(a, context_of(a), "key", k) for a, k in keys],
                restart=session in ("list", "dialogs"))


@pytest.mark.slow  # (the key surface on the sample, every context, stays in the fast tier)
async def test_triage_keys_from_the_reader(sample_template, tmp_path, person):
    steps = [(a, "reader", "key", first_key(a)) for a in READER_TOO if a != "app.quit"]
    await drive(sample_template, tmp_path, person, steps + [("app.quit", "reader", "key", first_key("app.quit"))])


@pytest.mark.slow  # (the key surface on the sample, every context, stays in the fast tier)
async def test_actions_from_the_command_palette(sample_template, tmp_path, person):
    # (each from where its key works: the reader's J from the reader, an earlier search from the box)
    await drive(sample_template, tmp_path, person, [(a, context_of(a), "palette", "") for a in PALETTE])


@pytest.mark.slow  # (the key surface on the sample, every context, stays in the fast tier)
@pytest.mark.parametrize("session", sorted(sessions()))
async def test_every_action_on_2000_real_papers(session, slice_template, tmp_path, person):
    await drive(slice_template, tmp_path, person, [(a, context, "key", first_key(a)) for context in sessions()[session]
                                                   for a in by_context()[context]])


def first_key(action_id: str) -> str:
    return next(k for a, k in every_key() if a == action_id)


@pytest.mark.slow  # (one session through every dialog, ~3 s)
async def test_every_dialog_footer_offers_its_shown_keys(sample_template, tmp_path, person):
    """Each dialog's footer offers every key its screen shows (keymap.toml's actions of that context
    whose binding is shown): the topic browser's list took enter for itself, and its footer offered
    only "esc Close topics". Generated from keymap.toml: a new dialog key is checked the day it is added."""
    from textual.widgets._footer import FooterKey

    from tui.keymap import REGISTRY, default_keymap

    lib = library_copy(sample_template, tmp_path / "lib")
    app = app_for(lib, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        d = Drive(app, pilot, tmp_path)
        await d.settle()
        for context in sessions()["dialogs"]:  # (every context of keymap.toml but the main screen's)
            await enter(d, context)
            await d.settle()
            offered = {k.key for k in app.screen.query(FooterKey)}
            for action_id in by_context()[context]:
                info = REGISTRY.get(action_id)
                if info is not None and info.show:
                    assert set(default_keymap().get(action_id)) & offered, (context, action_id, offered)
            await d.back_to_list()
