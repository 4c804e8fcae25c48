"""Documents added to (and replaced in) a search index without indexing the rest again
(store.search.index_update): the result is the index a build from scratch makes, array for array,
and a library's import takes that path when the index of the corpus it started from is cached."""

from __future__ import annotations

import json

import numpy as np
import pytest

from store.library import Library
from store.library.increments import index_document
from store.search import index_update
from store.search.index import SearchIndex
from store.search.index_update import updated

from ..conftest import DATA

DAYS = [DATA / "arxiv_days" / f"day{n}.xml" for n in (1, 2, 3)]


def docs() -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in (DATA / "icml_slice.jsonl").read_text().splitlines() if line.strip()]
    return [(r.get("title", ""), r["abstract"]) for r in rows]


def assert_same(a: SearchIndex, b: SearchIndex) -> None:
    assert a.vocab == b.vocab
    assert a.vocabulary.stems.words == b.vocabulary.stems.words
    assert list(a.vocabulary.stem_offsets) == list(b.vocabulary.stem_offsets)
    assert list(a.vocabulary.stem_members) == list(b.vocabulary.stem_members)
    for name in ("offsets", "docs", "tf", "idf", "lengths", "norms"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.n_docs == b.n_docs


def test_added_documents_give_the_index_a_build_gives():
    all_docs = docs()
    cut = len(all_docs) - 40
    grown = updated(SearchIndex.build(all_docs[:cut]), {}, all_docs[cut:])
    assert_same(grown, SearchIndex.build(all_docs))


def test_replaced_documents_and_a_term_that_goes():
    all_docs = docs()
    cut = len(all_docs) - 10
    base = SearchIndex.build(all_docs[:cut] + [("Quokkaformer", "Quokkas zzyzx rarely index themselves.")])
    changed = list(all_docs)
    changed[3] = ("A new version's title", "The second version of this abstract says something else entirely.")
    changed[7] = all_docs[2]
    replaced = {3: changed[3], 7: changed[7], cut: ("Plain", "No quokka here any more, only plain words.")}
    grown = updated(base, replaced, changed[cut:])
    want = changed[:cut] + [replaced[cut]] + changed[cut:]
    assert "zzyzx" not in grown.vocab
    assert_same(grown, SearchIndex.build(want))


def test_weights_read_are_the_weights_bm25_gives_over_the_whole_index():
    """Weights are made from the frequencies as a term's postings are read: the floats the whole
    index's BM25 pass gives (an updated index's too: its lengths changed every weight)."""
    from store.search.index import bm25_weights
    all_docs = docs()
    grown = updated(SearchIndex.build(all_docs[:-30]), {}, all_docs[-30:])
    whole = bm25_weights(grown.tf.astype(np.float32), grown.lengths, grown.docs)
    for tid in (0, len(grown.vocab) // 2, len(grown.vocab) - 1):
        a, b = int(grown.offsets[tid]), int(grown.offsets[tid + 1])
        assert np.array_equal(grown.weights(a, b), whole[a:b])


def test_the_dump_keeps_the_lengths(tmp_path):
    index = SearchIndex.build(docs()[:30])
    path = tmp_path / "index"
    path.write_bytes(b"".join(bytes(c) for c in index.dump_chunks()))
    with path.open("rb") as fh:
        loaded = SearchIndex.load(fh)
    assert loaded is not None and np.array_equal(loaded.lengths, index.lengths)


def test_a_days_import_updates_the_cached_index(tmp_path, monkeypatch):
    """Day two brings new papers, a new version of a day-one paper and a cross-list: the index
    is updated, not built, and equals the one built from the whole corpus."""
    lib = Library.open(tmp_path / "daily", seed_if_new=False)
    lib.paper_changes.import_paths([DAYS[0]])
    calls = {"build": 0, "updated": 0}
    real_build, real_updated = SearchIndex.build, index_update.updated

    def counting_build(*args, **kwargs):
        calls["build"] += 1
        return real_build(*args, **kwargs)

    def counting_updated(*args, **kwargs):
        calls["updated"] += 1
        return real_updated(*args, **kwargs)

    monkeypatch.setattr(SearchIndex, "build", counting_build)
    monkeypatch.setattr(index_update, "updated", counting_updated)
    fresh = Library.open(tmp_path / "daily", seed_if_new=False)  # another process: the cache is all it has
    summary = fresh.paper_changes.import_paths([DAYS[1]])
    assert summary.revised == 1 and summary.new
    assert calls == {"build": 0, "updated": 1}
    monkeypatch.setattr(SearchIndex, "build", real_build)
    assert_same(fresh.index, SearchIndex.build([index_document(p) for p in fresh.corpus]))
    again = Library.open(tmp_path / "daily", seed_if_new=False)
    assert_same(again.index, fresh.index)  # the cache on disk is the updated index
    assert list(again.search.find("robot").matches) == list(fresh.search.find("robot").matches)
    updated_file = fresh.index_path.read_bytes()
    fresh.index_path.unlink()
    rebuilt = Library.open(tmp_path / "daily", seed_if_new=False)
    assert rebuilt.index.n_docs == len(rebuilt.corpus)  # built from the whole corpus, and cached
    assert rebuilt.index_path.read_bytes() == updated_file  # the same file, what a one-shot search prints too


@pytest.mark.parametrize("bad", ["gone", "stale"])
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_without_the_previous_index_the_import_builds_it(tmp_path, bad):
    lib = Library.open(tmp_path / "daily", seed_if_new=False)
    lib.paper_changes.import_paths([DAYS[0]])
    if bad == "gone":
        lib.index_path.unlink()
    else:
        lib.index_path.write_bytes(b"0" * 32 + b"\n" + lib.index_path.read_bytes().split(b"\n", 1)[1])
    fresh = Library.open(tmp_path / "daily", seed_if_new=False)
    fresh.paper_changes.import_paths([DAYS[1]])
    assert_same(fresh.index, SearchIndex.build([index_document(p) for p in fresh.corpus]))


def test_a_frequency_in_the_thousands_is_read_back_exactly():
    """A word repeated 6,000 times: its frequency is kept whole (uint16), as a build keeps it."""
    all_docs = docs()[:30] + [("Repeats", "Echo " * 6000 + "and then some other words.")]
    grown = updated(SearchIndex.build(all_docs[:-5]), {}, all_docs[-5:])
    assert_same(grown, SearchIndex.build(all_docs))


@pytest.mark.parametrize("seed", range(6))
def test_merged_drops_and_inserts_as_a_list_would(seed):
    """The run copies that splice a day's postings in: elements dropped and values inserted at
    random places, ties and drops at the very places of inserts included, match a plain list."""
    rng = np.random.default_rng(seed)
    old = rng.integers(0, 1000, 60).astype(np.int32)
    drop = np.unique(rng.integers(0, 60, rng.integers(0, 12)))
    pos = np.sort(np.concatenate([rng.integers(0, 61, 15), drop[:2]]))
    new = rng.integers(1000, 2000, len(pos)).astype(np.int32)
    want: list[int] = []
    for k in range(61):
        want += [int(v) for p, v in zip(pos, new) if p == k]
        if k < 60 and k not in set(drop.tolist()):
            want.append(int(old[k]))
    (got, got_f) = index_update._merged([old, old.astype(np.float32)], drop, pos, [new, new.astype(np.float32)])
    assert got.tolist() == want and got_f.tolist() == [float(v) for v in want]
