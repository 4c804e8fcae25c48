"""Kill loops over the commands that change a library: each is killed with SIGKILL at evenly spread
moments of its measured length, then `doctor --repair` runs. Nothing acknowledged is lost and
nothing is half done: the library holds what was there before the command or what the command
makes, never a mixture, and a doctor after the repair finds nothing.

The commands: `remove` and `archive` (the undo entry with the corpus write marked pending, the
archive's lines, the corpus), `assign`, `undo` of a removal (the annotations,
then the corpus), `import`, `retitle`, `tags rename`, `import-annotations`, `dedup --split` (the
split papers' annotations, then the corpus) and `doctor --repair` itself, on a cut snapshot with a
journal behind it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from store import Library, locations
from store.corpus import Corpus
from store.doctor import run_doctor

from ..conftest import DATA, papersift_argv
from ..surface import SLICE

pytestmark = pytest.mark.slow

MOMENTS = 10
NOTE = "a note that must survive"
DAYS = DATA / "arxiv_days"  # recorded days of arXiv's feed (a batch import, a newer version among them)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """2,000 papers, 600 of them tagged #alpha and skipped (and tagged #hers by ana, assigned to
    ben), one with a note; 40 with a near-duplicate variant
    (the first of them tagged too), and a file of 300 new papers to import."""
    root = tmp_path_factory.mktemp("kill")
    records = [json.loads(line) for line in SLICE.read_text().splitlines()]
    variants = root / "variants.jsonl"
    variants.write_text("".join(json.dumps({"abstract": r["abstract"] + " Code and data are public.", "title": ""})
                                + "\n" for r in records[600:640]))
    fresh = root / "fresh.jsonl"
    fresh.write_text("".join(json.dumps({"abstract": " ".join(reversed(r["abstract"].split())),
                                         "title": f"Fresh paper {i}"}) + "\n" for i, r in enumerate(records[:300])))
    folder = root / "lib"
    lib = Library.open(folder, seed_if_new=False)
    lib.paper_changes.import_paths([SLICE])
    lib.paper_changes.import_paths([variants])
    ids = [p.id for p in lib.corpus.papers]
    lib.marks.add_tags(ids[:600], ["alpha"])
    lib.marks.set_note(ids[0], NOTE)
    lib.marks.set_status(ids[:600], "skipped")  # (what `archive --skipped-before` takes)
    Library(folder, member="ana").marks.add_tags(ids[:600], ["hers"])  # another member's marks on the same papers
    lib.team.assign(["ben"], ids[:600])
    merged = next(p.id for p in lib.corpus.papers if p.variants)
    lib.marks.add_tags([merged], ["merged"])
    return folder, ids[:600], merged, fresh


@dataclass
class Command:
    """A command to kill: what it needs first, its arguments, and the states a whole library may
    be in afterwards (a check returns the state's name, and fails on anything half done)."""
    prepare: Callable[[Path, Path], list[str]]
    check: Callable[[Library], str]
    states: set[str]


def tagged(lib: Library, ids: list[str], tag: str) -> list[bool]:
    return [tag in lib.annotation(i).tags for i in ids]


def all_or_none(flags: list[bool], what: str) -> bool:
    assert all(flags) or not any(flags), f"{sum(flags)} of {len(flags)} {what}: a step half done"
    return all(flags)


def commands(ids: list[str], merged: str, fresh: Path) -> dict[str, Command]:
    def every_mark(lib: Library, assignee: str = "ben") -> bool:
        ana = Library(lib.folder, member="ana")
        return all(tagged(lib, ids, "alpha")) and all(tagged(ana, ids, "hers")) \
            and all(lib.assignments.get(i) == assignee for i in ids)

    def removal(lib: Library, assignee: str = "ben") -> str:
        here = [lib.corpus.index_of(i) is not None for i in ids]
        if all_or_none(here, "papers left"):
            assert every_mark(lib, assignee), "papers present without every member's marks"
            return "present"
        assert lib.undo() is not None
        back = Library(lib.folder)
        assert every_mark(back, assignee), "an undo that brings papers back without every member's marks"
        return "removed"

    def assigned_to_oneself(lib_dir: Path, _: Path) -> list[str]:
        lib = Library(lib_dir)  # (an archive leaves a paper assigned to another member: these are one's own)
        lib.team.assign([lib.member], ids, new_members=True)
        return ["archive", "--skipped-before", "2999-01-01"]

    def archived(lib: Library) -> str:
        lines = (lib.folder / locations.ARCHIVE_FILE)
        listed = [json.loads(x)["paper"]["id"] for x in lines.read_bytes().splitlines()] if lines.exists() else []
        state = removal(lib, assignee=lib.member)
        assert sorted(listed) == (sorted(ids) if state == "removed" else []), "the archive and the library disagree"
        return state

    def assigned(lib: Library) -> str:
        owners = [lib.assignments.get(i) for i in ids]
        assert all(tagged(lib, ids, "alpha"))
        if all(o == "ben" for o in owners):
            return "before"
        assert all(o in ("ana", "carl") for o in owners), "an assignment half made"
        return "assigned"

    def imported(lib: Library) -> str:
        assert all(tagged(lib, ids, "alpha"))
        assert len(lib) in (2000, 2300), f"{len(lib)} papers: an import half done"
        return "imported" if len(lib) == 2300 else "before"

    def stale_titles(lib_dir: Path, _: Path) -> list[str]:
        corpus = Corpus.load(lib_dir / locations.CORPUS_FILE)
        for paper in corpus.papers:
            paper.title, paper.derived_title = "stale", True
        corpus.title_rules = 0
        corpus.save(lib_dir / locations.CORPUS_FILE)
        (lib_dir / locations.INDEX_CACHE_FILE).unlink(missing_ok=True)
        return ["retitle"]

    def retitled(lib: Library) -> str:
        assert all(tagged(lib, ids, "alpha"))
        return "retitled" if not all_or_none([p.title == "stale" for p in lib.corpus], "titles stale") else "before"

    def renamed(lib: Library) -> str:
        return "beta" if not all_or_none(tagged(lib, ids, "alpha"), "papers still #alpha") and \
            all(tagged(lib, ids, "beta")) else "alpha"

    def theirs(lib_dir: Path, work: Path) -> list[str]:
        colleague = work / "colleague"
        shutil.copytree(lib_dir, colleague)
        other = Library(colleague)
        other.marks.add_tags(ids, ["gamma"])
        path = work / "theirs.json"
        subprocess.run([*papersift_argv(), "--library", str(colleague), "export", "--format", "json", "--query",
                        "tag:gamma", "--output", str(path)], check=True, capture_output=True)
        return ["import-annotations", str(path)]

    def merged_in(lib: Library) -> str:
        assert all(tagged(lib, ids, "alpha"))
        return "merged" if all_or_none(tagged(lib, ids, "gamma"), "papers #gamma") else "before"

    def split(lib: Library) -> str:
        idx = lib.corpus.index_of(merged)
        assert idx is not None and "merged" in lib.annotation(merged).tags
        parent = lib.corpus.papers[idx]
        if parent.variants:
            return "merged"
        split_off = [p.id for p in lib.corpus if frozenset((merged, p.id)) in lib.corpus.separate]
        assert split_off, "neither merged nor split"
        assert all("merged" in lib.annotation(i).tags for i in split_off), "a split paper without its annotation"
        return "split"

    def first_day(lib_dir: Path, _: Path) -> list[str]:
        Library(lib_dir).paper_changes.import_paths([DAYS / "day1.xml"])  # (not killed: the morning before)
        return ["import", str(DAYS / "day2.xml")]

    def batched(lib: Library) -> str:
        """Day two's batch is whole (its record, its papers stamped with it, its revisions) or absent."""
        assert all(tagged(lib, ids, "alpha"))
        day2 = [b for b in lib.corpus.batches if b.get("files") == ["day2.xml"]]
        newest = max(b["n"] for b in lib.corpus.batches)
        if not day2:
            assert not any(p.batch > newest or p.revised > newest for p in lib.corpus)
            return "before"
        batch = day2[0]
        assert batch["n"] == newest and batch["new"] > 0, batch
        assert sum(1 for p in lib.corpus if p.batch == batch["n"]) == batch["new"], "a batch half stamped"
        assert sum(1 for p in lib.corpus if p.revised == batch["n"]) == batch["revised"], "a revision half kept"
        return "imported"

    return {
        "batch import": Command(first_day, batched, {"before", "imported"}),
        "remove": Command(lambda d, w: ["remove", "--query", "tag:alpha"], removal, {"present", "removed"}),
        "archive": Command(assigned_to_oneself, archived, {"present", "removed"}),
        "assign": Command(lambda d, w: ["assign", "--to", "ana,carl", "--query", "tag:alpha"], assigned,
                          {"before", "assigned"}),
        "undo": Command(lambda d, w: (Library(d).remove(ids), ["undo"])[1], removal, {"present", "removed"}),
        "import": Command(lambda d, w: ["import", str(fresh)], imported, {"before", "imported"}),
        "retitle": Command(stale_titles, retitled, {"before", "retitled"}),
        "tags rename": Command(lambda d, w: ["tags", "rename", "alpha", "beta"], renamed, {"alpha", "beta"}),
        "import-annotations": Command(theirs, merged_in, {"before", "merged"}),
        "dedup --split": Command(lambda d, w: ["dedup", "--split", merged], split, {"merged", "split"}),
    }


def measured(argv: list[str], env: dict[str, str]) -> float:
    started = time.monotonic()
    subprocess.run(argv, env=env, capture_output=True, check=True, timeout=120)
    return time.monotonic() - started


def killed_at(argv: list[str], env: dict[str, str], delay: float) -> None:
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)


def repaired(folder: Path) -> Library:
    report = run_doctor(folder, repair=True)
    assert report.healthy, report.problems
    assert run_doctor(folder).problems == [], "a doctor after the repair still finds problems"
    return Library(folder)


def loop(folder: Path, tmp_path: Path, prepare: Callable[[Path, Path], list[str]],
         after: Callable[[Path], str], clean_after: bool = True) -> set[str]:
    """Run the command once on a copy to measure it (a doctor then finds nothing, unless
    ``clean_after`` is False), then kill it on fresh copies at 0, 1/10, …, 10/10 of that length;
    returns the states seen."""
    seen, length = set(), None
    for k in range(-1, MOMENTS + 1):  # -1: the measuring run
        lib_dir = tmp_path / f"lib{k}"
        shutil.copytree(folder, lib_dir)
        work = tmp_path / f"work{k}"
        work.mkdir()
        argv = [*papersift_argv(), *prepare(lib_dir, work)]
        env = {**os.environ, "PAPERSIFT_LIBRARY": str(lib_dir)}
        if length is None:
            length = measured(argv, env)
            assert not clean_after or run_doctor(lib_dir).problems == [], "a doctor after the command finds problems"
        else:
            killed_at(argv, env, length * k / MOMENTS)
        seen.add(after(lib_dir))
    return seen


@pytest.mark.parametrize("name", ["remove", "archive", "assign", "undo", "import", "batch import", "retitle",
                                  "tags rename", "import-annotations", "dedup --split"])
def test_killed_at_evenly_spread_moments_nothing_is_lost_or_half_done(template, tmp_path, name):
    folder, ids, merged, fresh = template
    command = commands(ids, merged, fresh)[name]

    def after(lib_dir: Path) -> str:
        lib = repaired(lib_dir)
        assert lib.annotation(ids[0]).note == NOTE or lib.corpus.index_of(ids[0]) is None
        return command.check(lib)
    seen = loop(folder, tmp_path, command.prepare, after)
    assert seen == command.states  # (the measuring run completes; a kill at once leaves what was there)


@pytest.mark.parametrize("name", ["remove", "archive", "undo"])
def test_killed_then_opened_a_step_is_never_left_half_done(template, tmp_path, name):
    """No doctor: the next open alone finishes a step a kill cut short (and says so), so what
    anyone sees is the step whole or not begun, and undo restores every member's marks."""
    folder, ids, merged, fresh = template
    command = commands(ids, merged, fresh)[name]

    def after(lib_dir: Path) -> str:
        lib = Library(lib_dir)
        assert lib.store.pending() is None, "a step still half done after the open"
        return command.check(lib)
    assert loop(folder, tmp_path, command.prepare, after) == command.states


def test_a_repair_killed_at_any_moment_then_run_again_keeps_what_an_uncut_repair_keeps(tmp_path):
    """`doctor --repair` of a cut snapshot with 100 changes in the journal behind it, killed, then
    run again: every tag an uncut repair recovers is there."""
    folder = tmp_path / "cut"
    lib = Library.open(folder)
    pids = [p.id for p in lib.corpus.papers]
    lib.marks.set_status(pids[:12], "read")  # a backup first
    for i in range(600):  # a fold at 500; the newest 100 stay in the journal
        lib.marks.add_tags([pids[i % len(pids)]], [f"t{i}"])
    raw = lib.annotations_path.read_bytes()
    lib.annotations_path.write_bytes(raw[: len(raw) // 2])
    reference = tmp_path / "reference"
    shutil.copytree(folder, reference)
    run_doctor(reference, repair=True)
    expected = {pid: set(a.tags) for pid, a in Library(reference).annotations.items()}
    assert {f"t{i}" for i in range(500, 600)} <= set().union(*expected.values())

    def after(lib_dir: Path) -> str:
        run_doctor(lib_dir, repair=True)
        assert run_doctor(lib_dir).problems == [] or any(
            "could not be recovered" in p for p in run_doctor(lib_dir, repair=True).problems)
        got = {pid: set(a.tags) for pid, a in Library(lib_dir).annotations.items()}
        missing = {pid: tags - got.get(pid, set()) for pid, tags in expected.items() if tags - got.get(pid, set())}
        assert not missing, f"a killed repair lost what an uncut one keeps: {list(missing.items())[:3]}"
        return "repaired"
    assert loop(folder, tmp_path, lambda d, w: ["doctor", "--repair"], after, clean_after=False) == {"repaired"}
