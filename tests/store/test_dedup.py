"""Deduplication: seeds to 35, near-duplicates merge, template-sharing papers do not."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from store import Library
from store.corpus import paper_id
from store.text import normalize

from ..conftest import DATA, SEEDS

BASE = ("We propose FlowNet, a method for learning optical flow from unlabeled video. Our approach combines a "
        "differentiable warping loss with a multi-scale cost volume and a recurrent refinement module. On the "
        "Sintel and KITTI benchmarks it reduces end-point error by twenty percent compared with prior "
        "unsupervised methods, while running in real time on a single consumer graphics card. We release code "
        "and pretrained models to support future research on self-supervised motion estimation.")


def make_lib(tmp_path, texts: dict[str, str]) -> Library:
    folder = tmp_path / "in"
    folder.mkdir(exist_ok=True)
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths(sorted(folder.iterdir()))
    return lib


def test_seeds_dedup_to_35_and_reimport_changes_nothing(tmp_path):
    lib = Library(tmp_path / "lib")
    s = lib.paper_changes.import_paths([SEEDS])
    assert (s.read, s.new, s.exact, s.near) == (38, 35, 3, 0)
    before = lib.corpus_path.read_bytes()
    s2 = lib.paper_changes.import_paths([SEEDS])
    assert (s2.new, s2.exact, s2.near, s2.known) == (0, 0, 0, 38)
    assert lib.corpus_path.read_bytes() == before
    dup = next(p for p in lib.corpus if len(p.sources) == 2)
    assert {s.file for s in dup.sources} == {f.name for f in SEEDS.glob("*.txt")}


def test_ids_stable_across_order_and_reimport(tmp_path):
    files = sorted(SEEDS.glob("*.txt"))
    a = Library(tmp_path / "a")
    a.paper_changes.import_paths(files)
    b = Library(tmp_path / "b")
    b.paper_changes.import_paths(list(reversed(files)))
    assert {p.id for p in a.corpus} == {p.id for p in b.corpus}
    for p in a.corpus:
        assert p.id == paper_id(normalize(p.abstract))


def test_near_duplicate_variants_merge(tmp_path):
    rewrapped = BASE.replace(". ", ".\n")
    typos = BASE.replace("optical", "opitcal").replace("benchmarks", "benchmakrs").replace("single", "singel")
    appended = BASE + " We also show that the method transfers to stereo matching without retraining."
    dropped = BASE.rsplit(". ", 1)[0] + "."
    latex = BASE.replace("FlowNet", "$\\textbf{FlowNet}$").replace("twenty percent", "**twenty percent**")
    texts = {f"v{i}.txt": t for i, t in enumerate([BASE, typos, appended, dropped, latex, rewrapped])}
    lib = make_lib(tmp_path, texts)
    assert len(lib) == 1
    report = lib.paper_changes.dedup_report()
    # Re-wrapping and LaTeX/Markdown markup normalize away: those two are exact duplicates.
    assert len(report) == 3
    assert sorted(s["file"] for r in report for s in r["sources"]) == ["v1.txt", "v2.txt", "v3.txt"]
    assert {s.file for s in lib.corpus.papers[0].sources} == set(texts)
    assert all(r["similarity"] >= 0.5 for r in report)


def test_template_sharing_distinct_papers_stay_apart(tmp_path):
    template = "Code is available at our project page and all experiments use the standard evaluation protocol. "
    a = template + "We study sparse attention for long documents and show quadratic savings on summarization tasks with little loss."
    b = template + "We present a benchmark of protein folding models and measure calibration across twelve families of enzymes."
    c = ("Large language models are increasingly deployed as agents. " * 2) + "We evaluate tool use under distribution shift in web navigation."
    d = ("Large language models are increasingly deployed as agents. " * 2) + "We audit memorization of private medical records in clinical notes."
    lib = make_lib(tmp_path, {"a.txt": a, "b.txt": b, "c.txt": c, "d.txt": d})
    assert len(lib) == 4


def test_real_corpus_slice_has_no_false_merges(tmp_path):
    lib = Library(tmp_path / "lib")
    s = lib.paper_changes.import_paths([DATA / "icml_slice.jsonl", DATA / "iclr_slice.jsonl"])
    assert s.near == 0 and s.new == s.read


def test_real_abstract_perturbed_merges(tmp_path):
    recs = [json.loads(l) for l in (DATA / "icml_slice.jsonl").read_text().splitlines()[:40]]
    rng = random.Random(1)
    variants = []
    for r in recs:
        words = r["abstract"].split()
        for _ in range(3):  # three typos
            i = rng.randrange(len(words))
            words[i] = words[i][::-1]
        variants.append({"abstract": " ".join(words) + " Code is public.", "title": ""})
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jsonl").write_text("\n".join(json.dumps({"abstract": r["abstract"], "title": r["title"]}) for r in recs))
    (folder / "b.jsonl").write_text("\n".join(json.dumps(v) for v in variants))
    lib = Library(tmp_path / "lib")
    s = lib.paper_changes.import_paths([folder / "a.jsonl", folder / "b.jsonl"])
    assert s.new == 40 and s.near == 40


def test_split_restores_papers_keeps_annotations_and_sticks(tmp_path):
    appended = BASE + " We also show that the method transfers to stereo matching without retraining."
    lib = make_lib(tmp_path, {"a.txt": BASE, "b.txt": appended})
    assert len(lib) == 1
    pid = lib.corpus.papers[0].id
    lib.marks.set_star([pid], 2)
    lib.marks.add_tags([pid], ["flow"])
    new = lib.paper_changes.split(pid)
    assert len(new) == 1 and len(lib) == 2
    assert lib.annotation(new[0].id).tags == ["flow"] and lib.annotation(new[0].id).star == 2
    assert lib.annotation(pid).star == 2
    lib.paper_changes.import_paths([tmp_path / "in" / "b.txt"])
    assert len(Library(tmp_path / "lib")) == 2  # not merged again


def test_reimport_adds_venue_and_year_to_papers_read_without(tmp_path):
    """A library built from a dump with no header (or before papersift read headers) gets the
    venue and year when a file naming them is imported over it; a later file does not overwrite them."""
    bare, named, other = (tmp_path / n for n in ("bare.txt", "named.txt", "other.txt"))
    bare.write_text(BASE + "\n")
    named.write_text("NeurIPS 2026 Papers\n\n" + BASE + "\n")
    other.write_text("ICML 2024 Papers\n\n" + BASE + "\n")
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([bare])
    assert (lib.corpus.papers[0].venue, lib.corpus.papers[0].year) == ("", "")
    summary = lib.paper_changes.import_paths([named])
    assert summary.updated == 1 and "1 venue or year added to 1 paper already there" in summary.line()
    assert Library(tmp_path / "lib").corpus.papers[0].published == "NeurIPS 2026"  # saved
    assert lib.paper_changes.import_paths([other]).updated == 0 and lib.corpus.papers[0].published == "NeurIPS 2026"


def test_a_split_cut_between_its_two_writes_is_found_and_completed_by_the_doctor(tmp_path, monkeypatch):
    from store.corpus import Corpus
    from store.doctor import run_doctor

    appended = BASE + " We also show that the method transfers to stereo matching without retraining."
    lib = make_lib(tmp_path, {"a.txt": BASE, "b.txt": appended})
    pid = lib.corpus.papers[0].id
    variant = lib.corpus.papers[0].variants[0].id
    lib.marks.add_tags([pid], ["flow"])

    def killed(self, path):
        raise KeyboardInterrupt  # the process dies between the annotations and the corpus
    monkeypatch.setattr(Corpus, "save", killed)
    with pytest.raises(KeyboardInterrupt):
        lib.paper_changes.split(pid)
    monkeypatch.undo()
    report = run_doctor(tmp_path / "lib")
    assert any("a split was cut short: 1 paper" in p for p in report.problems), report.problems
    assert not any("alias" in p for p in report.problems)
    repaired = run_doctor(tmp_path / "lib", repair=True)
    assert any("completed a cut-short split" in r for r in repaired.repaired)
    assert run_doctor(tmp_path / "lib").problems == []
    back = Library(tmp_path / "lib")
    assert len(back) == 2 and back.annotation(variant).tags == ["flow"] and back.annotation(pid).tags == ["flow"]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_candidates_from_a_row_on_are_those_of_every_row():
    """candidate_pairs(from_row=m) leaves out the rows sharing no key with rows m.. before sorting:
    the pairs of the rows from m on are the same as from all rows."""
    from store.ingest.dedup import candidate_pairs
    rng = np.random.default_rng(0)
    for high in (50, 2000, 10**9):  # crowded buckets (cut at max_bucket), sparse ones, none
        keys = rng.integers(0, high, size=(3000, 24), dtype=np.uint64)
        every = candidate_pairs(keys)
        for m in (1, 100, 2500, 2999):
            assert candidate_pairs(keys, from_row=m) == {r: e for r, e in every.items() if r >= m}, (high, m)


def test_a_paper_the_library_holds_is_already_there_from_any_file(tmp_path):
    """The same abstracts from another file (a dump, then the JSON with titles) are papers the
    library holds, not exact duplicates; a text twice in one import is an exact duplicate."""
    from store import Library
    texts = ["A graph network that learns message passing over molecules, tested on three benchmarks.",
             "Robots learn to grasp unseen objects from a few human videos and a pessimistic critic."]
    (tmp_path / "dump.txt").write_text("DUMP\n\n" + "\n\n".join(texts + texts[:1]))
    lib = Library(tmp_path / "lib")
    first = lib.paper_changes.import_paths([tmp_path / "dump.txt"])
    assert (first.new, first.exact, first.known) == (2, 1, 0)
    (tmp_path / "p.jsonl").write_text("".join(json.dumps({"abstract": t, "title": f"Paper {k}"}) + "\n"
                                              for k, t in enumerate(texts)))
    again = lib.paper_changes.import_paths([tmp_path / "p.jsonl"])
    assert (again.new, again.exact, again.known, again.updated) == (0, 0, 2, 2)
    assert "0 exact duplicates" in again.line() and "2 already in the library" in again.line()


def test_batch_signatures_are_each_sets_own_minhash():
    """Signatures made many sets at a pass (in one reused buffer) equal each set's own MinHash,
    across chunk boundaries, for sets longer than a pass's budget and for one-shingle sets."""
    from store.ingest.dedup import signature, signatures
    rng = np.random.default_rng(3)
    sets = [rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
            for n in (1, 5, 300, 40, 5000, 2, 700, 1, 90, 3000)]
    for chunk, budget in ((128, 1 << 13), (3, 64), (2, 1000)):
        got = signatures(sets, chunk, budget)
        assert [list(row) for row in got] == [list(signature(s)) for s in sets]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_the_split_says_what_an_undo_takes_back(tmp_path, run_cli):
    """An undo after `dedup --split` takes back the marks it copied, not the split: the command says
    so, and where the corpus as it was is kept (it said only "split off 1 paper")."""
    appended = BASE + " We also show that the method transfers to stereo matching without retraining."
    lib = make_lib(tmp_path, {"a.txt": BASE, "b.txt": appended})
    pid = lib.corpus.papers[0].id
    lib.marks.set_star([pid], 2)
    said = run_cli("dedup", "--split", pid, library=lib.folder).stdout
    assert "split off 1 paper" in said and "takes back those marks, not the split" in said and "backups/" in said
    assert "with your marks on the merged paper" in said  # (a colleague's are not copied: it said "the merged paper's")
    assert run_cli("undo", library=lib.folder).stdout.startswith("undone: copy annotation to 1 split paper")
    assert len(Library(lib.folder)) == 2


def test_a_paper_read_again_from_another_file_is_listed_under_it_too(tmp_path):
    """The same abstracts imported from a second file in a later import (the next day's dump, the
    conference's dump after its JSON): the paper kept only its first file, so `file:day2` found
    none of them and `stats` counted one source file; within one import both were kept."""
    first, second = tmp_path / "day1.txt", tmp_path / "day2.txt"
    first.write_text(BASE + "\n")
    second.write_text(BASE + "\n")
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([first])
    summary = lib.paper_changes.import_paths([second])
    assert summary.changed and summary.known == 1 and "now listed under this file too" in summary.line()
    again = Library(tmp_path / "lib")
    assert [s.file for s in again.corpus.papers[0].sources] == ["day1.txt", "day2.txt"]
    assert len(again.search.find("file:day2")) == 1 and len(again.search.find("file:day1 file:day2")) == 1
    assert not lib.paper_changes.import_paths([second]).changed  # (read again from the same file: nothing new)


APPENDED = BASE + " We also show that the method transfers to stereo matching without retraining."


def _jsonl(**fields: object) -> str:
    return json.dumps(fields) + "\n"


def test_a_split_paper_gets_back_its_own_title_authors_and_venue(tmp_path):
    """A near-duplicate merged into a paper read from a dump (no title, no authors) gave it its
    title, authors, link and venue. Split off, it was rebuilt from its text alone: a derived title,
    no authors, and the paper it left kept the title and authors of the one split off."""
    lib = make_lib(tmp_path, {"a.txt": BASE + "\n", "b.jsonl": _jsonl(
        abstract=APPENDED, title="FlowNet: Unsupervised Flow", authors=["Ann Lee", "Bo Chen"],
        url="https://example.org/flow", venue="ICML", year="2024", keywords=["optical flow"])})
    parent = lib.corpus.papers[0]
    assert len(lib) == 1 and parent.title == "FlowNet: Unsupervised Flow" and parent.authors == ["Ann Lee", "Bo Chen"]
    new = lib.paper_changes.split(parent.id)
    again = Library(tmp_path / "lib")
    split_off, kept = again.corpus.papers[again.corpus.index_of(new[0].id)], again.corpus.papers[0]
    assert (split_off.title, split_off.derived_title, split_off.authors) == \
        ("FlowNet: Unsupervised Flow", False, ["Ann Lee", "Bo Chen"])
    assert (split_off.url, split_off.published, split_off.keywords) == ("https://example.org/flow", "ICML 2024", ["optical flow"])
    assert kept.derived_title and kept.title != split_off.title  # what it had only from the other, given back
    assert (kept.authors, kept.url, kept.venue, kept.keywords) == ([], "", "", [])


def test_a_split_leaves_the_paper_its_own_fields_and_what_another_variant_holds(tmp_path):
    """The paper keeps what its own record gave it; a field that the variant split off gave it and a
    second variant also holds stays, from that variant."""
    third = APPENDED + " Code is available."
    lib = make_lib(tmp_path, {
        "a.jsonl": _jsonl(abstract=BASE, title="Own Title", authors=["Own Author"]),
        "b.jsonl": _jsonl(abstract=APPENDED, title="Other Title", authors=["Ann Lee"], venue="ICML", year="2024"),
        "c.jsonl": _jsonl(abstract=third, venue="ICML", year="2024")})
    assert len(lib) == 1 and len(lib.corpus.papers[0].variants) == 2
    parent = lib.corpus.papers[0]
    first = next(v.id for v in parent.variants if v.abstract == APPENDED)
    new = lib.paper_changes.split(first)
    kept = Library(tmp_path / "lib").corpus.papers[0]
    assert (kept.title, kept.authors, kept.published) == ("Own Title", ["Own Author"], "ICML 2024")
    assert (new[0].title, new[0].authors) == ("Other Title", ["Ann Lee"])


def test_a_variant_s_forged_fields_read_as_none(tmp_path):
    """A corpus file is untrusted: a variant's fields of the wrong kind, or a link that is not a web
    address, are not given to the paper a split makes of it."""
    from store.models import Paper

    rec = {"id": "p", "abstract": BASE, "title": "T", "variants": [
        {"id": "v", "abstract": APPENDED, "fields": {"title": 5, "authors": ["A", 3], "url": "javascript:alert(1)",
                                                     "venue": ["x"], "bogus": "y"}, "gave": ["title", "nonsense", 7]}]}
    variant = Paper.from_record(rec).variants[0]
    assert (variant.fields, variant.gave) == ({"authors": ["A"]}, ["title"])
    assert Paper.from_record({**rec, "variants": [{**rec["variants"][0], "fields": "x"}]}).variants[0].fields == {}
