"""Hostile data never crashes the app, never reaches the terminal raw, never leaves in an export.

A paper whose every field holds markup-like brackets ("[/dim]", "[bold]", "[link=…]", "a[b") and
escape sequences (OSC 52 clipboard writes, ESC, BEL, C1, U+202E) is driven through every display
path: the app (Pilot), the CLI (real subprocesses), every export format and back through
import-annotations.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store import Library
from store.exchange.export import FORMATS, export_text
from store.tags import tag_problem
from store.safe_text import display_safe
from tui.app import make_app

MARKUP = "[/dim] [bold]x [link=https://evil.example]y a[b ]"
OSC52 = "\x1b]52;c;aGVsbG8=\x07"
CONTROLS = ("\x1b", "\x07", "\x85", "\x9b", "\u202e", "\u2028", "\U000e0041")
TAG_WITH_BRACKET = "a[b"


def hostile_jsonl(path, extra: str = "") -> None:
    """One paper with markup in every field, one with escape sequences in every field, one plain."""
    rows = [
        {"title": f"Brackets {MARKUP}", "abstract": f"An abstract with {MARKUP} in it, about graph brackets. " * 3,
         "authors": ["Ann [bold]Lee[/bold]", "Bob [/dim]Ray"], "keywords": ["[/dim]kw", "[link=x]k2"]},
        {"title": f"Escapes {OSC52}title\u202ereversed", "abstract": f"An abstract {OSC52} with \x1b[31mred\x1b[0m,"
         f" a bell\x07, a C1 \x85 and \u202eRTL in it. {extra}" * 3, "authors": [f"Eve {OSC52}Hacker"]},
        {"title": "A plain paper", "abstract": "Nothing to see here, only a plain abstract about graphs. " * 3},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture
def hostile_lib(tmp_path):
    src = tmp_path / "hostile.jsonl"
    hostile_jsonl(src)
    lib = Library.open(tmp_path / "lib", seed_if_new=False)
    lib.paper_changes.import_paths([src])
    return lib


def shown(widget) -> str:
    """What a Static shows, as plain text (its content rendered by Rich, wide enough not to wrap)."""
    import io

    from rich.console import Console
    console = Console(width=400, file=io.StringIO(), record=True)
    console.print(widget.content)
    return console.export_text()


def strings(obj):
    """Every string inside parsed JSON."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings(v)


def _ids(lib):
    return [p.id for p in lib.corpus.papers]


# ------------------------------------------------------------------ the app
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_every_app_view_shows_brackets_literally_and_never_crashes(hostile_lib, tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERSIFT_NO_SYSTEM_CLIPBOARD", "1")
    lib = hostile_lib
    first, second, _ = _ids(lib)
    lib.marks.add_tags([first], [TAG_WITH_BRACKET, "[/dim]", "[bold]"])
    lib.marks.set_note(first, f"my note {MARKUP}")
    lib.marks.set_status([first], "to-read")
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(160, 45)) as pilot:   # a library that once crashed the app opens
        await pilot.pause()
        main = app.main_screen
        reader = shown(main.query_one("#reader-body"))
        assert "[/dim] [bold]x [link=https://evil.example]y a[b ]" in reader
        assert "#a[b #[/dim] #[bold]" in reader and f"my note {MARKUP}" in reader
        panel = main.query_one("#tags")
        assert "#a[b #[/dim] #[bold]" in shown(panel.query_one("#paper-tags"))
        prompts = [str(panel.query_one("#all-tags").get_option_at_index(i).prompt)
                   for i in range(panel.query_one("#all-tags").option_count)]
        assert any(p.startswith("#a[b") for p in prompts) and any(p.startswith("#[/dim]") for p in prompts)

        await pilot.press("t", *"x[y", "enter")        # typing a bracket in the tag box
        await pilot.pause()
        assert "x[y" in lib.annotation(first).tags
        await pilot.press("escape", "j")                # the escape-sequence paper
        await pilot.pause()
        body = shown(main.query_one("#reader-body"))
        assert not any(c in body for c in CONTROLS)
        for key, close in (("d", "escape"), ("b", "escape"), ("question_mark", "escape")):
            await pilot.press(key)                       # dashboard, topics, help
            await pilot.pause(0.3)
            await pilot.press(close)
            await pilot.pause()
        await pilot.press("slash", *"[/dim]", "enter")   # a search for markup
        await pilot.pause(0.3)
        app.notify(f"a notice quoting {MARKUP}")         # notices are plain text
        await pilot.pause()
    assert app.return_code in (None, 0)


def test_the_tag_panel_rows_are_text_not_markup():
    from tui.widgets.tagpanel import tag_prompt
    row = tag_prompt("[/dim]", "3")
    assert row.plain == "#[/dim] 3"  # as markup, "[/dim]" would vanish (or crash)


# ------------------------------------------------------------------ the CLI
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_bracket_tag_then_the_app_starts(run_cli, seeds_dir):
    """The report's repro: a tag 'a[b', then every start crashed. The app is opened for real
    (headless, by `papersift --help`-free means: the library opens and lists) and doctor is clean."""
    run_cli("import", str(seeds_dir))
    pid = json.loads(run_cli("list", "--format", "json", "--limit", "1").stdout)[0]["id"]
    run_cli("tag", pid, "a[b")
    out = run_cli("list", "--query", "tag:a[b").stdout
    assert "#a[b" in out
    doctor = run_cli("doctor", check=False)
    assert "control" not in doctor.stdout


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_control_characters_in_a_tag_are_refused_at_the_door(run_cli, seeds_dir):
    run_cli("import", str(seeds_dir))
    pid = json.loads(run_cli("list", "--format", "json", "--limit", "1").stdout)[0]["id"]
    for hostile in (f"x{OSC52}", "ab\u202ecd", "zero\u200bwidth", "bell\x07", "x\U000e0041y"):
        proc = run_cli("tag", pid, hostile, check=False)
        assert proc.returncode == 1 and "control or invisible characters" in proc.stderr
        assert not any(c in proc.stderr for c in CONTROLS)
    assert json.loads(run_cli("show", pid, "--format", "json").stdout)["tags"] == []
    assert tag_problem("ok-tag") is None


def _store_raw_tag(folder, pid: str, tag: str) -> None:
    """A tag an older papersift let in, written straight into the annotations file."""
    lib = Library(folder)
    lib.marks.add_tags([pid], ["placeholder"])
    lib.store.compact()
    path = folder / "annotations.json"
    data = orjson.loads(path.read_bytes())
    for rec in data["annotations"].values():
        rec["tags"] = [tag if t == "placeholder" else t for t in rec["tags"]]
    path.write_bytes(orjson.dumps(data))


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_stored_hostile_tag_never_reaches_the_terminal_and_doctor_cleans_it(run_cli, seeds_dir):
    run_cli("import", str(seeds_dir))
    pid = json.loads(run_cli("list", "--format", "json", "--limit", "1").stdout)[0]["id"]
    _store_raw_tag(run_cli.library, pid, f"x{OSC52}\u202e")
    outputs = [run_cli(*args).stdout + run_cli(*args).stderr for args in (
        ("list", "--format", "plain"), ("list",), ("show", pid), ("tags",), ("history",), ("stats",),
        ("list", "--format", "json"), ("search", "the"))]
    for out in outputs:
        assert not any(c in out for c in CONTROLS), out
    doctor = run_cli("doctor", check=False)
    assert doctor.returncode != 0 and "control or invisible" in doctor.stdout
    assert "\\x1b" in doctor.stdout and "\x1b" not in doctor.stdout
    repaired = run_cli("doctor", "--repair")
    assert "cleaned the tags of 1 annotation" in repaired.stdout
    backups = list((run_cli.library / "backups").glob("annotations.json.*clean-tags.bak"))
    kept = orjson.loads(backups[0].read_bytes())["annotations"]     # the file as it was, kept
    assert [f"x{OSC52}\u202e"] == [t for rec in kept.values() for t in rec["tags"]]
    tags = json.loads(run_cli("show", pid, "--format", "json").stdout)["tags"]
    assert tags == ["x"]   # the whole escape sequence went, not only its ESC
    assert run_cli("doctor").returncode == 0


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_import_annotations_cleans_a_colleagues_hostile_tags(run_cli, seeds_dir, tmp_path):
    run_cli("import", str(seeds_dir))
    papers = json.loads(run_cli("list", "--format", "json", "--limit", "2").stdout)
    theirs = tmp_path / "theirs.jsonl"
    theirs.write_text(json.dumps({**papers[0], "tags": [f"evil{OSC52}", "fine", "\u202e\u200b"]}) + "\n")
    proc = run_cli("import-annotations", str(theirs))
    assert "warning" in proc.stdout and "read as #evil" in proc.stdout
    assert "dropped" in proc.stdout
    assert not any(c in proc.stdout for c in CONTROLS)
    tags = json.loads(run_cli("show", papers[0]["id"], "--format", "json").stdout)["tags"]
    assert tags == ["evil", "fine"]


# ------------------------------------------------------------------ exports
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_no_export_carries_a_control_character(hostile_lib, fmt):
    lib = hostile_lib
    for pid in _ids(lib):
        lib.marks.add_tags([pid], ["fine"])
        lib.marks.set_note(pid, f"note {OSC52} with \x1b[2J and \u202e and \x85 and a\rcarriage return"
                                "\u2028pasted from a pdf, an invisible x\U000e0041y")
        lib.marks.set_status([pid], "to-read")
    data = export_text(lib.pairs(""), fmt, abstracts=True).encode("utf-8")
    for c in CONTROLS:
        assert c.encode("utf-8") not in data, (fmt, c)
    if fmt in ("json", "jsonl", "csl-json"):   # the JSON family keeps every character, as an escape
        assert b"\\u001b" in data and b"\\u202e" in data
        docs = [json.loads(line) for line in data.decode().splitlines()] if fmt == "jsonl" else [json.loads(data)]
        assert any(OSC52 in text for text in strings(docs))


# ------------------------------------------------------------------ property
_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tags=st.lists(_text, min_size=1, max_size=3), note=_text)
@pytest.mark.slow
def test_any_tag_and_note_store_export_and_merge_back(tmp_path_factory, tags, note):
    """Tags and notes from the whole of Unicode: a refused tag is refused with a message (never an
    exception of another kind); what was accepted goes through every export with no control
    character outside JSON, and comes back exactly through import-annotations."""
    from store.errors import PapersiftError
    from store.exchange.merge import plan_merge, read_annotation_records

    base = tmp_path_factory.mktemp("prop")
    src = base / "one.jsonl"
    src.write_text(json.dumps({"title": "T", "abstract": "A small abstract about property tests. " * 3}) + "\n")
    lib = Library.open(base / "a", seed_if_new=False)
    lib.paper_changes.import_paths([src])
    pid = lib.corpus.papers[0].id
    accepted = []
    for tag in tags:
        try:
            lib.marks.add_tags([pid], [tag])
            accepted.append(tag)
        except PapersiftError as exc:
            assert str(exc) == display_safe(str(exc))  # the refusal itself is printable
    lib.marks.set_note(pid, note)
    for fmt in FORMATS:
        data = export_text(lib.pairs(""), fmt, abstracts=True)
        if fmt not in ("json", "jsonl", "csl-json"):
            assert not any(c in data for c in CONTROLS), fmt
    out = base / "export.json"
    out.write_text(export_text(lib.pairs(""), "json"))
    other = Library.open(base / "b", seed_if_new=False)
    other.paper_changes.import_paths([src])
    changes, _ = plan_merge(other, read_annotation_records(out), source="export.json")
    other.replace_annotations(changes.values(), "import-annotations", "test")
    assert other.annotation(pid).tags == lib.annotation(pid).tags
    assert other.annotation(pid).note == lib.annotation(pid).note


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_long_note_shows_its_start_in_the_reader(lib, tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERSIFT_NO_SYSTEM_CLIPBOARD", "1")
    a = lib.corpus.papers[1].id
    lib.marks.set_note(a, "start of the note. " + "word " * 19_000)
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("j")
        await pilot.pause(0.3)
        body = shown(app.main_screen.query_one("#reader-body"))
        assert "start of the note." in body and "more characters; e opens it)" in body
        assert body.count("word") < 500


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_note_over_the_cap_is_refused_clearly(run_cli, tmp_path):
    pid = json.loads(run_cli("list", "--format", "json", "--limit", "1").stdout)[0]["id"]
    proc = run_cli("note", pid, "-", input="z" * 100_001, check=False)
    assert proc.returncode == 1 and "a note holds at most 100,000" in proc.stderr
    theirs = tmp_path / "theirs.jsonl"
    rec = json.loads(run_cli("list", "--format", "json", "--limit", "1").stdout)[0]
    theirs.write_text(json.dumps({**rec, "note": "q" * 200_000, "status": "read"}) + "\n")
    out = run_cli("import-annotations", str(theirs)).stdout
    assert "their note is not taken" in out
    shown_paper = json.loads(run_cli("show", pid, "--format", "json").stdout)
    assert shown_paper["status"] == "read" and shown_paper["note"] == ""


# ------------------------------------------------------------------ memory before refusal
def _peak_kb(argv: list[str], env: dict) -> tuple[int, int, str]:
    """Run argv in a fresh child of a fresh Python: (exit status, its peak RSS in KB, stderr)."""
    import subprocess
    import sys
    probe = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
             "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); print(p.stderr)")
    out = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, env=env, timeout=600).stdout
    first, _, err = out.partition("\n")
    rc, kb = map(int, first.split())
    return rc, kb, err


@pytest.mark.slow
def test_a_huge_paragraph_is_refused_before_the_file_is_in_memory(run_cli, tmp_path):
    import os
    big = tmp_path / "one.txt"
    with open(big, "w") as fh:
        fh.write("A header\n\n")
        words = "graph neural diffusion policy bound sample robust attention " * 1000
        while fh.tell() < 50_000_000:
            fh.write(words)
    env = {**os.environ, "PAPERSIFT_LIBRARY": str(tmp_path / "lib")}
    rc, kb, err = _peak_kb([*run_cli.cmd, "import", str(big)], env)
    assert rc == 1 and "one.txt, line 3: an abstract is at most 100,000 characters, and the paragraph starting here" in err
    assert kb <= 150 * 1024, f"peak {kb // 1024} MB refusing a 50 MB paragraph"
    assert not (tmp_path / "lib" / "corpus.jsonl").exists()


@pytest.mark.slow
def test_long_abstracts_import_in_bounded_memory(run_cli, tmp_path):
    """600 valid abstracts of 90,000 characters (54 MB): MinHash runs in bounded passes."""
    import os
    import random
    import string
    rng = random.Random(2)
    vocab = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 10))) for _ in range(60_000)]
    src = tmp_path / "long.txt"
    with open(src, "w") as fh:
        for _ in range(600):
            fh.write(" ".join(rng.choice(vocab) for _ in range(14_000))[:90_000] + ".\n\n")
    env = {**os.environ, "PAPERSIFT_LIBRARY": str(tmp_path / "lib")}
    rc, kb, err = _peak_kb([*run_cli.cmd, "import", str(src)], env)
    assert rc == 0, err
    assert kb <= 1024 * 1024, f"peak {kb // 1024} MB importing 54 MB of long abstracts"
    listed = run_cli("list", "--format", "json", "--limit", "1000", library=tmp_path / "lib").stdout
    assert len(json.loads(listed)) == 600


def test_a_tag_of_escape_codes_alone_is_seen_escaped_never_run_nor_empty():
    from store.safe_text import shown_label
    assert shown_label("rl") == "rl"
    shown = shown_label("\x1b]0;pwned\x07")
    assert shown and "\x1b" not in shown and "\x07" not in shown and "\\x1b" in shown



def test_a_team_file_carries_no_control_line_separator_or_invisible_character_raw():
    """`export --format team` to a terminal printed a C1 CSI and a bidi override from a note raw; a
    U+2028 in it made the file's one record two broken lines for every reader splitting lines."""
    from store.exchange.annotation_files import read_annotation_records
    from store.exchange.team_file import team_text
    from store.records import Annotation
    note = "note \x9b31m end \u202e rev \u2028 second \x85 third x\U000e0041y"
    text = team_text("ana", [Annotation("0123456789ab", member="ana", status="read", note=note)])
    assert not any(c in text for c in CONTROLS) and len(text.splitlines()) == 2
    assert json.loads(text.splitlines()[1])["note"] == note  # (the same note, escaped)
    path = Path(tempfile.mkdtemp()) / "ana.jsonl"
    path.write_text(text.replace("\\u2028", "\u2028"), encoding="utf-8")  # as an older papersift wrote it: raw
    assert [rec["note"] for rec in read_annotation_records(path)] == [note]
