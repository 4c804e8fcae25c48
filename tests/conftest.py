"""Shared fixtures: paths, a fresh library on the seeds, and a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Every subprocess a test starts (the CLI, the app in tmux) runs this checkout's code, whichever
# checkout the editable install last pointed at.
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
SEEDS = ROOT / "seeds"
DATA = Path(__file__).resolve().parent / "data"
# A dump whose papers define LLM (three times, as store.search.acronyms needs), one paper writing
# only "LLMs" and one only "large language models", both about planning, and one other planning paper.
ACRONYM_DUMP = "Dump\n\n" + "\n\n".join([
    "We study how large language models (LLMs) memorize rare facts during pretraining on the web.",
    "Large language models (LLMs) can be jailbroken by adversarial suffixes found with greedy search.",
    "We distill large language models (LLMs) into small students for on-device question answering.",
    "Planning household tasks with LLMs grounded in a scene graph works on a real robot.",
    "We show that large language models can do task planning for robots from few examples.",
    "Classical planning with symbolic solvers scales to long horizons in logistics."]) + "\n"


@pytest.fixture
def seeds_dir() -> Path:
    return SEEDS


@pytest.fixture(scope="session")
def _sample_library(tmp_path_factory) -> Path:
    """The library the app's first start makes (the bundled seeds), made once a test process."""
    from store import Library
    folder = tmp_path_factory.mktemp("sample-template") / "lib"
    Library.open(folder)
    return folder


@pytest.fixture
def lib(tmp_path, _sample_library):
    """A library on the bundled seeds (35 papers): a copy of the one the app's first start makes
    (its files and modes as made; 0.45 s saved a test against importing the seeds each time)."""
    import shutil

    from store import Library
    shutil.copytree(_sample_library, tmp_path / "lib", symlinks=True)
    return Library.open(tmp_path / "lib")


def library_of(tmp_path: Path, texts: list[str]):
    """A library made by importing ``texts`` as one dump's abstracts (titles derived from them)."""
    from store import Library

    dump = tmp_path / "abstracts.txt"
    dump.write_text("D\n\n" + "\n\n".join(texts) + "\n")
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([dump])
    return lib


def holds_library(folder: Path) -> bool:
    from store.locations import holds_library
    return holds_library(folder)


def _commands_that_need_a_library() -> set[str]:
    from tui.cli import command_names
    return set(command_names()) - {"open", "import", "serve", "fetch", "sync"}


_NOT_CREATING = _commands_that_need_a_library()


@pytest.fixture
def run_cli(tmp_path):
    """Run the real `papersift` console script in a subprocess on a temp library."""
    libdir = tmp_path / "cli-lib"

    def run(*args: str, input: str | None = None, library: Path | None = None, check: bool = True,
            seed: bool = True):
        # Only the app's first start and an import make a library: a test whose first command is
        # another one gets the library the app's first start makes (the sample), unless ``seed`` is False.
        folder = library or libdir
        if seed and args and args[0] in _NOT_CREATING and not folder.is_file() and not holds_library(folder):
            from store import Library
            Library.open(folder)
        env = {**os.environ, "PAPERSIFT_LIBRARY": str(folder), "COLUMNS": "160", "NO_COLOR": "1"}
        proc = subprocess.run(run.cmd + list(args), capture_output=True, text=True, env=env, input=input, timeout=120)
        if check and proc.returncode != 0:
            raise AssertionError(f"papersift {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        return proc

    exe = Path(sys.executable).with_name("papersift")
    run.cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "tui"]
    run.library = libdir
    return run


async def wait_workers(app, pilot=None, timeout: float = 30) -> None:
    """Wait until no worker runs (tolerating exclusive workers cancelled by newer ones); fails
    loudly when some still run after ``timeout`` seconds, rather than letting a later assertion
    fail for a confusing reason."""
    import asyncio
    import time
    deadline = time.monotonic() + timeout
    while any(w.is_running for w in app.workers):
        if time.monotonic() > deadline:
            raise AssertionError(f"workers still running after {timeout} s: "
                                 f"{[w.name for w in app.workers if w.is_running]}")
        await asyncio.sleep(0.005)
    if pilot is not None:
        await pilot.pause()


def recording(real, calls: list, first_delay: float = 0.0, as_text=None):
    """``real``, each call's arguments appended to ``calls`` (each through ``as_text`` if given:
    a parsed Query as the text it came from); the first call waits ``first_delay`` seconds before
    running, so that other threads ask while it runs (tests of built-once tables)."""
    import time

    def wrapper(*args, **kwargs):
        calls.append(tuple(as_text(a) for a in args) if as_text else args)
        if first_delay and len(calls) == 1:
            time.sleep(first_delay)
        return real(*args, **kwargs)
    return wrapper


def assert_reads_as(cases: dict[str, str]) -> None:
    """Each source abstract reads as given both in plain text (exports, titles) and in the reader
    (white space collapsed): the two must never disagree."""
    from store.latex import plain_text
    from tui.render import render_abstract

    for source, shown in cases.items():
        assert plain_text(source) == shown
        assert " ".join(render_abstract(source)[0].plain.split()) == shown


def papersift_argv() -> list[str]:
    """The installed console script (or the module, where it is not installed)."""
    exe = Path(sys.executable).with_name("papersift")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "tui"]


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_serve(tmp_path: Path, *args: str, timeout: float = 30):
    """Run `papersift serve` as a user would; returns (process, env, the URL it printed to open).

    Fails (and stops the server) when no URL is printed within ``timeout`` seconds."""
    import queue
    import re
    import threading
    import time

    env = {**os.environ, "PAPERSIFT_LIBRARY": str(tmp_path / "lib"), "HOME": str(tmp_path / "home"),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "PAPERSIFT_NO_SYSTEM_CLIPBOARD": "1"}
    (tmp_path / "home").mkdir(exist_ok=True)
    port = free_port()
    proc = subprocess.Popen([*papersift_argv(), "serve", "--port", str(port), *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()
    deadline, said = time.monotonic() + timeout, []
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        said.append(line)
        if m := re.search(r"open (http://\S+)", line):
            proc.banner = "".join(said)
            return proc, env, m.group(1)
    stop(proc)
    raise AssertionError(f"papersift serve printed no URL in {timeout} s:\n{''.join(said)}")


def stop(proc) -> None:
    """Stop a server (or browser) started in its own session, and everything it started."""
    import signal
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def bib_entries(text: str) -> list[dict]:
    """A BibTeX file read as its own tools read it (bibtexparser 2, directly): each entry a dict of
    ID, ENTRYTYPE and its fields as written (outer braces removed)."""
    import bibtexparser
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks, [b.raw[:80] for b in library.failed_blocks]
    return [{**{f.key: f.value for f in e.fields}, "ID": e.key, "ENTRYTYPE": e.entry_type} for e in library.entries]
