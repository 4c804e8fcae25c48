"""Imports as batches, arXiv papers seen again (store.ingest.batches): three recorded days of
arXiv's feed imported in order, with a new version and a cross-list among them, and the new:,
batch:, added: and updated: filters."""

from __future__ import annotations

import pytest

from store.ingest.batches import arxiv_key
from store.library import Library

from ..conftest import DATA

DAYS = [DATA / "arxiv_days" / f"day{n}.xml" for n in (1, 2, 3)]


@pytest.fixture
def daily(tmp_path) -> Library:
    lib = Library.open(tmp_path / "daily", seed_if_new=False)
    return lib


def ids(lib: Library, query: str) -> list[str]:
    result = lib.search.find(query)
    assert not result.errors, result.errors
    return [lib.corpus.papers[int(i)].id for i in result.matches]


def test_arxiv_keys():
    assert arxiv_key("2412.10003v2") == ("2412.10003", 2)
    assert arxiv_key("arXiv:2412.10003") == ("2412.10003", 0)
    assert arxiv_key("https://arxiv.org/abs/cs/0601001v1") == ("cs/0601001", 1)
    assert arxiv_key("openreview:abc") is None and arxiv_key("") is None


def test_three_days_in_order_number_their_batches(daily):
    summaries = [daily.paper_changes.import_paths([day]) for day in DAYS]
    assert [(s.batch, s.new, s.revised) for s in summaries] == [(1, 12, 0), (2, 12, 1), (3, 12, 0)]
    assert (summaries[1].exact, summaries[1].known) == (0, 1)  # the cross-list: the paper seen on day one, not a duplicate
    assert [b["n"] for b in daily.corpus.batches] == [1, 2, 3]
    assert len(ids(daily, "new:")) == 12 and set(ids(daily, "new:")) == set(ids(daily, "batch:3"))
    assert len(ids(daily, "batch:>=2")) == 24 and len(ids(daily, "-new:")) == 24
    day = daily.corpus.batches[0]["time"][:10]
    assert len(ids(daily, f"added:{day}")) == 36 and ids(daily, "added:<2000") == []
    reopened = Library(daily.folder)  # kept in the corpus file: a fresh process sees the same
    assert [b["n"] for b in reopened.corpus.batches] == [1, 2, 3] and len(ids(reopened, "batch:2")) == 12


def test_a_new_version_updates_the_text_and_keeps_every_mark(daily):
    daily.paper_changes.import_paths([DAYS[0]])
    v1 = next(p for p in daily.corpus if p.external_id == "2412.10003v1")
    first_text = v1.abstract
    daily.marks.set_star([v1.id], 3)
    Library(daily.folder, member="ana").marks.add_tags([v1.id], ["read-again"])
    daily.paper_changes.import_paths([DAYS[1]])
    daily.refresh()
    paper = daily.paper(v1.id)
    assert paper.abstract.endswith("three more benchmarks.") and paper.version == 2 and paper.revised == 2
    assert paper.versions[0]["abstract"] == first_text  # the text it replaced is kept
    assert daily.annotation(v1.id).star == 3 and daily.member_marks["ana"][v1.id].tags == ["read-again"]
    assert ids(daily, "updated:") == [v1.id] and v1.id not in ids(daily, "new:")
    from store.formats.records import paper_record
    rec = paper_record(paper, daily.annotation(v1.id))  # what `list --format json` and exports say of it
    assert (rec["batch"], rec["version"], rec["revised"]) == (1, 2, 2) and rec["added"]
    again = daily.paper_changes.import_paths([DAYS[1]])  # the same day again: nothing new, nothing revised, no batch
    assert (again.new, again.revised, again.batch) == (0, 0, 0) and len(daily.corpus.batches) == 2


def test_a_library_from_before_batches_says_so(daily, tmp_path):
    daily.paper_changes.import_paths([DAYS[0]])
    daily.corpus.batches = []
    result = daily.search.find("new:")
    assert any("no import here is numbered yet" in e for e in result.errors)
    assert any("bad batch filter" in e for e in daily.search.find("batch:x").errors)
    assert any("bad added filter" in e for e in daily.search.find("added:yesterday").errors)


def test_new_says_why_it_lists_none_when_the_newest_imports_papers_are_gone(daily):
    """After the newest import's papers were removed, `new:` listed none and said nothing, read as
    an import that brought none: it says its papers are gone and names the batch before."""
    for day in DAYS[:2]:
        daily.paper_changes.import_paths([day])
    newest = ids(daily, "new:")
    daily.remove(newest)
    result = daily.search.find("new:")
    assert len(result) == 0 and result.errors == [
        "new: lists the newest import, batch 2, and none of its papers is here now (removed since): "
        "batch:1 lists the one before"]
    assert not daily.search.find("-new:").errors and len(ids(daily, "batch:1")) == 12
    for n in (0, 3, 99):  # (batch:99 said nothing, as if an import had brought none)
        assert daily.search.find(f"batch:{n}").errors == [f"no import numbered {n} here: the imports are batch:1 to batch:2"]
    assert not daily.search.find("batch:>=5").errors


def test_a_date_that_is_no_day_is_said_and_lists_no_paper(daily):
    """`added:2026-13` listed no paper and said nothing (exit 0), as if none had arrived that
    month, where `added:garbage` is refused: a month or a day that is none is said so, and the
    query lists no paper once typed; a date still being typed (2026-1) is passed over."""
    from store.search.query import parse_query
    daily.paper_changes.import_paths([DAYS[0]])
    for value in ("2026-13", "2026-02-30", ">=2026-00", "2025-04-31"):
        q = parse_query(f"added:{value}")
        assert q.errors == [f"bad added filter {value!r}: no such date (added:2026-12-01, added:>=2026-12)"], value
        assert q.unapplied and len(daily.search.find(f"added:{value}")) == 0
    for value in ("2026", "2026-12", ">=2024-02-29", "<2026-12-31"):
        assert not parse_query(f"added:{value}").errors, value
    typing = parse_query("added:2026-1", cursor=len("added:2026-1"))
    assert not typing.errors and not typing.unapplied


def test_archive_moves_old_skipped_papers_out_with_every_mark_and_undo_brings_them_back(daily):
    import orjson

    from store.library.removal import archive_papers, skipped_before
    daily.paper_changes.import_paths([DAYS[0]])
    a, b, c, d, e = [p.id for p in daily.corpus][:5]
    daily.marks.set_status([a, b, c, d, e], "skipped")
    daily.marks.add_tags([a], ["meh"])
    ana = Library(daily.folder, member="ana")
    ana.marks.set_star([b], 2)  # a member wants it (starred, to read, or assigned to them): not archived
    ana.marks.set_status([d], "to-read")
    daily.team.assign(["ana"], [e], None, new_members=True)
    daily.team.assign([daily.member], [c], None)  # (assigned to oneself: one's own to archive)
    daily.refresh()
    assert skipped_before(daily, "2000-01-01") == []
    chosen = skipped_before(daily, "2999-01-01")
    assert sorted(chosen) == sorted([a, c])
    assert archive_papers(daily, chosen, "archive 2 papers") == 2
    assert daily.corpus.index_of(a) is None and len(daily) == 10
    kept = [orjson.loads(line) for line in (daily.folder / "archive.jsonl").read_bytes().splitlines()]
    assert {r["paper"]["id"] for r in kept} == {a, c}
    assert next(r for r in kept if r["paper"]["id"] == a)["marks"][daily.member]["tags"] == ["meh"]
    assert (daily.folder / "archive.jsonl").stat().st_mode & 0o077 == 0
    assert daily.undo() == "archive 2 papers"
    assert daily.annotation(a).tags == ["meh"] and daily.corpus.index_of(c) is not None
    # Undone, the archive holds them no more (they are back; archiving again wrote each twice); a
    # redo writes their lines again, with the marks they had.
    assert (daily.folder / "archive.jsonl").read_bytes() == b""
    assert daily.redo() == "archive 2 papers"
    again = [orjson.loads(line) for line in (daily.folder / "archive.jsonl").read_bytes().splitlines()]
    assert sorted(r["paper"]["id"] for r in again) == sorted([a, c])
    assert next(r for r in again if r["paper"]["id"] == a)["marks"][daily.member]["tags"] == ["meh"]
    assert daily.undo() and archive_papers(daily, chosen, "archive 2 papers") == 2
    assert len((daily.folder / "archive.jsonl").read_bytes().splitlines()) == 2
    daily.undo()
    with pytest.raises(Exception, match="a date"):
        skipped_before(daily, "last week")


def test_batches_go_on_after_the_sample_and_arxiv_ids_find_papers(tmp_path):
    lib = Library.open(tmp_path / "fresh")  # the bundled sample: batch 1
    summary = lib.paper_changes.import_paths([DAYS[0]], replace_sample=True)
    assert summary.replaced_sample == 35 and summary.batch == 2 and "saved as batch 2 (search new: to list it; an import is no undo step: remove its papers to take it back)" in summary.line()
    assert len(ids(lib, "batch:>1")) == 12
    assert lib.paper("2412.10003").external_id == "2412.10003v1" and lib.paper("2412.10003v7").id == lib.paper(
        "arXiv:2412.10003").id
    assert any("takes no value" in e for e in lib.search.find("new:foo").errors)


def test_a_new_version_brings_its_link_and_a_cross_list_its_category(daily):
    daily.paper_changes.import_paths(DAYS[:2])
    revised = daily.paper("2412.10003")
    assert revised.url.endswith("2412.10003v2")
    assert daily.paper("2412.10005").keywords == ["cs.LG", "cs.RO"]  # day two's cross-list to cs.RO


def test_forged_batch_records_are_passed_over_when_read():
    # A corpus file's header is read as untrusted: numbers that are not 1..MAX_BATCH, repeats and
    # records that are not objects are passed over; the counts, time and files of the rest are typed.
    from store.corpus import MAX_BATCH, checked_batches
    forged = [{"n": 1, "new": 3, "time": "t", "files": ["a.xml", 5]}, {"n": True, "new": 9}, {"n": -2, "new": 1},
              {"n": 0}, {"n": 10**30}, {"n": 1e3}, {"n": "4"}, {"n": MAX_BATCH + 1}, "x", None, {"n": 1, "new": 7},
              {"n": 3, "new": "many", "revised": -1, "time": 5, "files": "x", "note": "kept"}]
    assert checked_batches(forged) == [
        {"n": 1, "new": 3, "revised": 0, "time": "t", "files": ["a.xml"]},
        {"n": 3, "new": 0, "revised": 0, "time": "", "files": [], "note": "kept"}]
    assert checked_batches({"n": 1}) == [] and checked_batches(None) == []


def test_the_next_and_the_last_batch_read_only_batch_numbers(daily):
    from store.ingest.batches import last_batch, next_batch
    daily.paper_changes.import_paths([DAYS[0]])
    daily.corpus.batches += [{"n": -5, "new": 3}, {"n": 2**63, "new": 1}, {"n": True, "new": 1}]
    assert next_batch(daily.corpus) == 2 and last_batch(daily.corpus)["n"] == 1
    daily.corpus.batches = [{"n": 4, "new": 2}, {"n": 2, "new": 5}]  # out of order: the highest is the newest
    assert next_batch(daily.corpus) == 5 and last_batch(daily.corpus)["n"] == 4
