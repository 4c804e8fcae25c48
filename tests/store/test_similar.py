"""More like this, recommendations and topics: store, CLI and app."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np
import pytest

from store import Library

from ..conftest import DATA

if TYPE_CHECKING:
    from store.discovery.similar import Similarity


def iclr_library(tmp_path) -> tuple[Library, list[str]]:
    """The ICLR slice without its keywords and areas (papersift indexes keywords; the area is the
    answer the tests grade against)."""
    lib = Library(tmp_path / "iclr")
    bare = tmp_path / "iclr_slice.jsonl"
    bare.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items() if k not in ("keywords", "primary_area")})
                            + "\n" for line in (DATA / "iclr_slice.jsonl").read_text().splitlines()))
    lib.paper_changes.import_paths([bare])
    areas = {json.loads(l)["abstract"].strip(): json.loads(l)["primary_area"]
             for l in (DATA / "iclr_slice.jsonl").read_text().splitlines()}
    return lib, [areas[p.abstract.strip()] for p in lib.corpus]


def test_similar_papers_share_the_area_far_above_chance(tmp_path):
    lib, areas = iclr_library(tmp_path)
    lab = np.array(areas)
    hits = []
    for i in range(len(lib)):
        top = lib.discovery.similarity.similar(i, 5)
        assert i not in [j for j, _ in top] and len(top) == 5
        hits += [lab[j] == lab[i] for j, _ in top]
    chance = sum((lab == a).mean() ** 2 for a in set(areas))
    # a 200-paper slice: far less signal than the full set (0.437 there, see docs/quality.md)
    assert np.mean(hits) > 2 * chance, (np.mean(hits), chance)


def test_recommend_learns_a_tag_and_explains(tmp_path):
    lib, areas = iclr_library(tmp_path)
    area = max(set(areas), key=areas.count)
    idx = [i for i, a in enumerate(areas) if a == area]
    lib.marks.add_tags([lib.corpus.papers[i].id for i in idx[: len(idx) // 2]], ["mine"])
    recs = lib.discovery.recommend("mine", limit=10)
    held = {lib.corpus.papers[i].id for i in idx[len(idx) // 2:]}
    assert sum(r.paper.id in held for r in recs) >= 4  # the area is ~15% of the slice
    assert all(r.because for r in recs) and all(r.like for r in recs)
    from store.discovery.reasons import LABEL_STOP
    assert not any(t in LABEL_STOP for r in recs for t in r.because)  # "because: them" explains nothing
    assert not any("mine" in lib.annotation(r.paper.id).tags for r in recs)


def test_a_word_found_only_in_a_web_address_is_no_reason(tmp_path):
    """`recommend` gave "why: agents, microsoft, llm" for a paper whose only "microsoft" is its
    github.com/microsoft/... link: a piece of an address names no subject. A word the text also
    writes outside the address stays a reason; a paper with no address is explained as before."""
    import scipy.sparse as sp

    from store.discovery.content_words import outside_addresses
    from store.discovery.reasons import explain
    assert outside_addresses("no address here") is None
    held = outside_addresses("Agents play games (https://github.com/microsoft/SmartPlay); see www.smart.io/x too.")
    assert held is not None and "agents" in held and not {"microsoft", "smartplay", "smart", "github"} & held
    vocab = ["microsoft", "agents", "games", "benchmark"]
    row = sp.csr_matrix(np.array([[0.9, 0.5, 0.4, 0.3]]))
    weights = np.array([1.0, 1.0, 1.0, 1.0])
    text = "Agents play games on a benchmark. Code: https://github.com/microsoft/SmartPlay"
    assert explain(row, weights, 0, vocab, text=text) == ["agents", "games", "benchmark"]
    assert explain(row, weights, 0, vocab, text=text + " Microsoft built it.")[0] == "microsoft"
    assert explain(row, weights, 0, vocab) == vocab  # (no text: every term may be a reason)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_three_stars_of_a_planted_topic_bring_that_topic_first(tmp_path):
    """Few-shot: 12 papers on a planted topic among the ICLR slice; three starred, the top 10
    recommendations are that topic (the classifier alone, fitted to 3 positives against hundreds,
    was not); a ★★★ counts more than a ★; each names the starred papers it is closest to."""
    import random
    lib, _ = iclr_library(tmp_path)
    rng = random.Random(3)
    words = ["coral", "reef", "bleaching", "ocean", "acidification", "sea", "temperature", "symbiotic",
             "algae", "marine", "heat", "stress", "survey", "diver", "spawning", "larvae"]
    filler = "we collect data and train a model to predict outcomes across sites and seasons".split()
    planted = tmp_path / "reef.jsonl"
    planted.write_text("".join(json.dumps({"title": f"Reef study {i}", "abstract": " ".join(
        rng.sample(words, 9) + rng.sample(filler, 8) + rng.sample(words, 6)).capitalize() + "."}) + "\n"
        for i in range(12)))
    lib.paper_changes.import_paths([planted])
    reef = [p.id for p in lib.corpus if p.title.startswith("Reef study")]
    assert len(reef) == 12
    for pid, stars in zip(reef[:3], (3, 1, 1)):
        lib.marks.set_star([pid], stars)
    recs = lib.discovery.recommend(None, limit=10)
    assert sum(r.paper.id in reef for r in recs) >= 8
    assert all(set(r.like) <= set(reef[:3]) and r.like for r in recs)
    from store.discovery.recommend import star_weight
    assert star_weight(3, "unread") > star_weight(1, "unread") > star_weight(0, "to-read")


def test_the_model_cache_is_mapped_and_a_forged_one_is_rebuilt(tmp_path, monkeypatch):
    """The model's file is a pack the app maps (a 300k model held as private arrays took the app
    from 210 MB to 900 MB): loaded, it finds the same neighbours. A file whose sums are right but
    whose matrix names a column past its shape (scipy's products do not check) or whose offsets
    run backwards reads as no cache, and the model is built anew."""
    import scipy.sparse as sp

    from store.files import nofollow
    from store.discovery.model_file import model_chunks, read_model
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([DATA / "iclr_slice.jsonl"])
    want = lib.discovery.similarity.similar(7)
    monkeypatch.setattr(nofollow, "MAP_FROM", 0)
    loaded = Library(tmp_path / "lib")
    assert loaded.discovery.load_similarity_cache()
    model = loaded.discovery.similarity
    for array in (model.matrix.data, model.matrix.indices, model.matrix_t.indptr):
        assert not array.flags.owndata and not array.flags.writeable  # views of the read-only mapping
    assert model.latent is not None and model.latent.flags.owndata  # (held: every lookup reads it all)
    got = model.similar(7)  # (read a window at a time: sums in another order, to float rounding)
    assert [i for i, _ in got] == [i for i, _ in want] and np.allclose([s for _, s in got], [s for _, s in want])

    good = read_model(lib.similar_path, lib.corpus.generation)
    assert good is not None
    m, t = good.matrices["m"], good.matrices["t"]
    for forged in ("column", "offsets"):
        bad = m.copy()
        if forged == "column":
            bad.indices[3] = m.shape[1] + 5
        else:
            bad.indptr[2], bad.indptr[3] = bad.indptr[3], bad.indptr[2]
        bad = sp.csr_matrix((bad.data, bad.indices, bad.indptr), shape=m.shape, copy=False)
        forged_file = tmp_path / "forged"
        with forged_file.open("wb") as fh:
            for chunk in model_chunks(lib.corpus.generation, {"m": bad, "t": t}, good.arrays["latent"], True, 0):
                fh.write(chunk)
        forged_file.replace(lib.similar_path)  # (renamed over, as papersift writes: the mapping stays whole)
        assert read_model(lib.similar_path, lib.corpus.generation) is None, forged
        again = Library(tmp_path / "lib")
        assert not again.discovery.load_similarity_cache()
        assert again.discovery.similarity.similar(7) == want  # built anew


@pytest.mark.parametrize("candidates", [2000, 60])
def test_feedback_scores_are_the_ten_neighbours_rows_blended_and_summed(tmp_path, monkeypatch, candidates):
    """Pseudo-relevance feedback is made as one product of the neighbours' summed rows, cut to
    their heaviest terms; the blend is linear, so the scores are those of the definition: the ten
    nearest papers' rows weighted by their scores, summed, the heaviest FEEDBACK_TERMS kept, blended
    with every paper, and their latent vectors likewise (float rounding aside). The feedback scores
    the CANDIDATES papers nearest by the first pass (all of them in a library that small); the
    others score -inf, and the nearest ten are the definition's."""
    from store.discovery import similar as S
    monkeypatch.setattr(S, "CANDIDATES", candidates)
    lib, _ = iclr_library(tmp_path)
    sim = lib.discovery.similarity
    assert sim.feedback and sim.latent is not None
    m, mt, latent = sim.matrix, sim.matrix_t, sim.latent
    cut = 0
    for doc in (0, 17, 101):
        base = (m[[doc]] @ mt).toarray()[0] + S.LSA_WEIGHT * (latent[doc] @ latent.T)
        masked = base.copy()
        masked[doc] = -np.inf
        top = np.argpartition(-masked, S.FEEDBACK_K)[:S.FEEDBACK_K]
        summed = base[top] @ m[top].toarray()
        heaviest = np.argsort(-summed)[:S.FEEDBACK_TERMS]
        kept = np.zeros_like(summed)
        kept[heaviest] = summed[heaviest]
        cut += int(np.count_nonzero(summed) > S.FEEDBACK_TERMS)
        feedback = m @ kept + S.LSA_WEIGHT * (latent @ (base[top] @ latent[top]))
        want = base + S.FEEDBACK_BETA * feedback / S.FEEDBACK_K
        among = np.argsort(-masked)[:min(candidates, len(base) - 1)]
        got = sim.scores(doc)
        assert np.allclose(got[among], want[among], atol=1e-5)
        others = np.setdiff1d(np.arange(len(base)), np.append(among, doc))
        assert len(others) == max(0, len(base) - 1 - candidates) and np.all(got[others] == -np.inf)
        want[doc] = got[doc] = -np.inf
        assert list(np.argsort(-got)[:10]) == list(np.argsort(-want)[:10])
    assert cut  # (the neighbours' rows held more terms than are kept)
    assert len(lib) > 60  # (the second run leaves papers out)
    listed = sim.similar(5, limit=len(lib))
    assert len(listed) == min(candidates, len(lib) - 1) and all(score > -np.inf for _, score in listed)


@pytest.mark.parametrize("n,k", [(300_000, 10), (300_000, 2000), (50_000, 5), (1000, 10), (200, 10), (12, 12), (12, 30)])
def test_largest_finds_the_k_largest_values(n, k):
    """similar.largest: the indices of the k largest values, as np.argpartition gives them, through
    its block maxima (and plain partitioning where the blocks would be too small); a -inf and
    repeated values among them."""
    from store.discovery.similar import largest
    rng = np.random.default_rng(n + k)
    values = rng.standard_normal(n).astype(np.float32)
    values[rng.integers(0, n, 3)] = -np.inf
    values[rng.integers(0, n, n // 10)] = 0.5  # (ties, below the largest)
    values[rng.integers(0, n)] = 9.0
    got = largest(values, k)
    want = np.argpartition(-values, min(k, n - 1))[:k]
    assert len(got) == min(k, n) and len(set(got.tolist())) == len(got)
    assert np.array_equal(np.sort(values[got]), np.sort(values[want]))


def mapped_model(tmp_path, monkeypatch) -> tuple[Similarity, Library]:
    """The ICLR slice's model as built (held in memory), and its library opened again with the
    model's cache file mapped (every file is: MAP_FROM 0), its term rows then read with pread."""
    from store.files import nofollow
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([DATA / "iclr_slice.jsonl"])
    in_memory = lib.discovery.similarity
    monkeypatch.setattr(nofollow, "MAP_FROM", 0)
    loaded = Library(tmp_path / "lib")
    assert loaded.discovery.load_similarity_cache()
    return in_memory, loaded


def test_a_mapped_models_term_rows_are_read_a_buffer_at_a_time(tmp_path, monkeypatch):
    """A mapped model's term rows are read with pread into buffers of CHUNK_POSTINGS postings (a
    row longer than that in pieces), not through the mapping: whatever the buffer's size, the
    neighbours and scores are the model's held in memory, and the mapping is left alone."""
    from store.discovery import term_rows as R
    in_memory, loaded = mapped_model(tmp_path, monkeypatch)
    assert in_memory.file is None
    model = loaded.discovery.similarity
    assert model.file is not None and isinstance(model.file.buffer, memoryview)  # (mapped)
    assert model.file.term_rows is not None
    assert model.latent is not None and np.array_equal(model.latent, in_memory.latent)  # (read with pread too)
    reads = []
    read = R.TermRows.read_into
    terms = model.file.term_rows  # (the papers' own rows are read whole: see the next test)
    monkeypatch.setattr(R.TermRows, "read_into", lambda self, into, at: (
        reads.append(len(into)) if self is terms else None, read(self, into, at))[1])
    longest = int(np.diff(model.matrix_t.indptr).max())
    for chunk in (1 << 20, 64, 7):
        monkeypatch.setattr(R, "CHUNK_POSTINGS", chunk)
        reads.clear()
        for doc in (0, 7, 150):
            want, got = in_memory.similar(doc), model.similar(doc)
            assert [i for i, _ in got] == [i for i, _ in want]
            assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-5)
        assert reads and max(reads) <= chunk
        assert chunk > longest or max(reads) == chunk  # (a row longer than a buffer was read in pieces)


def test_a_mapped_models_latent_vectors_are_read_with_pread_and_a_file_cut_short_is_named(tmp_path, monkeypatch):
    """The latent vectors are copied on first use, read with pread (no page of the mapping
    touched); a file cut short since its checks is refused with an error naming it."""
    from store.errors import PapersiftError
    in_memory, loaded = mapped_model(tmp_path, monkeypatch)
    model = loaded.discovery.similarity
    assert model.file is not None and model.file.latent_at > 0
    assert model._latent is None  # (not before first use)
    assert np.array_equal(model.latent, in_memory.latent)
    rows = np.array([3, 0, 150])  # the papers' rows, read with pread, are the matrix's
    assert model.file.doc_rows is not None
    got, want = model.file.doc_rows.rows(rows), in_memory.matrix[rows]
    assert (got != want).nnz == 0 and got.shape == want.shape
    again = Library(tmp_path / "lib")
    assert again.discovery.load_similarity_cache()
    with open(again.similar_path, "r+b") as fh:
        fh.truncate(again.discovery.similarity.file.latent_at + 100)
    with pytest.raises(PapersiftError, match="similar.cache: the more-like-this cache changed while in use"):
        _ = again.discovery.similarity.latent


def test_a_lookup_that_is_no_longer_wanted_stops_between_buffers(tmp_path, monkeypatch):
    """A mapped model's query asks ``stop`` between buffers of term rows and ends with
    LookupStopped when it says so (the app stops a lookup for a paper the reader has left)."""
    from store.discovery import similar as S
    from store.discovery import term_rows as R
    monkeypatch.setattr(R, "CHUNK_POSTINGS", 64)
    _, model = mapped_model(tmp_path, monkeypatch)
    asked: list[int] = []

    def stop_after(n: int):
        return lambda: (asked.append(1), len(asked) > n)[1]
    with pytest.raises(S.LookupStopped):
        model.discovery.similarity.similar(3, stop=stop_after(4))
    assert len(asked) == 5
    asked.clear()
    assert len(model.discovery.similarity.similar(3, stop=stop_after(10**6))) == 10 and len(asked) > 5


def test_a_lookup_shares_its_term_rows_with_a_second_thread(tmp_path, monkeypatch):
    """A lookup runs the latent product and half of the feedback's term rows on a second thread,
    each thread reading into a buffer of its own: what both read adds up to the in-memory model's
    product, neighbours and scores alike, whatever the buffer's size."""
    import threading

    from store.discovery import similar as S
    from store.discovery import term_rows as R
    in_memory, loaded = mapped_model(tmp_path, monkeypatch)
    model = loaded.discovery.similarity
    ran: dict[str, list[tuple[str, int]]] = {"terms": [], "latent": []}
    product, latent_product = R.TermRows.product, S.latent_product
    monkeypatch.setattr(R.TermRows, "product", lambda self, terms, weights, slot=0, between=None: (
        ran["terms"].append((threading.current_thread().name, slot)), product(self, terms, weights, slot, between))[1])
    monkeypatch.setattr(S, "latent_product", lambda *a: (ran["latent"].append((threading.current_thread().name, 1)),
                                                         latent_product(*a))[1])
    for chunk in (1 << 20, 50):
        monkeypatch.setattr(R, "CHUNK_POSTINGS", chunk)
        for doc in (0, 7, 150):
            want, got = in_memory.scores(doc), model.scores(doc)
            kept = want > -np.inf
            assert np.array_equal(kept, got > -np.inf)
            assert np.allclose(got[kept], want[kept], atol=1e-5)
            assert [i for i, _ in model.similar(doc)] == [i for i, _ in in_memory.similar(doc)]
    here = threading.current_thread().name
    assert ran["latent"] and all(name.startswith("similar-lane") for name, _ in ran["latent"])
    assert (here, 0) in ran["terms"] and ("similar-lane_0", 1) in ran["terms"]
    assert {slot for name, slot in ran["terms"] if name == here} == {0}  # (a buffer each)


def test_a_model_file_changed_in_place_after_its_checks_is_refused_not_believed(tmp_path, monkeypatch):
    """The term rows are read from the file at each lookup, after the checks made when it was
    opened: a file written over in place since (papersift replaces its caches by renaming, so
    someone else did) is refused with a PapersiftError naming it. A paper number past the
    matrix's shape would have scipy's product (which checks no bounds) write out of its array."""
    from store import PapersiftError
    from store.discovery.model_file import read_model
    from store.search.packfile import PackReader
    _, model = mapped_model(tmp_path, monkeypatch)
    path = model.similar_path
    with open(path, "rb") as fh:
        fh.readline()
        reader = PackReader(fh)
        _, offset, length = reader.sections["t_indices"]
        at = reader.base + offset
    with open(path, "r+b") as fh:  # (in place: the same file the model has open)
        fh.seek(at)
        fh.write(np.full(length // 4, 10**7, dtype=np.int32).tobytes())
    with pytest.raises(PapersiftError, match="changed while in use"):
        model.discovery.similarity.similar(3)
    assert read_model(path, None) is None  # (and the next start checks it, and rebuilds it)


def test_a_lookup_leaves_no_thread_behind_and_an_import_after_it_still_forks(tmp_path, monkeypatch):
    """The lookup's second thread ends with the lookup (a stopped one's too): store.parallel forks
    an import's workers only in a single-threaded process, and a thread left running made every
    later import in the process serial."""
    import threading

    from store import parallel
    from store.discovery import similar as S
    from store.discovery import term_rows as R
    monkeypatch.setattr(R, "CHUNK_POSTINGS", 64)
    _, model = mapped_model(tmp_path, monkeypatch)
    threads = threading.active_count()
    assert model.discovery.similarity.similar(3)
    assert threading.active_count() == threads
    asked: list[int] = []
    with pytest.raises(S.LookupStopped):
        model.discovery.similarity.similar(4, stop=lambda: (asked.append(1), len(asked) > 3)[1])
    assert threading.active_count() == threads
    if threads == 1:  # (a test run's own threads aside)
        with parallel.beside(lambda: 7) as answer:
            assert answer is not None and answer() == 7


def test_because_names_the_words_the_wanted_papers_share_first():
    """A word one starred paper happens to write ("acknowledged") weighs for a paper but says
    nothing of what the reader wants: with three words two starred papers share, it is left out."""
    import numpy as np
    import scipy.sparse as sp

    from store.discovery.reasons import explain

    vocab = ["agents", "planning", "tools", "invoking", "robots"]
    wanted = sp.csr_matrix(np.array([[1, 1, 1, 1, 0], [1, 1, 1, 0, 1]], dtype=float))
    shared = set(np.flatnonzero(np.asarray((wanted > 0).sum(axis=0)).ravel() >= 2).tolist())
    paper = sp.csr_matrix(np.array([[0.2, 0.2, 0.2, 0.9, 0.0]]))
    weights = np.array([1.0, 1.0, 1.0, 1.0, 1.0])
    assert explain(paper, weights, 0, vocab)[0] == "invoking"  # (by weight alone)
    assert explain(paper, weights, 0, vocab, shared=shared) == ["agents", "planning", "tools"]
    few = {0}  # (fewer than three shared: the others fill in after them)
    assert explain(paper, weights, 0, vocab, shared=few) == ["agents", "invoking", "planning", "tools"]


def test_pieces_of_addresses_and_words_of_argument_are_no_reason():
    """A reader of "because: github, https, due, even" learns nothing of the paper."""
    from store.discovery.content_words import is_content_word
    assert not any(is_content_word(w) for w in ("github", "https", "due", "even", "given", "overcome", "recently"))
    assert all(is_content_word(w) for w in ("locomotion", "robot", "reinforcement", "hand"))


def test_a_word_and_the_compound_holding_it_are_one_reason():
    """"physics-informed, physics, informed" said one thing three times."""
    import numpy as np
    import scipy.sparse as sp

    from store.discovery.reasons import explain

    vocab = ["physicsinformed", "physics", "networks", "locomotion"]
    paper = sp.csr_matrix(np.array([[0.9, 0.8, 0.5, 0.4]]))
    assert explain(paper, np.ones(4), 0, vocab) == ["physicsinformed", "networks", "locomotion"]
