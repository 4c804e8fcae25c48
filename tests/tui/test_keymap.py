"""keymap.toml and the code's bindings cannot drift apart."""

from __future__ import annotations

import importlib
import pkgutil
import tomllib

import tui
from store.locations import default_keymap_path
from textual.binding import Binding
from textual.dom import DOMNode
from tui.keymap import load_keymap, valid_key


def code_bindings() -> dict[str, Binding]:
    for mod in pkgutil.walk_packages(tui.__path__, "tui."):
        if not mod.name.endswith("__main__"):  # importing that would run the app
            importlib.import_module(mod.name)
    found: dict[str, Binding] = {}
    stack = [DOMNode]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if not cls.__module__.startswith("tui."):
            continue
        for b in cls.__dict__.get("BINDINGS", []):
            assert isinstance(b, Binding) and b.id, f"{cls.__name__}: every binding needs an id ({b})"
            found[b.id] = b
    return found


def toml_keymap() -> dict[str, list[str]]:
    data = tomllib.loads(default_keymap_path().read_text())
    return {f"{ctx}.{a}": ([v] if isinstance(v, str) else v) for ctx, t in data.items() for a, v in t.items()}


def test_every_binding_in_code_is_in_keymap_and_back():
    code, toml = code_bindings(), toml_keymap()
    assert set(code) == set(toml), f"only in code: {set(code) - set(toml)}; only in keymap.toml: {set(toml) - set(code)}"
    for action_id, b in code.items():
        assert b.key.split(",") == toml[action_id], action_id


def test_default_keys_are_valid_and_do_not_clash():
    for keys in toml_keymap().values():
        assert all(valid_key(k) for k in keys)
    keymap, problems = load_keymap(None)
    assert problems == []
    # and none is a key the text box of its context would take first (the shipped file, loaded as a user's)
    keymap, problems = load_keymap(default_keymap_path())
    assert problems == []


def test_issue_default_keys():
    km = toml_keymap()
    expected = {"main.search": "slash", "main.read": "r", "main.to_read": "a", "main.skipped": "s", "main.unread": "u",
                "main.star_up": "plus", "main.star_down": "minus", "main.tag": "t", "main.note": "e",
                "main.next_unread": "n", "main.prev_unread": "N", "main.undo": "z", "main.copy_abstract": "y",
                "main.copy_citation": "Y", "main.open_link": "o", "app.export": "x", "app.help": "question_mark",
                "app.quit": "q", "list.select": "space", "list.open_reader": "enter", "list.clear_filter": "escape",
                "list.first": "g", "list.last": "G"}
    for action_id, key in expected.items():
        assert key in km[action_id], action_id
    assert {"j", "down"} <= set(km["list.cursor_down"]) and {"k", "up"} <= set(km["list.cursor_up"])
    assert {"enter", "escape"} <= set(km["search.done"])


def test_an_oversized_keymap_is_refused_with_its_file_and_line(tmp_path):
    import time

    from tui.keymap import load_keymap
    big = tmp_path / "big.toml"
    big.write_text("[main]\nread = \"" + "x" * (10 * 1024 * 1024) + "\"\n")
    keymap, problems = load_keymap(big)
    assert keymap["main.read"] == "r" and "a keymap is at most 64 KB" in problems[0] and len(problems[0]) < 200
    long_name = tmp_path / "long.toml"
    long_name.write_text("[main]\nread = \"" + "x" * 5000 + "\"\n")
    keymap, problems = load_keymap(long_name)
    assert keymap["main.read"] == "r" and "long.toml, line 2" in problems[0] and "at most 32" in problems[0]
    assert len(problems[0]) < 300  # (the path is a temp folder's: the key itself is cut to 20 characters)
    many = tmp_path / "many.toml"
    many.write_text("[main]\nread = [" + ", ".join(f'"f{i % 12 + 1}"' for i in range(2000)) + "]\n")
    started = time.monotonic()
    keymap, problems = load_keymap(many)
    assert keymap["main.read"] == "r" and "2,000 keys; an action takes at most 8" in problems[0]
    assert time.monotonic() - started < 2


def test_keys_are_shown_as_a_reader_names_them():
    from tui.keymap import keys_shown
    assert keys_shown("slash") == "/" and keys_shown("escape") == "esc"
    assert keys_shown("g,home") == "g or home" and keys_shown("") == ""


def test_every_table_of_the_keymap_has_a_heading_in_help():
    """The help screen's key list is headed by context, each named as a person would ("Fetch
    dialog", not "fetch"): a table added to keymap.toml gets its heading the day it is added."""
    from tui.screens.help import CONTEXT_NAMES
    tables = tomllib.loads(default_keymap_path().read_text(encoding="utf-8"))
    assert set(tables) <= set(CONTEXT_NAMES), set(tables) - set(CONTEXT_NAMES)
    assert all(name[0].isupper() for name in CONTEXT_NAMES.values())


def test_a_screen_opened_by_a_rebound_key_is_closed_by_it(tmp_path):
    """`team = "W"` opened the team screen with W, but only the old w closed it (its close action
    kept the default key): the close takes the new key in place of the old, unless the screen
    binds that key to another of its actions, or the user set the close themselves."""
    from tui.keymap import TOGGLES

    keymap = tmp_path / "k.toml"
    keymap.write_text('[app]\nteam = "W"\nhelp = "f1"\ndashboard = "D"\n[main]\ntopics = "B"\n'
                      '[dashboard]\nclose = ["escape", "x"]\n')
    live, problems = load_keymap(keymap)
    assert not problems and {opener for opener, _ in TOGGLES} == {"app.help", "app.dashboard", "app.team", "main.topics"}
    assert (live["team.close"], live["help.close"], live["topics.close"]) == ("escape,q,W", "escape,q,f1", "escape,q,B")
    assert live["dashboard.close"] == "escape,x"  # (the user's own)
    keymap.write_text('[app]\nteam = "W"\n[team]\nmarks = "W"\n')  # (W is another action's there: not taken)
    live, problems = load_keymap(keymap)
    assert not problems and live["app.team"] == "W" and live["team.close"] == "escape,q"


async def test_the_rebound_team_key_opens_and_closes_the_team_screen(lib, make):
    app = make(lib, '[app]\nteam = "W"\n')
    async with app.run_test() as pilot:
        await pilot.press("W")
        await pilot.pause()
        assert type(app.screen).__name__ == "TeamScreen"
        await pilot.press("w")  # (the old key: nothing)
        await pilot.pause()
        assert type(app.screen).__name__ == "TeamScreen"
        await pilot.press("W")
        await pilot.pause()
        assert type(app.screen).__name__ == "MainScreen"
