"""The surface test of the command line: every subcommand answers --help, and one typical call of
each does what it says on a real library, through the real console script. Generated from the
parser: a new subcommand without a typical call here fails the first test. Plus the mistakes a
newcomer makes, each met with a hint and a non-zero status, and no library made by accident."""

from __future__ import annotations

import json
import shutil

import pytest

from tui.cli import command_names

from ..conftest import DATA, SEEDS, start_serve, stop


def ids_of(proc) -> list[str]:
    return [row["id"] for row in json.loads(proc.stdout)]


def first_id(run_cli) -> str:
    return ids_of(run_cli("list", "--format", "json"))[0]


def _open(run_cli, tmp_path):
    """The app in a real terminal (tmux): it opens on the library and quits with status 0."""
    from ..e2e.test_e2e_tmux import papersift_cmd, terminal
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (.ci/run installs it)")
    tmux, env = terminal(tmp_path, "surface")
    try:
        tmux.start(papersift_cmd() + "; echo EXIT=$?; sleep 30")
        tmux.wait_for("35 / 35")
        tmux.keys("q")
        tmux.wait_for("EXIT=0")
    finally:
        tmux.kill()


def _import(run_cli, tmp_path):
    dump = tmp_path / "one.txt"
    dump.write_text("Surface 2026 Papers\n\nWe teach a quadruped to open doors with a learned world model.\n")
    out = json.loads(run_cli("import", str(dump), "--format", "json").stdout)
    assert out["papers"] == 1 and out["new"] == 1, out


def _list(run_cli, tmp_path):
    assert len(ids_of(run_cli("list", "--format", "json"))) == 35


def _search(run_cli, tmp_path):
    rows = json.loads(run_cli("search", "everanimate", "--format", "json").stdout)
    assert "EverAnimate" in rows[0]["title"]


def _show(run_cli, tmp_path):
    pid = first_id(run_cli)
    assert json.loads(run_cli("show", pid, "--format", "json").stdout)["id"] == pid


def _status(run_cli, tmp_path):
    pid = first_id(run_cli)
    run_cli("status", pid, "read")
    assert ids_of(run_cli("list", "--query", "status:read", "--format", "json")) == [pid]


def _star(run_cli, tmp_path):
    pid = first_id(run_cli)
    run_cli("star", pid, "2")
    assert ids_of(run_cli("list", "--query", "star:2", "--format", "json")) == [pid]


def _tag(run_cli, tmp_path):
    pid = first_id(run_cli)
    run_cli("tag", pid, "surface")
    assert ids_of(run_cli("list", "--tag", "surface", "--format", "json")) == [pid]


def _tags(run_cli, tmp_path):
    run_cli("tag", first_id(run_cli), "surface")
    assert json.loads(run_cli("tags", "--format", "json").stdout) == {"surface": 1}


def _note(run_cli, tmp_path):
    pid = first_id(run_cli)
    run_cli("note", pid, "read with the group")
    assert json.loads(run_cli("show", pid, "--format", "json").stdout)["note"] == "read with the group"


def _remove(run_cli, tmp_path):
    pid = first_id(run_cli)
    run_cli("remove", pid)
    assert pid not in ids_of(run_cli("list", "--format", "json"))
    assert run_cli("doctor").returncode == 0


def _undo(run_cli, tmp_path):
    pid = first_id(run_cli)
    run_cli("status", pid, "read")
    run_cli("undo")
    assert ids_of(run_cli("list", "--query", "status:read", "--format", "json")) == []


def _redo(run_cli, tmp_path):
    pid = first_id(run_cli)
    run_cli("status", pid, "read")
    run_cli("undo")
    run_cli("redo")
    assert ids_of(run_cli("list", "--query", "status:read", "--format", "json")) == [pid]


def _retitle(run_cli, tmp_path):
    out = json.loads(run_cli("retitle", "--format", "json").stdout)  # a new library's titles are current
    assert (out["changed"], out["derived"], out["current"], out["backup"]) == (0, 35, True, None)
    out = json.loads(run_cli("retitle", "--again", "--format", "json").stdout)
    assert (out["changed"], out["derived"], out["current"]) == (0, 35, False)  # the same library: the same titles


def _history(run_cli, tmp_path):
    run_cli("status", first_id(run_cli), "read")
    assert "read" in run_cli("history").stdout


def _stats(run_cli, tmp_path):
    assert json.loads(run_cli("stats", "--format", "json").stdout)["papers"] == 35


def _dedup(run_cli, tmp_path):
    assert "no near-duplicate merges" in run_cli("dedup", "--report").stdout


def _doctor(run_cli, tmp_path):
    assert run_cli("doctor").returncode == 0


def _similar(run_cli, tmp_path):
    pid = first_id(run_cli)
    rows = json.loads(run_cli("similar", pid, "--format", "json").stdout)
    assert len(rows) == 10 and pid not in {r["id"] for r in rows}


def _recommend(run_cli, tmp_path):
    pid = first_id(run_cli)
    run_cli("star", pid, "3")
    rows = json.loads(run_cli("recommend", "--format", "json").stdout)
    assert rows and pid not in {r["id"] for r in rows}


def _topics(run_cli, tmp_path):
    rows = json.loads(run_cli("topics", "--format", "json").stdout)
    assert sum(r["papers"] for r in rows) == 35


def _export(run_cli, tmp_path):
    pid = first_id(run_cli)
    run_cli("status", pid, "to-read")
    out = tmp_path / "reading.bib"
    run_cli("export", "--format", "bibtex", "--status", "to-read", "-o", str(out))
    assert out.read_text().count("@") == 1


def _serve(run_cli, tmp_path):
    proc, _, url = start_serve(tmp_path)
    try:
        assert url.startswith("http://127.0.0.1:")
    finally:
        stop(proc)


def _import_annotations(run_cli, tmp_path):
    pid = first_id(run_cli)
    run_cli("tag", pid, "theirs")
    mine = tmp_path / "theirs.json"
    run_cli("export", "--format", "json", "-o", str(mine))
    other = tmp_path / "other"
    run_cli("import", str(SEEDS), library=other)
    out = run_cli("import-annotations", str(mine), library=other).stdout
    assert "1" in out
    assert ids_of(run_cli("list", "--tag", "theirs", "--format", "json", library=other)) == [pid]


def _assign(run_cli, tmp_path):
    out = json.loads(run_cli("assign", "--to", "ana,ben", "--format", "json").stdout)
    assert out["assigned"] == {"ana": 18, "ben": 17} or out["assigned"] == {"ana": 17, "ben": 18}
    assert len(ids_of(run_cli("list", "--query", "assigned:ben", "--format", "json"))) == out["assigned"]["ben"]


def _team(run_cli, tmp_path):
    run_cli("--as", "ana", "star", first_id(run_cli), "2")
    rows = {r["member"]: r for r in json.loads(run_cli("team", "--format", "json").stdout)["members"]}
    assert rows["ana"]["stars"] == 2 and rows["ana"]["starred"] == 1 and rows["ana"]["triaged"] == 0  # (no status)


def _sync(run_cli, tmp_path):
    import subprocess
    remote = tmp_path / "lab.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    run_cli("import", str(DATA / "icml_slice.jsonl"))  # (the sample is no one's to send: papers of the lab's own)
    run_cli("--as", "ana", "star", json.loads(run_cli("list", "--query", "file:icml", "--format", "json").stdout)[0]["id"], "2")
    out = json.loads(run_cli("--as", "ana", "sync", str(remote), "--format", "json").stdout)
    assert out["pushed"] and out["sent"] == 1 and out["marks"] == {}
    ben = json.loads(run_cli("--as", "ben", "sync", str(remote), "--format", "json", library=tmp_path / "ben").stdout)
    assert ben["marks"] == {"ana": 1}  # (a new folder: the lab's library, made by the sync)


def _fetch(run_cli, tmp_path):
    from .test_fetch import Recorded, day
    server = Recorded([(200, {}, day(1))])
    try:
        out = json.loads(run_cli("fetch", "arxiv", "cs.LG", "--since", "2024-11-01", "--api", server.url, "--delay",
                                 "0", "--format", "json", library=tmp_path / "fetched-lib").stdout)
    finally:
        server.close()
    assert (out["new"], out["batch"]) == (12, 1)


def _archive(run_cli, tmp_path):
    pid = first_id(run_cli)
    run_cli("status", pid, "skipped")
    said = run_cli("archive", "--skipped-before", "2999-01-01", "--dry-run").stdout
    assert "would archive 1 paper" in said and pid in said  # (each paper named, with its title)
    out = json.loads(run_cli("archive", "--skipped-before", "2999-01-01", "--format", "json").stdout)
    assert out["archived"] == [pid] and ids_of(run_cli("list", "--query", f"id:{pid}", "--format", "json")) == []
    run_cli("undo")
    assert ids_of(run_cli("list", "--query", "status:skipped", "--format", "json")) == [pid]


TYPICAL = {"archive": _archive, "fetch": _fetch, "assign": _assign, "team": _team, "sync": _sync, "open": _open, "import": _import, "list": _list, "search": _search, "show": _show, "status": _status,
           "star": _star, "tag": _tag, "tags": _tags, "note": _note, "remove": _remove, "undo": _undo,
           "redo": _redo, "retitle": _retitle, "history": _history, "stats": _stats, "dedup": _dedup,
           "doctor": _doctor, "similar": _similar, "recommend": _recommend, "topics": _topics,
           "export": _export, "serve": _serve, "import-annotations": _import_annotations}


def test_every_subcommand_has_a_typical_call():
    assert set(command_names()) == set(TYPICAL)


@pytest.mark.parametrize("command", command_names())
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_every_subcommand_answers_help_and_makes_nothing(command, run_cli, tmp_path):
    proc = run_cli(command, "--help", seed=False)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: papersift")
    assert not run_cli.library.exists()


@pytest.mark.parametrize("command", command_names())
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_every_subcommand_does_its_job(command, run_cli, tmp_path):
    if command not in ("import", "open", "serve"):
        from store import Library
        Library.open(run_cli.library)  # the library the app's first start makes (the sample)
    TYPICAL[command](run_cli, tmp_path)


READS = ["list", "search x", "stats", "export", "doctor", "similar 0123456789ab", "recommend", "show x", "topics",
         "history", "tags", "status x read", "undo"]


@pytest.mark.parametrize("command", READS)
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_command_on_a_folder_without_a_library_says_so_and_makes_nothing(command, run_cli, tmp_path):
    empty = tmp_path / "nothing-here"
    proc = run_cli(*command.split(), library=empty, check=False, seed=False)
    assert proc.returncode == 1 and "no library in" in proc.stderr and "papersift import FILE" in proc.stderr
    assert not empty.exists()


@pytest.mark.parametrize("argv,said", [
    (["stauts", "x", "read"], "unknown command 'stauts' — did you mean 'status'?"),
    (["serach", "robots"], "did you mean 'search'?"),
    (["frobnicate"], "unknown command 'frobnicate'"),
    (["--library", "list"], "--library takes a folder, and 'list' is a command"),
    (["--library", "stats"], "'stats' is a command"),
    (["--library", "import", "x.txt"], "'import' is a command"),
    (["--library=--help"], "looks like an option"),
    (["--library", "-x", "list"], "looks like an option"),
])
def test_mistakes_get_a_hint_exit_2_and_make_nothing(argv, said, run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = set(tmp_path.iterdir())
    proc = run_cli(*argv, check=False, seed=False)
    assert proc.returncode == 2 and said in proc.stderr, proc.stderr
    assert set(tmp_path.iterdir()) == before and not run_cli.library.exists()


CRASHING = """
import sys
from tui import cli
from {module} import {cls}
def crash(*args, **kwargs):
    raise RuntimeError("a fault papersift did not expect")
setattr({cls}, "{method}", crash)
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_command_that_crashes_exits_non_zero(run_cli, tmp_path):
    import os
    import subprocess
    import sys
    from store import Library
    Library.open(run_cli.library)
    code = CRASHING.format(module="store.library.stats", cls="LibraryStats", method="summary")
    proc = subprocess.run([sys.executable, "-c", code, "stats"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PAPERSIFT_LIBRARY": str(run_cli.library)})
    assert proc.returncode == 1 and "RuntimeError: a fault papersift did not expect" in proc.stderr


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_the_app_that_crashes_exits_non_zero_after_the_traceback(tmp_path):
    """In a real terminal: an error Textual catches is printed, and the status is not 0."""
    import sys
    from ..e2e.test_e2e_tmux import terminal
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (.ci/run installs it)")
    from store import Library
    Library.open(tmp_path / "lib")
    script = tmp_path / "crash.py"
    script.write_text(CRASHING.format(module="tui.screens.main", cls="MainScreen", method="action_sort"))
    tmux, env = terminal(tmp_path, "crash")
    try:
        tmux.start(f"{sys.executable} {script}; echo EXIT=$?; sleep 30", width=160, height=50)
        tmux.wait_for("35 / 35")
        tmux.keys("S")
        shown = tmux.wait_for("EXIT=")
        assert "EXIT=1" in shown and "RuntimeError" in shown, shown
    finally:
        tmux.kill()
