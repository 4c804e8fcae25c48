"""store.ingest.merge_prep: the per-abstract work of a merge, before the library lock."""

from __future__ import annotations

import json

import numpy as np
import pytest

from store.corpus import Corpus, paper_id
from store.ingest import merge_prep
from store.ingest.raw_record import RawRecord
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
    want = merge_prep._new_paper_chunk([(n, r.abstract, not r.title) for n, r in zip(norms, records)])
    assert prep.new is not None and sorted(prep.new) == list(range(len(records)))
    for i, (keys, titles, names) in enumerate(want):
        got_keys, got_titles, got_names = prep.new[i]
        assert np.array_equal(got_keys, keys) and got_titles == titles and got_names == names
    assert sum(prep.new[i][1] is None for i in range(len(records))) == 20  # (titled records derive none)
