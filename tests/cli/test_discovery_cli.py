"""``papersift recommend`` and ``papersift similar`` read as a person reads them: the "like"
papers marked as what they are (★ starred, → to-read), "because" words that are the papers'
subject, never the words every abstract writes, and a similarity a reader can read."""

from __future__ import annotations

import json
import re

import pytest

STARRED, TO_READ, STARRED_TOO = "cd202dbcefd3", "98d3735f8ce4", "1833de17f3d4"  # TraceML, ScrapeBench, an online algorithm
GENERIC = {"negligible", "higher", "methodology", "combines", "analyze", "complicated", "challenging",
           "research", "process", "set", "step", "term", "efficiency", "outcome", "scale", "largescale", "costs",
           "project", "website", "page", "future"}  # ("Project page: https://…", "future work")


def test_recommend_marks_the_like_papers_and_explains_with_content_words(run_cli):
    run_cli("star", STARRED, "2")
    run_cli("star", STARRED_TOO, "1")
    run_cli("status", TO_READ, "to-read")
    lines = run_cli("recommend", "--limit", "15", "--format", "plain").stdout.splitlines()
    assert lines
    likes = [m for line in lines for m in re.findall(r"\(like (.*)\)$", line)]
    named = [name.strip() for like in likes for name in like.split(", ")]
    assert any(n.startswith("→ ScrapeBench") for n in named), named  # the to-read paper: →
    assert not any(n.startswith("★ ScrapeBench") for n in named), named  # never a star it does not have
    assert any(n.startswith("★ TraceML") for n in named), named
    because = [w for line in lines for m in re.findall(r"\(because: ([^)]*)\)", line) for w in m.split(", ")]
    assert because and not set(because) & GENERIC, sorted(set(because) & GENERIC)


def test_similar_prints_a_similarity_from_0_to_1_and_says_what_it_is(run_cli):
    lines = run_cli("similar", STARRED, "--limit", "5", "--format", "plain").stdout.splitlines()
    scores = [line.split("\t")[1] for line in lines]
    assert len(scores) == 5 and all(re.fullmatch(r"0\.\d\d|1\.00", s) for s in scores), scores
    helped = " ".join(run_cli("similar", "--help").stdout.split())
    assert "similarity" in helped and "0" in helped and "1" in helped, helped


def test_the_table_is_a_table_that_fits_the_terminal(run_cli):
    """--format table (the default) is columns with a header, each row within the terminal's width
    (the tests' 160 columns), the title cut with "…" rather than the id, the reason wrapped under
    itself (a line cut off the marked papers it is like); plain stays one tab-separated line a
    paper, for scripts."""
    run_cli("star", STARRED, "2")
    table = run_cli("recommend", "--limit", "5").stdout.splitlines()
    rows = [i for i, line in enumerate(table) if re.match(r"[0-9a-f]{12}  ", line)]
    assert table[0].split() == ["id", "score", "title", "why"] and len(rows) == 5 and rows[0] == 1
    assert all(len(line) <= 160 for line in table) and all(table[i].startswith(" " * 12) for i in range(1, len(table))
                                                          if i not in rows)
    assert not any("\t" in line for line in table)
    why_at = table[0].index("why")
    whys = [" ".join(line[why_at:].strip() for line in table[a:b]) for a, b in zip(rows, [*rows[1:], len(table)])]
    assert all("like ★ TraceML" in why and "…" not in why for why in whys), whys
    plain = run_cli("recommend", "--limit", "5", "--format", "plain").stdout.splitlines()
    assert [line.split("\t")[0] for line in plain] == [table[i].split()[0] for i in rows]
    similar = run_cli("similar", STARRED, "--limit", "3").stdout.splitlines()
    assert similar[0].split() == ["id", "score", "title"] and len(similar) == 4


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_recommend_with_none_left_or_none_asked_says_the_right_thing(run_cli):
    """`recommend --limit 0` said "nothing to list: mark a few papers first" to a reader who had
    marked papers: --limit 0 lists nothing and says nothing; with every paper triaged it says
    none is left to recommend."""
    ids = [r["id"] for r in json.loads(run_cli("list", "--format", "json").stdout)]
    run_cli("star", ids[0], "2")
    proc = run_cli("recommend", "--limit", "0")
    assert proc.stdout == "" and proc.stderr == ""
    run_cli("status", *ids[1:], "skipped")
    assert "no unread paper is left to recommend" in run_cli("recommend").stdout
    assert run_cli("similar", ids[0], "--limit", "0").stdout == ""
