"""A big import holds less: its dump read through a mapping a line at a time, its normalized texts
not kept (the index build normalizes again), no shingles kept (a candidate pair's rows are shingled
again), and the corpus read back from its file before the index build. Each way gives the library
a small import gives: the same papers, merges, titles and index, on a first import and on a day's
import into a library."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from store import Library
from store.ingest import merge_prep, parse
from store.library import papers as library_papers

from ..conftest import DATA, SEEDS


def _variant(text: str, rng: random.Random) -> str:
    words = text.split()
    for _ in range(3):  # three typos
        i = rng.randrange(len(words))
        words[i] = words[i][::-1]
    return " ".join(words) + " Code is public."


def _dumps(tmp_path: Path) -> tuple[list[Path], list[Path]]:
    abstracts = [json.loads(line)["abstract"] for line in (DATA / "icml_slice.jsonl").read_text().splitlines()]
    rng = random.Random(7)
    first = abstracts[:200] + [_variant(a, rng) for a in abstracts[:20]] + abstracts[30:35]
    second = abstracts[200:] + [_variant(a, rng) for a in abstracts[40:60]] + abstracts[60:70]
    paths = []
    for name, texts in (("day1.txt", first), ("day2.txt", second)):
        path = tmp_path / name
        path.write_text("ICML 2024 Papers\n\n" + "\n\n".join(texts) + "\n", encoding="utf-8")
        paths.append(path)
    keyworded = tmp_path / "iclr.jsonl"  # (titles and keywords: the index holds them)
    keyworded.write_text((DATA / "iclr_slice.jsonl").read_text(), encoding="utf-8")
    return [paths[0], keyworded], [paths[1]]


def _library_as_saved(lib: Library) -> list[dict]:
    """The corpus file's records, less what differs between two runs (a generation, the times)."""
    lines = [json.loads(line) for line in lib.folder.joinpath("corpus.jsonl").read_text().splitlines()]
    lines[0].pop("generation")
    for batch in lines[0].get("batches", []):
        batch.pop("time", None)
    for rec in lines[1:]:
        rec.pop("added", None)
    return lines


def _import_both(tmp_path: Path, name: str) -> tuple[list, list, list, dict]:
    day1, day2 = _dumps(tmp_path)
    lib = Library(tmp_path / name)
    summaries = []
    for day in (day1, day2):
        s = lib.paper_changes.import_paths(day)
        summaries.append((s.read, s.new, s.exact, s.near, s.known))
    saved = _library_as_saved(lib)
    index = Library(tmp_path / name).index
    arrays = {k: np.asarray(getattr(index, k)).tolist() for k in ("docs", "tf", "offsets", "idf")}
    arrays["terms"] = list(index.vocabulary.terms.words or [])
    found = [lib.search.find(q).indices.tolist() for q in ("graph neural networks", "reinforcement learning", "language model")]
    assert arrays["terms"] and arrays["docs"]
    return summaries, saved, found, arrays


@pytest.mark.slow
def test_a_big_import_s_ways_of_holding_less_give_the_same_library(tmp_path, monkeypatch):
    small = _import_both(tmp_path, "small")
    assert small[0][0][3] == 20 and small[0][1][3] == 20  # (near duplicates of new and of library papers)
    monkeypatch.setattr(parse, "MAP_DUMPS_FROM", 1)
    monkeypatch.setattr(merge_prep, "KEEP_NORMALIZED_CHARS", 0)
    monkeypatch.setattr(library_papers, "REREAD_FROM", 1)
    big = _import_both(tmp_path, "big")
    assert big[0] == small[0]
    assert big[1] == small[1]
    assert big[2] == small[2] and all(big[2])
    assert big[3] == small[3]


def test_titles_read_from_the_file_a_span_at_a_time_are_those_of_one_pass(tmp_path, monkeypatch):
    """The titles scan (the one-shot search's titles, a retitle's names) reads a mapped corpus a
    span of whole lines at a time, giving its pages back as it goes: the same titles and flags."""
    from store.corpus import Corpus
    from store import paper_lines

    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([DATA / "icml_slice.jsonl", DATA / "iclr_slice.jsonl", SEEDS])  # (seeds: derived titles)
    path = lib.folder / "corpus.jsonl"
    whole = Corpus.load(path).papers._scan_titles()  # (titles() would parse a line the scan missed)
    monkeypatch.setattr(paper_lines, "RELEASE_EVERY", 1)  # a span a line
    spans = list(Corpus.load(path).papers._windows())
    assert len(spans) == len(lib.corpus) and spans[0][0] < spans[-1][1]
    assert Corpus.load(path).papers._scan_titles() == whole
    monkeypatch.setattr(paper_lines, "RELEASE_EVERY", 5000)  # a few lines a span
    assert Corpus.load(path).papers._scan_titles() == whole
    assert set(whole[1]) == {True, False} and None not in whole[0]
