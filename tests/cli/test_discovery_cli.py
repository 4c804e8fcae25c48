"""``papersift recommend`` and ``papersift similar`` read as a person reads them: the "like"
papers marked as what they are (★ starred, → to-read), "because" words that are the papers'
subject, never the words every abstract writes, and a similarity a reader can read."""

from __future__ import annotations

import re

STARRED, TO_READ, STARRED_TOO = "cd202dbcefd3", "98d3735f8ce4", "1833de17f3d4"  # TraceML, ScrapeBench, an online algorithm
GENERIC = {"negligible", "higher", "methodology", "combines", "analyze", "complicated", "challenging",
           "research", "process", "set", "step", "term", "efficiency", "outcome", "scale", "largescale", "costs"}


def test_recommend_marks_the_like_papers_and_explains_with_content_words(run_cli):
    run_cli("star", STARRED, "2")
    run_cli("star", STARRED_TOO, "1")
    run_cli("status", TO_READ, "to-read")
    lines = run_cli("recommend", "--limit", "15").stdout.splitlines()
    assert lines
    likes = [m for line in lines for m in re.findall(r"\(like (.*)\)$", line)]
    named = [name.strip() for like in likes for name in like.split(", ")]
    assert any(n.startswith("→ ScrapeBench") for n in named), named  # the to-read paper: →
    assert not any(n.startswith("★ ScrapeBench") for n in named), named  # never a star it does not have
    assert any(n.startswith("★ TraceML") for n in named), named
    because = [w for line in lines for m in re.findall(r"\(because: ([^)]*)\)", line) for w in m.split(", ")]
    assert because and not set(because) & GENERIC, sorted(set(because) & GENERIC)


def test_similar_prints_a_similarity_from_0_to_1_and_says_what_it_is(run_cli):
    lines = run_cli("similar", STARRED, "--limit", "5").stdout.splitlines()
    scores = [line.split("\t")[1] for line in lines]
    assert len(scores) == 5 and all(re.fullmatch(r"0\.\d\d|1\.00", s) for s in scores), scores
    helped = " ".join(run_cli("similar", "--help").stdout.split())
    assert "similarity" in helped and "0" in helped and "1" in helped, helped
