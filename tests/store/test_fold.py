"""The more-like-this model brought up to a grown library without another SVD (store.discovery.fold):
the papers it knew keep their vectors, the new ones are placed by the basis, and past FOLD_LIMIT,
or without a usable cache, the model is built anew."""

from __future__ import annotations

import json

import numpy as np
import pytest

from store import Library
from store.discovery import fold, similar

from ..conftest import DATA


def split_slice(tmp_path, first: int) -> tuple:
    """The ICLR slice (without keywords and areas) as two files: its first papers, then the rest."""
    lines = [json.dumps({k: v for k, v in json.loads(line).items() if k not in ("keywords", "primary_area")})
             for line in (DATA / "iclr_slice.jsonl").read_text().splitlines()]
    a, b = tmp_path / "first.jsonl", tmp_path / "rest.jsonl"
    a.write_text("\n".join(lines[:first]) + "\n")
    b.write_text("\n".join(lines[first:]) + "\n")
    return a, b


def count_svds(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = similar.lsa_basis
    monkeypatch.setattr(similar, "lsa_basis", lambda matrix, dims=None: calls.append(matrix.shape[0]) or real(matrix, dims))
    return calls


def test_papers_added_are_folded_in_without_an_svd(tmp_path, monkeypatch):
    first, rest = split_slice(tmp_path, 185)
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([first])
    before = lib.discovery.similarity
    known = {pid: before.latent[i] for i, pid in enumerate(lib.corpus.ids())}
    svds = count_svds(monkeypatch)
    lib = Library(tmp_path / "lib")
    summary = lib.paper_changes.import_paths([rest])
    assert summary.new == len(lib) - 185
    sim = lib.discovery.similarity
    assert svds == [] and sim.folded == summary.new
    ids = lib.corpus.ids()
    for i, pid in enumerate(ids):
        if pid in known:
            assert np.array_equal(sim.latent[i], known[pid])  # a paper it knew keeps its vector
        else:
            assert abs(np.linalg.norm(sim.latent[i]) - 1) < 1e-4  # a new one is placed, normalized
    new = ids.index(next(pid for pid in ids if pid not in known))
    assert new not in [j for j, _ in sim.similar(new, 5)] and len(sim.similar(new, 5)) == 5
    # the folded model is the cache of this corpus now: the next process reads it
    again = Library(tmp_path / "lib")
    assert again.discovery.similarity_cache_fresh() and again.discovery.load_similarity_cache()
    assert np.array_equal(again.discovery.similarity.latent, sim.latent) and again.discovery.similarity.folded == 0  # (load keeps no fold state)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_past_the_fold_limit_the_model_is_built_anew(tmp_path, monkeypatch):
    first, rest = split_slice(tmp_path, 120)  # 80 of 200 papers would be folded in: over FOLD_LIMIT
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([first])
    assert lib.discovery.similarity.latent is not None
    svds = count_svds(monkeypatch)
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([rest])
    assert lib.discovery.similarity.folded == 0 and svds == [len(lib)]


@pytest.mark.parametrize("damage", ["gone", "garbled", "no basis"])
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_without_a_usable_cache_the_model_is_built_anew(tmp_path, monkeypatch, damage):
    first, rest = split_slice(tmp_path, 185)
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([first])
    assert lib.discovery.similarity.latent is not None  # built, and cached
    if damage == "gone":
        lib.similar_path.unlink()
    elif damage == "garbled":
        lib.similar_path.write_bytes(lib.similar_path.read_bytes()[:5000])
    else:  # the model as load() gives it holds no basis: saved so
        model = similar.Similarity.load(lib.similar_path, lib.corpus.generation)
        assert model is not None and model.basis is None
        with (tmp_path / "model").open("wb") as fh:
            model.save(fh, lib.corpus.generation)
        (tmp_path / "model").replace(lib.similar_path)  # (renamed over: the mapping stays whole)
        assert similar.Similarity.load(lib.similar_path, lib.corpus.generation) is not None
    svds = count_svds(monkeypatch)
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([rest])
    assert lib.discovery.similarity.folded == 0 and svds == [len(lib)]


def test_a_paper_whose_text_changed_is_folded_in_anew(tmp_path):
    first, rest = split_slice(tmp_path, 190)
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([first])
    sim = lib.discovery.similarity
    index = lib.index
    lengths = np.array(index.lengths)
    lengths[3] += 1  # as if paper 3's text had changed
    index.lengths = lengths
    again = fold.folded(lib.similar_path, index, lib.corpus.ids())
    assert again is not None and again.folded == 1
    placed = np.asarray(again.matrix[3] @ again.basis).ravel()
    assert np.allclose(again.latent[3], placed / np.linalg.norm(placed), atol=1e-5)  # placed by the basis
    assert np.dot(again.latent[3], sim.latent[3]) > 0.5  # near where the SVD had it: the same text, nearly
    assert all(np.array_equal(again.latent[i], sim.latent[i]) for i in range(len(lib)) if i != 3)
