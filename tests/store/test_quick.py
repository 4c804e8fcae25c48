"""The one-shot search path (store.search.quick): same results as the Library, no numpy, safe fallbacks."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import re
import subprocess
import sys

import pytest

from store import Library
from store.search.packfile import PackReader, chunk_loader, pack, words_sections
from store.search.query import parse_query
from store.search.quick import quick_search

from ..conftest import DATA, ROOT


@pytest.fixture(scope="module")
def icml(tmp_path_factory):
    """A library of real ICML abstracts (imported without titles), with tags and notes on some."""
    tmp = tmp_path_factory.mktemp("quick")
    recs = [json.loads(line) for line in (DATA / "icml_slice.jsonl").read_text().splitlines()]
    (tmp / "dump.txt").write_text("ICML\n\n" + "\n\n".join(r["abstract"].replace("\n\n", "\n") for r in recs))
    lib = Library(tmp / "lib")
    lib.paper_changes.import_paths([tmp / "dump.txt"])
    ids = [p.id for p in lib.corpus]
    lib.marks.add_tags([ids[3], ids[40]], ["zebrafish"])  # a word in no abstract: found only through tags
    lib.marks.set_note(ids[7], "Compare with the graph transformer baseline")
    lib.marks.set_status([ids[3]], "read")
    lib.marks.set_star([ids[40]], 2)
    return lib, recs


def queries(recs) -> list[str]:
    """Title words with typos, prefixes being typed, single letters, digits, non-ASCII."""
    rng = random.Random(7)
    out = ["a", "x", "9", "3d", "grap", "transf", "zebrafish", "graph transformer", "ümlaut", "diffusion models",
           "reinforcment lerning offline", "transfomer attention", "the of and",
           "policies", "trajectories", "strategy", "llms", "gnns", "matrices", "estimating", "embedded"]
    for r in recs[:120]:
        words = re.findall(r"[A-Za-z]{4,}", r["title"])
        if len(words) >= 2:
            picked = rng.sample(words, min(3, len(words)))
            i = rng.randrange(1, len(picked[0]) - 1)
            picked[0] = picked[0][:i] + picked[0][i + 1:]
            out.append(" ".join(picked))
    return out


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_quick_search_ranks_exactly_as_the_library(icml):
    """Every result, in order, ties included, for 130+ queries: the float32 arithmetic is reproduced."""
    lib, recs = icml
    qs = queries(recs)
    assert len(qs) > 100
    answered = 0
    for q in qs:
        found = quick_search(lib.folder, q, None)
        if found is None:  # a word written together whose parts may stand apart (nonsmooth), or words that
            # spell out an acronym, misspelled ("reinforcment lerning": RL): the full path's, which says so
            assert lib.search.compound_words(parse_query(q)) or lib.search.find(q).widened, q
            continue
        answered += 1
        rows, total, _full, _ = found
        assert total == len(lib)
        result = lib.search.find(q)
        expected = [lib.corpus.papers[i].id for i in result.indices]
        assert [r.id for r in rows] == expected, q
        assert found.read_as == result.read_as, q  # (how a word no paper holds was read: said alike)
    assert answered > 100


def test_quick_rows_carry_titles_and_annotations(icml):
    lib, _ = icml
    rows, _, _, _ = quick_search(lib.folder, "zebrafish", 5)
    assert {r.id for r in rows} == {lib.corpus.papers[3].id, lib.corpus.papers[40].id}
    for r in rows:
        paper, ann = lib.paper(r.id), lib.annotation(r.id)
        assert (r.title, r.derived_title) == (paper.title, paper.derived_title)
        assert (r.status, r.star, r.tags) == (ann.status, ann.star, ann.tags)
    assert len(quick_search(lib.folder, "learning", 3)[0]) == 3
    # Unannotated papers read as Annotation's defaults, and so do records missing fields.
    from store.records import Annotation
    from store.search.quick import Triage

    plain = [r for r in quick_search(lib.folder, "learning", 50)[0] if r.id not in lib.annotations][0]
    assert (plain.status, plain.star, plain.tags) == ("unread", 0, [])
    for rec in ({"paper_id": "ab"}, {"paper_id": "ab", "status": "read", "star": "2", "tags": None, "note": "n"}):
        a, t = Annotation.from_record(rec), Triage(rec)
        assert (t.status, t.star, t.tags, t.note) == (a.status, a.star, a.tags, a.note)


def test_queries_it_cannot_answer_go_to_the_library(icml):
    lib, _ = icml
    for q in ("status:read", "graph tag:zebrafish", '"exact phrase"', "similar:abc", "rec:stars", "", "star:>=2 x",
              "sim-to-real", "pre-trained models"):  # (a compound's parts apart are read in the papers)
        assert quick_search(lib.folder, q, 10) is None, q


def test_a_stale_missing_or_damaged_cache_is_not_used(tmp_path, seeds_dir):
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([seeds_dir])
    assert quick_search(lib.folder, "robot", 5) is not None
    data = lib.index_path.read_bytes()
    # Another state of the corpus (its generation token differs): not this cache.
    lib.index_path.write_bytes(b"0123\n" + data.split(b"\n", 1)[1])
    assert quick_search(lib.folder, "robot", 5) is None
    lib.index_path.write_bytes(data[: len(data) // 2])  # cut short
    assert quick_search(lib.folder, "robot", 5) is None
    assert Library(lib.folder).index_cache.read_cache() is None  # the app rebuilds it rather than trust it
    # An index cache from before the pack format (a pickle under the right generation): an upgrade.
    import pickle

    lib.index_path.write_bytes(data.split(b"\n", 1)[0] + b"\n" + pickle.dumps({"v": 7, "vocab": []}))
    assert quick_search(lib.folder, "robot", 5) is None
    assert Library(lib.folder).index_cache.read_cache() is None
    assert len(Library(lib.folder).search.find("robot")) > 0  # rebuilt
    assert quick_search(lib.folder, "robot", 5) is not None
    lib.index_path.unlink()
    assert quick_search(lib.folder, "robot", 5) is None
    assert quick_search(tmp_path / "nowhere", "robot", 5) is None


def test_annotations_changed_by_another_process_are_seen(tmp_path, seeds_dir):
    """The journal is replayed as the TinyDB storage replays it."""
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([seeds_dir])
    pid = lib.corpus.papers[0].id
    lib.marks.add_tags([pid], ["quokka"])
    lib.marks.set_status([pid], "to-read")
    assert (tmp_path / "lib" / "annotations.json.journal").exists()
    rows, _, _, _ = quick_search(lib.folder, "quokka", 5)
    assert [(r.id, r.status, r.tags) for r in rows] == [(pid, "to-read", ["quokka"])]


def run_cli(*args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "tui", *args], capture_output=True, text=True, cwd=ROOT, env=env)


def test_cli_search_takes_the_quick_path_without_numpy(icml):
    """`papersift search` answers from the index file: numpy is never imported, and the
    output is what `papersift list --query` (always the Library) prints."""
    lib, _ = icml
    probe = ("import sys, runpy; sys.argv = ['papersift', '--library', sys.argv[1], 'search', 'graph', 'transfomer',"
             " '--format', 'plain', '--limit', '7']\n"
             "try:\n    runpy.run_module('tui', run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "assert 'numpy' not in sys.modules, 'numpy imported'\n")
    quick = subprocess.run([sys.executable, "-c", probe, str(lib.folder)], capture_output=True, text=True, cwd=ROOT)
    assert quick.returncode == 0, quick.stderr
    full = run_cli("--library", str(lib.folder), "list", "--query", "graph transfomer", "--format", "plain",
                   "--limit", "7")
    assert full.returncode == 0, full.stderr
    assert quick.stdout == full.stdout
    assert len(quick.stdout.splitlines()) == min(7, len(lib.search.find("graph transfomer").matches)) > 0
    table = run_cli("--library", str(lib.folder), "search", "zebrafish", env_extra={"COLUMNS": "200"})
    assert table.returncode == 0 and "#zebrafish" in table.stdout and "2 found · " in table.stdout


def test_cli_search_with_a_filter_or_stale_cache_still_answers(tmp_path, seeds_dir):
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([seeds_dir])
    lib.index_path.unlink()
    out = run_cli("--library", str(lib.folder), "search", "robot", "-tag:maybe", "--format", "plain")
    assert out.returncode == 0 and out.stdout.count("\n") >= 1, out.stderr
    assert lib.index_path.exists()  # the full path rebuilt the cache; the next search is quick
    assert quick_search(lib.folder, "robot", 5) is not None


def test_pack_sections_round_trip(tmp_path):
    from array import array

    words = sorted(["alpha", "beta", "betamax", "gamma", "épée", "ζeta", "9lives"])
    chunks = pack([("nums", "i", array("i", [1, -2, 3])), *words_sections("w", words), ("text", "s", "é\nx")])
    path = tmp_path / "p"
    path.write_bytes(b"".join(bytes(c) for c in chunks))
    with open(path, "rb") as fh:
        r = PackReader(fh)
        assert list(r.read("nums")) == [1, -2, 3] and list(r.read("nums", 1, 3)) == [-2, 3]
        assert r.lines("w") == words and r.read("text") == "é\nx"
        load = chunk_loader(r, "w")
        assert load("b") == (2, ["beta", "betamax"])
        assert load("é") == (5, ["épée"]) and load("q") == (0, [])
    path.write_bytes(b"something else\n")
    with open(path, "rb") as fh, pytest.raises(ValueError):
        PackReader(fh)


@pytest.mark.slow
def test_float32_arithmetic_is_reproduced_on_a_larger_library(tmp_path):
    """At 1,500 papers near-ties appear: summing in Python floats (not rounding each step to
    float32 as numpy does) reorders some of these queries' results."""
    spec = importlib.util.spec_from_file_location("generate", ROOT / "benchmarks" / "generate.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)  # the benchmarks' corpus generator (deterministic by seed)
    gen.write_dump(gen.generate(1500, seed=0), tmp_path / "c.txt")
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([tmp_path / "c.txt"])
    rng = random.Random(1)
    for i in range(0, len(lib), 3):
        words = re.findall(r"[a-z]{3,}", lib.corpus.papers[i].abstract.lower())
        q = " ".join(rng.sample(words, rng.choice([1, 2, 3])))
        q = q[:-1] if rng.random() < 0.3 else q
        found = quick_search(lib.folder, q, None)
        if found is None:  # a word written together whose parts may stand apart: the full path's
            assert lib.search.compound_words(parse_query(q)), q
            continue
        assert [r.id for r in found[0]] == [lib.corpus.papers[j].id for j in lib.search.find(q).indices], q


def test_display_sections_spliced_from_a_file_are_those_made_anew():
    """An import splices the ids, titles and flags of the papers it did not touch from the file
    it updates: byte for byte what they are made anew, a changed title (any script) included."""
    from store.search.packfile import pack
    from store.search.quick import display_sections, spliced_display_sections
    ids = [f"id{i}" for i in range(6)]
    titles = ["Graph nets", "", "Ré-sumé — naïve", "图神经网络", "Plain", "Last"]
    derived = [True, False, True, False, True, True]
    old = pack(display_sections(ids, titles, derived))
    header, *body = old
    data = b"".join(bytes(c) for c in body)
    extra = {}
    for entry in header.decode().split()[3:]:
        name, _kind, offset, length, _crc = entry.split(":")
        extra[name] = memoryview(data)[int(offset):int(offset) + int(length)]
    changed = {2: ("Résumé, second version", False), 4: ("Plain", True)}
    added = [("id6", "Nouveau ✓", True), ("id7", "", False)]
    want_titles = [changed.get(i, (t, d))[0] for i, (t, d) in enumerate(zip(titles, derived))] + ["Nouveau ✓", ""]
    want_derived = [changed.get(i, (t, d))[1] for i, (t, d) in enumerate(zip(titles, derived))] + [True, False]
    spliced = spliced_display_sections(extra, 6, changed, added)
    assert spliced is not None
    as_bytes = lambda chunks: b"".join(bytes(c) for c in chunks)  # noqa: E731
    assert as_bytes(pack(spliced)) == as_bytes(pack(display_sections(ids + ["id6", "id7"], want_titles, want_derived)))
    assert spliced_display_sections(extra, 5, changed, added) is None  # sections of another size
