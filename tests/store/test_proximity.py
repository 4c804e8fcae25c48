"""Query words standing close together rank first (store.search.proximity), alike in the full
search, the one-shot search and the command line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from store import Library
from store.search import proximity
from store.search.quick import quick_search

from ..conftest import ROOT

def span(texts: list[str], groups: list[frozenset[str]]) -> int:
    return proximity.min_span(proximity.tokens_of(texts), groups)


WORDS = [frozenset({"language"}), frozenset({"model", "models"}), frozenset({"task", "tasks"}), frozenset({"planning"})]


def test_the_span_is_the_fewest_words_holding_every_query_word():
    assert span(["we use language models for task planning"], WORDS) == 5
    assert span(["task planning with a language model"], WORDS) == 6  # (any order)
    assert span(["language models. Later: planning a task"], WORDS) == 6
    assert span(["a language model here and far away a task ... language model for task planning"],
                              WORDS) == 5  # (the closest window, not the first)
    assert span(["language model", "task planning"], WORDS) == 0  # (never across title and abstract)
    assert span(["$\\textbf{Language}$ Models: task-planning"], WORDS) == 4  # (as the index reads text)


def test_word_groups_are_each_content_words_forms():
    forms = {"language": frozenset({"language"}), "model": frozenset({"model", "models"}), "zzz": frozenset()}
    groups = proximity.word_groups(["language", "of", "model", "zzz", "sim-to-real", "model"],
                                   lambda w: forms.get(w, frozenset({w})))
    assert groups == [frozenset({"language"}), frozenset({"model", "models"})]  # (stop word, compound, unknown: out)
    either = proximity.word_groups(["language", "model", "planner", "sim-to-real", "zzz"], lambda w: forms.get(w, frozenset({w})),
                                   [["model", "planner"], ["sim-to-real", "zzz"]])
    assert either == [frozenset({"language"}), frozenset({"model", "models", "planner"})]  # (an OR group is one; with a compound, out)


def test_reordered_adds_the_bonus_and_keeps_ties_in_order():
    keys = [10.0, 9.5, 9.0, 9.0]
    assert proximity.reordered(keys, [0, 4, 0, 0], 4) == [1, 0, 2, 3]  # 9.5 + 2.0 passes 10.0
    assert proximity.reordered(keys, [0, 0, 8, 0], 4) == [0, 2, 1, 3]  # 9.0 + 1.0 passes 9.5, not 10.0
    assert proximity.reordered(keys, [0, 0, 0, 0], 4) == [0, 1, 2, 3]


SCATTERED = ("A language model is trained on text. It is then tested on a task from a robot benchmark, and we "
             "report the cost of its planning.")
TOGETHER = ("Robots must act from instructions. We use large language models for task planning and "
            "ground each step in what the robot sees, and we evaluate the system on a real robot.")
OTHERS = ["Graph neural networks for molecules and their property prediction.",
          "Diffusion models generate images from text prompts with guidance."]


@pytest.fixture()
def planners(tmp_path):
    dump = tmp_path / "dump.txt"
    dump.write_text("TEST\n\n" + "\n\n".join([SCATTERED, TOGETHER, *OTHERS]) + "\n")
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([dump])
    ids = {p.abstract[:20]: p.id for p in lib.corpus}
    return lib, ids[SCATTERED[:20]], ids[TOGETHER[:20]]


def test_a_paper_writing_the_words_together_ranks_above_one_scattering_them(planners, monkeypatch):
    lib, scattered, together = planners
    query = "language model task planning"
    order = [lib.corpus.papers[i].id for i in lib.search.find(query).indices]
    assert order[:2] == [together, scattered]
    rows, _, full, _ = quick_search(lib.folder, query, None)
    assert [r.id for r in rows][:2] == [together, scattered] and full == 2  # (the one-shot search alike)
    monkeypatch.setattr(proximity, "PHRASE_WEIGHT", 0.0)  # BM25 alone ranks the scattered paper first
    assert [lib.corpus.papers[i].id for i in lib.search.find(query).indices][:2] == [scattered, together]
    assert [r.id for r in quick_search(lib.folder, query, None)[0]][:2] == [scattered, together]


def test_the_command_line_lists_them_in_that_order(planners):
    lib, scattered, together = planners
    out = subprocess.run([sys.executable, "-m", "tui", "--library", str(lib.folder), "search",
                          "language model task planning", "--format", "json"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.index(together) < out.stdout.index(scattered)


def test_an_index_file_without_line_starts_is_written_again_with_them(planners):
    lib, scattered, together = planners
    from store.search.packfile import PackReader

    lib.corpus.line_starts = None  # as a cache from before line starts were kept
    lib.index_cache.build()
    with open(lib.index_path, "rb") as fh:
        fh.readline()
        assert "lines" not in PackReader(fh)
    assert quick_search(lib.folder, "language model task planning", None) is None  # (the full path answers)
    assert quick_search(lib.folder, "planning", None) is not None  # (one word: nothing to read again)
    again = Library(lib.folder)
    assert len(again.search.find("planning")) == 2  # (the cache loaded, and written with the line starts)
    assert [r.id for r in quick_search(lib.folder, "language model task planning", None)[0]][:2] == [together, scattered]


def test_line_starts_that_are_not_the_papers_lines_are_not_trusted(planners):
    lib, _, _ = planners
    assert lib.corpus.line_starts is not None
    lib.corpus.line_starts = lib.corpus.line_starts + 3  # (a damaged or forged index file)
    lib.index_cache.build()
    assert quick_search(lib.folder, "language model task planning", None) is None
