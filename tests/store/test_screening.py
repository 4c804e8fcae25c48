"""The library's triage queue (store.library.screening): the recommended order learns from every
mark, explains a paper when asked, and says how far down it is worth reading."""

from __future__ import annotations

import json

import numpy as np
import pytest

from store import Library
from store.errors import PapersiftError
from store.library.screening import Estimate

from ..conftest import DATA


def _library(tmp_path):
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([DATA / "iclr_slice.jsonl"])
    areas = {json.loads(line)["title"]: json.loads(line)["primary_area"]
             for line in (DATA / "iclr_slice.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()}
    return lib, [areas.get(p.title) for p in lib.corpus]


def test_nothing_marked_is_said_and_a_skip_alone_teaches(tmp_path):
    lib, areas = _library(tmp_path)
    with pytest.raises(PapersiftError, match="nothing to learn from yet: mark a paper"):
        lib.discovery.recommend(None)
    with pytest.raises(PapersiftError, match="nothing to learn from yet"):
        lib.discovery.most_likely(np.arange(10))
    assert lib.discovery.screening.estimate() is None
    ids = lib.corpus.ids()
    rl = [i for i, a in enumerate(areas) if a == "reinforcement learning"]
    lib.marks.set_status([ids[i] for i in rl[:5]], "skipped")          # five RL papers skipped
    recs = lib.discovery.recommend(None, limit=20)
    assert not any(r.paper.id in {ids[i] for i in rl[:5]} for r in recs)
    assert sum(lib.corpus.index_of(r.paper.id) in rl for r in recs) <= 1   # the rest of RL pushed down
    assert lib.discovery.screening.estimate() is None                           # nothing wanted yet


def test_every_mark_teaches_and_the_list_is_explained_when_asked(tmp_path):
    lib, areas = _library(tmp_path)
    ids = lib.corpus.ids()
    rl = [i for i, a in enumerate(areas) if a == "reinforcement learning"]
    lib.marks.set_status([ids[rl[0]]], "read")        # read and kept: a weak yes
    lib.marks.add_tags([ids[rl[1]]], ["agents"])      # a tag alone: a weak yes
    lib.marks.set_star([ids[rl[2]]], 1)
    recs = lib.discovery.recommend(None, limit=10)
    assert sum(lib.corpus.index_of(r.paper.id) in rl for r in recs) >= 5
    assert all(r.because and r.like for r in recs)
    assert all(set(r.like) <= {ids[i] for i in rl[:3]} for r in recs)
    whole = lib.discovery.recommend(None, limit=len(lib), explain=False)   # the recommended sort's ordering
    assert not any(r.because for r in whole)
    later = whole[-1].paper.id
    explained = lib.discovery.last_recommendations[later]             # the reader asks for one: explained then
    assert explained.paper.id == later and explained.because
    assert len(whole) == len(lib) - 3 == len(lib.discovery.last_recommendations)   # the marked papers are not in it
    assert lib.discovery.last_recommendations.get(lib.corpus.ids()[rl[0]]) is None


def test_most_likely_is_the_list_papers_first_in_the_queue(tmp_path):
    lib, areas = _library(tmp_path)
    ids = lib.corpus.ids()
    rl = [i for i, a in enumerate(areas) if a == "reinforcement learning"]
    lib.marks.set_status([ids[rl[0]]], "to-read")
    rows = np.array([i for i in range(len(lib)) if i != rl[0]][:120])
    best = lib.discovery.most_likely(rows)
    ranked = [lib.corpus.index_of(r.paper.id) for r in lib.discovery.recommend(None, limit=len(lib))]
    assert best == min(rows.tolist(), key=ranked.index)
    lib.marks.set_status([ids[i] for i in rows], "skipped")
    assert lib.discovery.most_likely(rows) is None                      # every paper of that list is marked


def test_the_estimate_in_words(tmp_path):
    assert Estimate(3, 40, 900, False, 12).words() == "3 wanted found; mark 38 more to estimate how many are left"
    # (35 papers, 6 marked: 50 marks cannot be reached, and "mark 44 more" with 29 unread was no advice)
    assert Estimate(7, 2, 29, False, 6).words() == "7 wanted found; likely at most 2 more among 29 unmarked"
    assert Estimate(30, 4, 2100, False, 300).words() == "30 wanted found; likely at most 4 more among 2,100 unmarked"
    # (the sample with 4 marks: "likely at most 30 more among 30 unread" said nothing)
    assert Estimate(4, 30, 30, False, 5).words() == ("4 wanted found; too few read to bound how many of the 30 "
                                                     "unmarked are wanted")
    assert Estimate(30, 0, 2100, True, 900).words() == ("30 wanted found; likely none left among 2,100 unmarked · "
                                                       "95% found by the stopping test: you may stop")
    lib, areas = _library(tmp_path)
    ids = lib.corpus.ids()
    lib.marks.set_status(ids[:60], "skipped")
    lib.marks.set_status([ids[i] for i in range(60) if areas[i] == "reinforcement learning"] or [ids[0]], "to-read")
    est = lib.discovery.screening.estimate()
    assert est is not None and est.marked == 60 and est.unread == len(lib) - 60 and est.found >= 1


def test_because_words_are_spelled_as_the_paper_writes_them():
    from store.discovery.content_words import as_written
    text = "A sample-efficient, model-based method. Model-based control is sample efficient."
    assert as_written(["sampleefficient", "modelbased", "control"], text) == ["sample-efficient", "model-based", "control"]
