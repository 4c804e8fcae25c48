"""End to end in a real terminal: papersift in tmux, driven by send-keys, read by capture-pane."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..conftest import DATA

# A real terminal and a real app are timing-sensitive: the e2e group runs on one xdist worker, one
# test after another (--dist loadgroup), beside the rest of the suite.
pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.xdist_group("e2e"),
              pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")]


class Tmux:
    def __init__(self, name: str, env: dict[str, str]):
        self.name = name
        self.env = env
        self.sock = ["-L", name]

    def run(self, *args: str) -> str:
        return subprocess.run(["tmux", *self.sock, *args], capture_output=True, text=True, check=True,
                              env=self.env).stdout

    def start(self, command: str, width=120, height=34) -> None:
        self.run("-f", "/dev/null", "new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), command)
        self.run("set-option", "-g", "escape-time", "0")  # else Escape+key arrives as Alt+key

    def keys(self, *keys: str, pause: float = 0.15) -> None:
        self.run("send-keys", "-t", self.name, *keys)
        time.sleep(pause)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.name)

    def wait_for(self, text: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; screen:\n{self.screen()}")

    def wait_gone(self, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if subprocess.run(["tmux", *self.sock, "has-session", "-t", self.name], capture_output=True,
                              env=self.env).returncode != 0:
                return
            time.sleep(0.1)
        raise AssertionError("papersift did not quit")

    def kill(self) -> None:
        subprocess.run(["tmux", *self.sock, "kill-server"], capture_output=True, env=self.env)


def papersift_cmd() -> str:
    exe = Path(sys.executable).with_name("papersift")
    return str(exe) if exe.exists() else f"{sys.executable} -m tui"


def terminal(tmp_path: Path, name: str, clipboard: bool = False) -> tuple[Tmux, dict[str, str]]:
    """A tmux session on a temp library, HOME and config folder (and its environment)."""
    # (COLUMNS/LINES, which a pytest-xdist worker has, would size the app, not the pane it runs in)
    env = {**{k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "ROWS")},
           "PAPERSIFT_LIBRARY": str(tmp_path / "lib"), "HOME": str(tmp_path / "home"),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "TERM": "xterm-256color"}
    if not clipboard:
        env["PAPERSIFT_NO_SYSTEM_CLIPBOARD"] = "1"
    (tmp_path / "home").mkdir()
    return Tmux(f"{name}{os.getpid()}", env), env


def test_triage_in_a_real_terminal_survives_restart(tmp_path):
    tmux, env = terminal(tmp_path, "ps")
    try:
        tmux.start(papersift_cmd() + "; sleep 30")      # the pane outlives the app: its last line is read
        tmux.wait_for("35 / 35")
        tmux.wait_for("35 sample abstracts")            # a first start says what these are, and how to import
        # search (typed fast, in one burst), then triage the two best hits
        tmux.keys("/", *"voice identiy", "Enter")
        tmux.wait_for("VIPBench")
        tmux.keys("a", pause=0.3)                       # to-read, advances
        tmux.keys("Escape", pause=0.4)                  # clear the filter
        tmux.keys("/", *"everanimate", "Enter")
        tmux.wait_for("EverAnimate")
        tmux.keys("+", "+", "r", pause=0.3)              # two stars, read
        tmux.keys("k", "t", *"video", "Enter", pause=0.3)
        tmux.keys("Escape", pause=0.3)
        tmux.wait_for("#video")
        tmux.wait_for("2 / 35 triaged")  # each wait re-reads the screen: a capture can catch a repaint midway
        tmux.keys("q")
        # On the terminal once the app has gone: what the sitting kept, and where.
        shown = tmux.wait_for("this session: 2 papers marked (1 read, 1 to-read) · stars on 1 paper · "
                              "tags on 1 paper; saved in")
        assert "35 / 35" not in shown and str(tmp_path / "lib") in shown.replace("\n", "")
        tmux.kill()
        time.sleep(0.5)

        tmux.start(papersift_cmd())
        tmux.wait_for("back where you left off")        # the search it was left with, on its paper
        assert "sample abstracts" not in tmux.screen()  # said on the first start only
        for text in ("everanimate", "1 / 35", "2 / 35 triaged", "#video", "★★"):
            tmux.wait_for(text, timeout=10)
        tmux.keys("Escape", pause=0.3)                  # the whole library again
        tmux.wait_for("35 / 35")
        tmux.keys("/", *"everanimate", "Enter")         # left on a search again
        tmux.wait_for("1 / 35")
        tmux.keys("q")
        tmux.wait_gone()

        tmux.start(papersift_cmd() + " --fresh")        # an empty search, at the top
        tmux.wait_for("35 / 35")
        assert "everanimate" not in tmux.screen() and "left off" not in tmux.screen()
        tmux.keys("q")
        tmux.wait_gone()
    finally:
        tmux.kill()

    out = subprocess.run([*papersift_cmd().split(), "list", "--format", "json"], capture_output=True, text=True,
                         env=env, check=True).stdout
    papers = {p["title"].split(":")[0]: p for p in json.loads(out)}
    assert papers["VIPBench"]["status"] == "to-read"
    assert (papers["EverAnimate"]["status"], papers["EverAnimate"]["star"], papers["EverAnimate"]["tags"]) == ("read", 2, ["video"])


def test_opening_with_files_says_what_was_imported(tmp_path):
    """`papersift FILE`: the import summary appears in the app, and on the terminal after it."""
    tmux, _ = terminal(tmp_path, "psf", clipboard=True)
    dump = tmp_path / "mine.txt"
    dump.write_text("My dump\n\nA single abstract about diffusion models for robot policy learning in the wild.\n\n"
                    "A second abstract about graph neural networks for molecules and their properties.\n")
    try:
        tmux.start(f"{papersift_cmd()} {dump}; sleep 20")
        tmux.wait_for("2 / 2")  # the app is up, with only the file's papers (no seeds when files are given)
        shown = tmux.wait_for("read 2 abstracts from 1 file: 2 new")  # in a notification
        assert "2 / 2" in shown
        tmux.keys("q")
        deadline = time.monotonic() + 15
        shown = tmux.screen()
        while time.monotonic() < deadline and ("2 / 2" in shown or "read 2 abstracts" not in shown):
            time.sleep(0.1)  # the app leaves the screen, then the summary is printed
            shown = tmux.screen()
        assert "2 / 2" not in shown and "read 2 abstracts from 1 file: 2 new" in shown, shown
    finally:
        tmux.kill()


def test_a_note_being_typed_survives_the_terminal_closing(tmp_path):
    """The terminal is killed while a note is being written: the next start offers it back."""
    tmux, env = terminal(tmp_path, "psn")
    try:
        tmux.start(papersift_cmd())
        tmux.wait_for("35 / 35")
        tmux.keys("e", pause=0.5)
        tmux.wait_for("Save note")
        tmux.keys(*"ask Ana about the baselines", pause=1.5)
        tmux.kill()  # no save, no quit: the terminal is gone
        time.sleep(1)  # the tmux server takes a moment to go

        tmux.start(papersift_cmd())
        tmux.wait_for("35 / 35")
        tmux.keys("e", pause=0.5)
        tmux.wait_for("ask Ana about the baselines")
        tmux.wait_for("unsaved draft")
        tmux.keys("C-s", pause=0.5)
        tmux.keys("q")
        tmux.wait_gone()
    finally:
        tmux.kill()
    out = subprocess.run([*papersift_cmd().split(), "search", "baselines ana", "--format", "json"], capture_output=True,
                         text=True, env=env, check=True).stdout
    assert json.loads(out)[0]["note"] == "ask Ana about the baselines"
    assert not (tmp_path / "lib" / "note-drafts.json").exists()


def test_quitting_while_a_note_is_written_says_its_draft_is_kept(tmp_path):
    """ctrl+q in the note editor quits at once; the line left on the terminal says the text is
    kept, and where it comes back."""
    tmux, _ = terminal(tmp_path, "psq")
    try:
        tmux.start(papersift_cmd() + "; sleep 30")      # the pane outlives the app: its last line is read
        tmux.wait_for("35 / 35")
        tmux.keys("e", pause=0.5)
        tmux.wait_for("Save note")
        tmux.keys(*"ask Ana", pause=1.2)                # (a draft is kept half a second after typing)
        tmux.keys("C-q")
        tmux.wait_for("1 unsaved note draft kept: the note editor offers it again on its paper")
        tmux.kill()
        time.sleep(0.5)
        tmux.start(papersift_cmd())                     # and the next start says so, naming the paper
        tmux.wait_for("1 unsaved note draft kept, on")
    finally:
        tmux.kill()


def test_importing_from_the_app_and_finding_by_keyword(tmp_path):
    """i, a path, enter: the papers arrive in the open app (read from disk in a thread), and their
    keywords show in the reader and filter the list."""
    tmux, _ = terminal(tmp_path, "psi")
    iclr = tmp_path / "iclr.jsonl"
    data = Path(__file__).resolve().parents[1] / "data" / "iclr_slice.jsonl"
    iclr.write_text("".join(line + "\n" for line in data.read_text().splitlines()[:3]))
    try:
        tmux.start(papersift_cmd() + "; sleep 30")      # the pane outlives the app: its last line is read
        tmux.wait_for("35 / 35")
        tmux.keys("i", pause=0.5)
        tmux.wait_for("Import")
        tmux.keys(str(iclr), "Enter", pause=0.5)
        tmux.wait_for("replaced the 35 bundled sample papers")  # a first import: your papers only
        tmux.wait_for("3 / 3")
        tmux.keys("/", *'kw:"in-context"', "Enter")
        tmux.wait_for("1 / 3")
        tmux.wait_for("keywords In-context learning")
        tmux.keys("Delete", pause=0.4)                  # remove it, once asked
        tmux.wait_for("Remove")
        tmux.keys("y", pause=0.4)
        tmux.wait_for("removed 1 paper")
        tmux.keys("q")
        # what the sitting did, on the terminal after it: the import and the removal, said as such
        tmux.wait_for("this session: 3 papers imported (batch 2) · 1 paper removed; saved in")
    finally:
        tmux.kill()


def test_a_three_word_search_counts_what_list_query_lists(tmp_path):
    """The count the app shows for a three-word search is the number of papers `papersift list
    --query` gives for the same words: one result set, whatever acts on it."""
    tmux, env = terminal(tmp_path, "rs")
    query = "language models agents"
    from store import Library
    Library.open(tmp_path / "lib")  # what the app's first start makes (list --query makes no library)
    listed = json.loads(subprocess.run([*papersift_cmd().split(), "list", "--query", query, "--format", "json"],
                                       capture_output=True, text=True, env=env, check=True).stdout)
    assert len(listed) > 0
    try:
        tmux.start(papersift_cmd())
        tmux.wait_for("35 / 35")
        tmux.keys("/", *query, "Enter")
        shown = tmux.wait_for("── weaker matches")  # the list of the whole query: its set, a divider, the rest
        deadline = time.monotonic() + 15
        while f" {len(listed)} / 35 ·" not in shown and time.monotonic() < deadline:
            time.sleep(0.2)  # (the last keys may still be on their way: the count settles on the query)
            shown = tmux.screen()
        assert f" {len(listed)} / 35 ·" in shown, shown
        tmux.keys("q")
        tmux.wait_gone()
    finally:
        tmux.kill()


def test_reading_in_full_after_a_search_redraws_the_whole_screen(tmp_path):
    """enter in the search box, then enter on the list: the reader takes the whole width, drawn
    so (the three panes were once left on screen until the terminal was resized)."""
    tmux, env = terminal(tmp_path, "rf")
    from store import Library
    Library.open(tmp_path / "lib", seed_if_new=False).paper_changes.import_paths([DATA / "iclr_slice.jsonl"])
    try:
        tmux.start(papersift_cmd(), width=160, height=45)
        tmux.wait_for("On this paper")
        tmux.keys("/", pause=0.5)
        tmux.keys(*"graph", pause=1.0)
        tmux.keys("Enter", pause=1.5)  # (a person's pace: the list settles, then enter reads in full)
        tmux.wait_for("22 / 200 ·")
        tmux.keys("Enter")
        deadline = time.monotonic() + 10
        shown = tmux.screen()
        while "On this paper" in shown and time.monotonic() < deadline:
            time.sleep(0.1)
            shown = tmux.screen()
        lines = shown.splitlines()
        assert "On this paper" not in shown and lines[1].startswith("╭─ 1 / "), shown  # the reader, at the left edge
        tmux.keys("Escape")
        tmux.wait_for("On this paper")  # the list and the tag panel back
        tmux.keys("q")
        tmux.wait_gone()
    finally:
        tmux.kill()


def test_keys_typed_after_q_are_ignored_not_a_traceback(tmp_path):
    """"question" typed fast in the list: q quits, and the keys behind it arrive while the app
    closes; they go nowhere (a traceback and exit status 1 before)."""
    tmux, _ = terminal(tmp_path, "psq")
    try:
        tmux.start(papersift_cmd() + "; echo exit=$?; sleep 30")
        tmux.wait_for("35 / 35")
        tmux.keys(*"question", pause=0.1)
        shown = tmux.wait_for("exit=")
        assert "exit=0" in shown and "Traceback" not in shown and "Error" not in shown, shown
    finally:
        tmux.kill()
