"""The surface test of the query language: every filter family of store.search.query, alone,
negated and combined, through lib.search.find and through `papersift list --query` (a real
process), each checked against a direct computation over the papers. Generated from the
parser's tables: a new filter without a row here fails the first test."""

from __future__ import annotations

import json
import os
import subprocess
import unicodedata

import pytest

from store import Library
from store.records import Annotation
from store.search import query as query_module

from ..conftest import DATA, papersift_argv
from ..surface import SLICE

# Per family: a value that some papers have, and how a paper (its fields and annotation) holds it.
# The values are chosen from the fixture's papers below.


def fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in text if not unicodedata.combining(c))


def folded_text(paper, ann) -> str:
    text = " ".join(part for part in (paper.title, *paper.keywords, paper.abstract) if part)
    return " ".join(text.casefold().split()), " ".join(ann.note.casefold().split())


def has_phrase(paper, ann, phrase: str) -> bool:
    text, note = folded_text(paper, ann)
    return phrase in text or phrase in note


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    """610 real papers from three files (300 ICML with authors, venues, years and links; 300 ICLR
    with keywords and areas), and annotations of every kind on some of them."""
    root = tmp_path_factory.mktemp("filters")
    lines = SLICE.read_text().splitlines()
    (root / "icml-part.jsonl").write_text("\n".join(lines[:300]) + "\n")
    (root / "iclr-part.jsonl").write_text("\n".join(lines[1000:1300]) + "\n")
    older = [{**json.loads(line), "year": "2023", "venue": "ICML 2023"} for line in lines[300:310]]
    (root / "older.jsonl").write_text("".join(json.dumps(r) + "\n" for r in older))
    lib = Library.open(root / "lib", seed_if_new=False)
    lib.paper_changes.import_paths([root / "icml-part.jsonl", root / "iclr-part.jsonl", root / "older.jsonl"])
    days = DATA / "arxiv_days"
    lib.paper_changes.import_paths([days / "day1.xml"])  # batch 2
    lib.paper_changes.import_paths([days / "day2.xml"])  # batch 3: twelve new papers, one of day 2's in a second version
    ids = [p.id for p in lib.corpus.papers]
    lib.marks.set_status(ids[0:40], "read")
    lib.marks.set_status(ids[40:60], "to-read")
    lib.marks.set_status(ids[60:70], "skipped")
    lib.marks.set_star(ids[0:15], 1)
    lib.marks.set_star(ids[15:20], 3)
    lib.marks.add_tags(ids[5:50:3], ["alpha"])
    lib.marks.add_tags(ids[300:340:2], ["beta"])
    lib.marks.set_note(ids[7], "a note about contrastive objectives")
    ana, ben = Library(root / "lib", member="ana"), Library(root / "lib", member="ben")  # a lab's marks too
    ana.marks.set_star(ids[0:30], 2)
    ana.marks.set_status(ids[100:120], "skipped")
    ana.marks.add_tags(ids[110:140:2], ["rl"])
    ben.marks.set_note(ids[45], "a Baseline worth rerunning")
    ben.marks.set_note(ids[46], "read the appendix")
    ben.marks.set_star(ids[100:110], 1)
    ben.marks.set_status(ids[20:40], "read")
    lib.team.assign(["ana", "ben"], ids[200:260])
    lib.refresh()
    return lib


def team_star(lib: Library, pid: str) -> int:
    return sum(anns[pid].star for anns in lib.member_marks.values() if pid in anns)


def member_ann(lib: Library, member: str, pid: str):
    return lib.member_marks.get(member, {}).get(pid) or Annotation(pid)


def split_one(lib: Library, pid: str) -> bool:
    anns = [a[pid] for a in lib.member_marks.values() if pid in a]
    return any(a.star for a in anns) and any(a.status == "skipped" and not a.star for a in anns)


def oracle_families(lib: Library) -> dict[str, tuple[str, object]]:
    """family -> (the filter as typed, a predicate over (paper, annotation))."""
    some_icml, some_iclr = lib.corpus.papers[3], lib.corpus.papers[305]
    author = fold(some_icml.authors[0]).split()[-1]
    keyword = fold(some_iclr.keywords[0]).split()[0]
    return {
        "status": ("status:read", lambda p, a: a.status == "read"),
        "is": ("is:to-read", lambda p, a: a.status == "to-read"),
        "tag": ("tag:alpha", lambda p, a: "alpha" in a.tags),
        "star": ("star:>=1", lambda p, a: a.star >= 1),
        "stars": ("stars:3", lambda p, a: a.star == 3),
        "kw": (f"kw:{keyword}", lambda p, a: any(keyword in fold(k) for k in [*p.keywords, p.area] if k)),
        "keyword": (f"keyword:{keyword}", lambda p, a: any(keyword in fold(k) for k in [*p.keywords, p.area] if k)),
        "keywords": (f"keywords:{keyword}", lambda p, a: any(keyword in fold(k) for k in [*p.keywords, p.area] if k)),
        "author": (f"author:{author}", lambda p, a: any(author in w for n in p.authors for w in fold(n).split())),
        "venue": ("venue:icml", lambda p, a: "icml" in p.venue.casefold()),
        "year": ("year:>=2024", lambda p, a: p.year.isdigit() and int(p.year) >= 2024),
        "file": ("file:iclr-part", lambda p, a: any("iclr-part" in s.file.casefold() for s in p.sources)),
        "id": (f"id:{some_icml.id[:8]}", lambda p, a: p.id.startswith(some_icml.id[:8])),
        "phrase": ('"reinforcement learning"', lambda p, a: has_phrase(p, a, "reinforcement learning")),
        "topic": ("topic:0", None),  # the model's own labels: checked against lib.discovery.topics() below
        "by": ("by:ben", lambda p, a: member_ann(lib, "ben", p.id).marked),
        "star-by": ("star-by:ana:>=2", lambda p, a: member_ann(lib, "ana", p.id).star >= 2),
        "status-by": ("status-by:ana:skipped", lambda p, a: member_ann(lib, "ana", p.id).status == "skipped"),
        "tag-by": ("tag-by:ana:rl", lambda p, a: "rl" in member_ann(lib, "ana", p.id).tags),
        "note-by": ("note-by:ben:baseline", lambda p, a: "baseline" in member_ann(lib, "ben", p.id).note.casefold()),
        "team-star": ("team-star:>=3", lambda p, a: team_star(lib, p.id) >= 3),
        "split": ("split:", lambda p, a: split_one(lib, p.id)),
        "assigned": ("assigned:ben", lambda p, a: lib.assignments.get(p.id) == "ben"),
        "new": ("new:", lambda p, a: p.batch == 3),
        "batch": ("batch:>=2", lambda p, a: p.batch >= 2),
        "added": (f"added:>={lib.corpus.batches[0]['time'][:10]}", lambda p, a: bool(p.added)),
        "updated": ("updated:", lambda p, a: p.revised > 0),
    }


def expected(lib: Library, predicate) -> list[str]:
    return [p.id for p in lib.corpus.papers if predicate(p, lib.annotation(p.id))]


def found(lib: Library, query: str) -> list[str]:
    result = lib.search.find(query)
    assert not result.errors, (query, result.errors)
    return [lib.corpus.papers[int(i)].id for i in result.matches]


def listed(lib: Library, query: str) -> list[str]:
    env = {**os.environ, "PAPERSIFT_LIBRARY": str(lib.folder), "NO_COLOR": "1"}
    proc = subprocess.run([*papersift_argv(), "list", "--query", query, "--format", "json"], capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 0 and "warning" not in proc.stderr, (query, proc.stderr)
    return [row["id"] for row in json.loads(proc.stdout)]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_every_filter_family_of_the_parser_has_a_row(lib):
    families = (set(query_module._LISTS) | set(query_module._READERS) | set(query_module.TEAM_KINDS)
                | set(query_module.ARRIVAL_KINDS) | {"phrase", "similar", "rec"})
    covered = set(oracle_families(lib)) | {"similar", "rec"}  # (the orderings: their own tests below)
    assert families == covered


@pytest.mark.parametrize("family", ["status", "is", "tag", "star", "stars", "kw", "keyword", "keywords", "author",
                                    "venue", "year", "file", "id", "phrase", "topic", "by", "star-by",
                                    "status-by", "tag-by", "note-by", "team-star", "split", "assigned", "new", "batch", "updated"])
# (added: every paper here arrived on one day, so no date selects some and leaves some: tests/store/test_batches.py)
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_each_family_alone_and_negated_matches_the_papers(lib, family):
    typed, predicate = oracle_families(lib)[family]
    if predicate is None:  # topic:N: the papers the topic model puts in topic N
        labels, _ = lib.discovery.topics()
        ids = [p.id for p in lib.corpus.papers]

        def predicate(p, a):
            return labels[ids.index(p.id)] == 0
    want = expected(lib, predicate)
    assert 0 < len(want) < len(lib), (typed, len(want))  # a filter that selects, and leaves some out
    assert sorted(found(lib, typed)) == sorted(want), typed
    unwanted = expected(lib, lambda p, a: not predicate(p, a))
    assert sorted(found(lib, "-" + typed)) == sorted(unwanted), "-" + typed


def test_families_combined_and_negated_together(lib):
    fams = oracle_families(lib)
    combos = [("status", "-tag"), ("-status", "star", "file"), ("kw", "-year", "-phrase"), ("venue", "-author"),
              ("-star", "-status", "-file"), ("tag", "star", "-id"), ("by", "-star-by", "-assigned"),
              ("team-star", "-split", "status"), ("batch", "-new", "-updated"),
              ("by", "-status-by", "star-by"), ("status-by", "-tag-by", "-assigned"), ("-note-by", "by", "-star")]
    for combo in combos:
        typed, preds = [], []
        for part in combo:
            neg = part.startswith("-")
            text, pred = fams[part.lstrip("-")]
            typed.append(("-" if neg else "") + text)
            preds.append((lambda pr, n: (lambda p, a: pr(p, a) != n))(pred, neg))
        query = " ".join(typed)
        want = expected(lib, lambda p, a, preds=preds: all(pr(p, a) for pr in preds))
        assert sorted(found(lib, query)) == sorted(want), query


def test_a_negated_word_leaves_out_the_papers_holding_it(lib):
    want = expected(lib, lambda p, a: not has_phrase(p, a, "transformer"))
    assert sorted(found(lib, "-transformer")) == sorted(want) and 0 < len(want) < len(lib)


def test_similar_lists_the_papers_most_like_one_and_cannot_be_negated(lib):
    pid = lib.corpus.papers[10].id
    shown = found(lib, f"similar:{pid}")
    assert pid not in shown and shown[:10] == [p.id for p, _ in lib.discovery.similar(pid, 10)]
    result = lib.search.find(f"-similar:{pid}")
    assert result.errors and "cannot be negated" in result.errors[0]
    assert found(lib, f"similar:{pid} status:read") == [i for i in shown if lib.annotation(i).status == "read"]


def test_rec_orders_by_the_marks_and_cannot_be_negated(lib):
    shown = found(lib, "rec:stars")
    assert shown[:10] == [r.paper.id for r in lib.discovery.recommend(None, limit=10)]
    assert "cannot be negated" in lib.search.find("-rec:stars").errors[0]


@pytest.mark.slow  # (11 s: a subprocess per filter family)
def test_the_command_line_gives_the_same_sets(lib):
    fams = oracle_families(lib)
    queries = [typed for typed, _ in fams.values()] + ["-" + typed for typed, _ in fams.values()]
    queries += ["status:read -tag:alpha", "-status:unread star:>=1", f"similar:{lib.corpus.papers[10].id}",
                "-transformer"]
    for query in queries:
        assert listed(lib, query) == found(lib, query), query


@pytest.mark.parametrize(("typed", "want"), [
    ("status-by:ana", lambda ann: ann.status != "unread"),
    ("status-by:ana:un", lambda ann: ann.status == "unread"),
    ("tag-by:ana", lambda ann: bool(ann.tags)),
    ("note-by:ben", lambda ann: bool(ann.note)),
])
def test_a_member_filter_without_its_detail_reads_any_and_unread_is_every_other(lib, typed, want):
    """status-by:ana is any status she gave; status-by:ana:unread every paper she gave none; tag-by:
    and note-by: without a tag or a word are any tag, any note."""
    member = typed.split(":")[1]
    assert sorted(found(lib, typed)) == sorted(p.id for p in lib.corpus.papers if want(member_ann(lib, member, p.id)))


def test_a_member_filter_that_cannot_be_read_is_said():
    from store.search.query import parse_query
    assert "statuses: unread" in parse_query("status-by:ana:done").errors[0]
    assert "tag-by:ana:rl" in parse_query("tag-by::rl").errors[0]


@pytest.mark.slow  # (a process per filter: ~20 s)
def test_a_filter_typed_with_no_value_is_refused_on_the_command_line_with_an_example(lib):
    """`papersift list --query "tag: rl"` read every paper (the filter, still being typed as far as
    the parser knew, was passed over). On a command line the query is done: a filter that needs a
    value and has none is refused, with an example that reads; one that means something alone
    (``new:``, ``assigned:``) is run. Generated from the parser's tables."""
    from store.search.query import parse_query, valueless_filters
    families = (set(query_module._LISTS) | set(query_module._READERS) | set(query_module.TEAM_KINDS)
                | set(query_module.ARRIVAL_KINDS) | {"similar", "rec"})
    env = {**os.environ, "PAPERSIFT_LIBRARY": str(lib.folder), "NO_COLOR": "1", "COLUMNS": "200"}
    for family in sorted(families):
        for typed in (f"{family}:", f"-{family}:"):
            proc = subprocess.run([*papersift_argv(), "list", "--query", typed, "--format", "json"],
                                  capture_output=True, text=True, env=env, timeout=120)
            if typed == "-rec:":
                assert proc.returncode == 1 and "cannot be negated" in proc.stderr
                continue
            if family in ("new", "updated", "split", "assigned", "rec"):
                assert proc.returncode == 0 and json.loads(proc.stdout) is not None, (typed, proc.stderr)
                continue
            assert proc.returncode == 1 and f"{family}: has no value (e.g. {family}:" in proc.stderr, (typed, proc.stderr)
            example = proc.stderr.split("(e.g. ", 1)[1].split(")", 1)[0]
            assert not valueless_filters(example) and not parse_query(example).errors, (typed, example)
