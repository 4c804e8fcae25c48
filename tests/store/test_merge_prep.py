"""store.ingest.merge_prep: the per-abstract work of a merge, before the library lock."""

from __future__ import annotations

import json

import numpy as np
import pytest

from store import Library
from store.corpus import Corpus, paper_id
from store.ingest.importer import merge_records
from store.ingest.summary import ImportSummary
from store.titles.derive import derive_titles
from store.models import Paper
from store.ingest import merge_prep
from store.formats.raw_record import RawRecord
from store.text import normalize

from ..conftest import DATA


@pytest.mark.parametrize("keep", [True, False])
def test_an_import_into_an_empty_library_prepares_in_one_pass_what_two_passes_did(tmp_path, monkeypatch, keep):
    """Into a library with no papers every record is new, and one pass makes each one's normalized
    text (kept or not), id, band keys, derived title and names: the same as normalizing first and
    then preparing the records not in the library."""
    if not keep:
        monkeypatch.setattr(merge_prep, "KEEP_NORMALIZED_CHARS", 0)
    lines = (DATA / "icml_slice.jsonl").read_text().splitlines()[:60]
    records = [RawRecord(json.loads(line)["abstract"], "icml.jsonl", i, json.loads(line)["title"] if i % 3 == 0 else "")
               for i, line in enumerate(lines)]
    corpus = Corpus()
    assert not len(corpus)
    prep = merge_prep.prepare_merge(corpus, records)
    norms = [normalize(r.abstract) for r in records]
    assert prep.norms == (norms if keep else None)
    assert prep.rids == [paper_id(n) for n in norms]
    assert prep.known is not None and not len(prep.known.keys) and not prep.known.name_df
    want = merge_prep._new_paper_chunk(keep, [(n, r.abstract) for n, r in zip(norms, records)])
    assert prep.new is not None and sorted(prep.new) == list(range(len(records)))
    for i, (keys, _, names, _) in enumerate(want):
        got_keys, got_titles, got_names, got_shingles = prep.new[i]
        assert np.array_equal(got_keys, keys) and got_names == names
        assert got_titles == (None if records[i].title else derive_titles(records[i].abstract))
        assert got_shingles is None  # (kept only until the pairs were weighed)
    assert sum(prep.new[i][1] is None for i in range(len(records))) == 20  # (titled records derive none)


BASE = ("We propose FlowNet, a method for learning optical flow from unlabeled video. Our approach combines a "
        "differentiable warping loss with a multi-scale cost volume and a recurrent refinement module. On the "
        "Sintel and KITTI benchmarks it reduces end-point error by twenty percent compared with prior "
        "unsupervised methods, while running in real time on a single consumer graphics card.")
OTHER = ("Graph neural networks over-smooth with depth. We study residual gating across thirty layers and show "
         "that a learned per-node gate keeps node features apart on ten citation and molecule benchmarks.")


@pytest.mark.parametrize("keep", [True, False])
@pytest.mark.parametrize("library", [False, True])
def test_pairs_are_weighed_and_only_the_records_that_will_be_papers_are_titled(monkeypatch, keep, library):
    """Before the lock, each candidate pair is weighed (Jaccard, containment) and titles are derived
    only for the records that will be papers: not for a text twice, nor for a near duplicate of an
    earlier text; the same whether the library is empty or holds papers, the texts kept or not."""
    if not keep:
        monkeypatch.setattr(merge_prep, "KEEP_NORMALIZED_CHARS", 0)
    corpus = Corpus()
    if library:
        corpus.add(Paper(id=paper_id(normalize(OTHER)), abstract=OTHER, title="Gated depth"))
    typo = BASE.replace("optical", "opitcal").replace("single", "singel")
    records = [RawRecord(t, "d.txt", i) for i, t in enumerate([BASE, BASE, typo, OTHER + " Code is public."])]
    prep = merge_prep.prepare_merge(corpus, records)
    assert prep.new is not None and prep.pairs is not None
    m = len(corpus)
    titled = {i for i, new in prep.new.items() if new[1] is not None}
    assert titled == {0, 3} if not library else titled == {0}  # (with the library, record 3 is near its paper)
    row_of = {i: m + n for n, i in enumerate(sorted(prep.new))}
    assert any(j == row_of[0] and jac >= 0.5 for j, jac, _ in prep.pairs[row_of[2]])
    if library:
        assert any(j == 0 and jac >= 0.5 for j, jac, _ in prep.pairs[row_of[3]])


def test_a_record_the_prep_left_untitled_is_titled_when_it_becomes_a_paper():
    """A record whose pair was near an earlier text that the merge did not keep as a paper is
    titled in the merge, as if the prep had done it."""
    records = [RawRecord(t, "d.txt", i) for i, t in enumerate([BASE, OTHER])]
    corpus = Corpus()
    prep = merge_prep.prepare_merge(corpus, records)
    assert prep.new is not None
    keys, _, names, sh = prep.new[1]
    prep.new[1] = (keys, None, names, sh)  # as if the prep had judged it a near duplicate
    merge_records(corpus, records, ImportSummary(), prep=prep)
    assert [p.title for p in corpus] == [derive_titles(BASE)[0], derive_titles(OTHER)[0]]


def test_a_real_title_a_near_duplicate_brings_is_not_settled_away(tmp_path):
    """A paper titled from its abstract takes the real title a later near duplicate carries, and
    keeps it as written even where the library holds a paper of that title already."""
    lib = Library(tmp_path / "lib")
    (tmp_path / "a.jsonl").write_text(json.dumps({"abstract": OTHER, "title": "FlowNet"}) + "\n")
    lib.paper_changes.import_paths([tmp_path / "a.jsonl"])
    typo = BASE.replace("optical", "opitcal").replace("single", "singel")
    (tmp_path / "b.jsonl").write_text(json.dumps({"abstract": BASE}) + "\n" +
                                      json.dumps({"abstract": typo, "title": "FlowNet"}) + "\n")
    s = lib.paper_changes.import_paths([tmp_path / "b.jsonl"])
    assert (s.new, s.near) == (1, 1)
    assert sorted(p.title for p in lib.corpus) == ["FlowNet", "FlowNet"]
    assert not any(p.derived_title for p in lib.corpus)

