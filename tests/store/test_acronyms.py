"""store.search.acronyms: the acronyms a library's papers define, learned from their text, and the
search that takes an acronym and its expansion for one term (LibrarySearch, the one-shot search)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from store.library import Library
from store.search import acronyms, quick
from store.search.acronyms import acronym_of, defined, involves, learn, spelled_runs

from ..conftest import library_of

DATA = Path(__file__).resolve().parents[1] / "data"


def test_an_acronym_is_defined_by_the_initials_of_the_words_before_it():
    assert defined("we study large language models ", "llms") == ("llm", ("large", "language", "models"))
    assert defined("policies trained with reinforcement learning from human feedback ", "rlhf") == \
        ("rlhf", ("reinforcement", "learning", "from", "human", "feedback"))
    assert defined("a new vision-language-action ", "vla") == ("vla", ("vision", "language", "action"))
    assert defined("this is our approach ", "ours") is None
    assert defined("models. large ", "ml") is None  # (never across the end of a sentence)


def test_an_acronym_is_kept_when_enough_papers_define_it_and_most_alike():
    text = (b"we use large language models (LLMs) here\n" * 3 + b"a latent linear model (LLM) there\n"
            + b"we propose mixture models (MM) today\n" * 2)
    table = learn([text])
    assert table == {"llm": ("large", "language", "models")}  # 3 of 4 alike; MM defined twice only
    split = learn([b"we use large language models (LLMs)\n" * 3 + b"a latent linear model (LLM)\n" * 3])
    assert split == {}  # two meanings, neither most: left alone


def test_an_import_adds_its_new_papers_definitions_to_those_kept(tmp_path):
    """The second import counts only its papers and adds them: the same table as counting every
    paper again; an import that revises papers in place counts them all."""
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("A\n\n" + "\n\n".join([
        "We probe large language models (LLMs) for syntax with structural probes over parse trees.",
        "Retrieval helps large language models (LLMs) answer questions about rare entities correctly.",
        "We translate low-resource languages with large language models (LLMs) and bilingual lexicons."]) + "\n")
    second.write_text("B\n\n" + "\n\n".join([
        "Legged robots learn to walk with offline reinforcement learning (RL) from logged gaits.",
        "Traffic signals are timed by reinforcement learning (RL) agents trained in a city simulator.",
        "Power grids are balanced by reinforcement learning (RL) controllers under demand shocks."]) + "\n")
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([first])
    path = lib.folder / "acronyms.json"
    assert acronyms.read_table(path, lib.corpus.generation) == {"llm": ("large", "language", "models")}
    lib.paper_changes.import_paths([second])
    kept = acronyms.read_counts(path, lib.corpus.generation)
    assert kept is not None and kept[1] == len(lib.corpus) == 6
    assert kept[0] == acronyms.count(lib.corpus.papers.record_chunks())
    assert set(acronyms.table_of(kept[0])) == {"llm", "rl"}
    assert quick.quick_search(lib.folder, "translation", 5) is not None  # (the one-shot search reads them at once)


def test_query_words_that_are_an_acronym_or_spell_one_out():
    table = {"llm": ("large", "language", "models"), "lm": ("language", "models"), "rl": ("reinforcement", "learning")}
    assert acronym_of("llm", table) == "llm" and acronym_of("llms", table) == "llm"
    assert acronym_of("lms", table, used=lambda t: False) is None  # (a plural no paper writes: a typo, likelier)
    assert acronym_of("planning", table) is None
    assert spelled_runs(["large", "language", "model", "task", "planning"], table) == [(0, 3, "llm")]
    assert spelled_runs(["small", "language", "models"], table) == [(1, 3, "lm")]
    assert spelled_runs(["deep", "reinforcement-learning"], table) == [(1, 2, "rl")]
    assert involves(["llms", "agents"], table) and not involves(["task", "planning"], table)


def test_the_definitions_kept_on_disk_are_read_only_for_their_corpus_generation(tmp_path):
    path = tmp_path / "acronyms.json"
    counts = acronyms.count([b"we use reinforcement learning (RL) here\n" * 3])
    acronyms.write_counts(path, "g1", counts, 3)
    assert acronyms.read_table(path, "g1") == {"rl": ("reinforcement", "learning")}
    assert acronyms.read_counts(path, "g1") == (counts, 3)
    assert acronyms.read_table(path, "g2") is None
    for forged in ([["rl", "not a list", 3]], [["rl", ["reinforcement"], True]], [["rl"]], "rows"):
        path.write_text(json.dumps({"version": 2, "generation": "g1", "papers": 3, "table": {}}) + "\n"
                        + json.dumps({"counts": forged}) + "\n")
        assert acronyms.read_counts(path, "g1") is None, forged  # (a forged file: no counts)
    for forged_table in ({"rl": "not a list"}, {"rl": []}, {"rl": [3]}, ["rl"]):
        path.write_text(json.dumps({"version": 2, "generation": "g1", "papers": 3, "table": forged_table}) + "\n"
                        + json.dumps({"counts": []}) + "\n")
        assert acronyms.read_table(path, "g1") is None, forged_table  # (a forged file: no table)
    path.write_text(json.dumps({"version": 1, "generation": "g1", "papers": 3, "counts": []}))
    assert acronyms.read_table(path, "g1") is None and acronyms.read_counts(path, "g1") is None  # (an older file: counted anew)
    link = tmp_path / "link.json"
    acronyms.write_counts(tmp_path / "real.json", "g1", counts, 3)
    os.symlink(tmp_path / "real.json", link)
    assert acronyms.read_table(link, "g1") is None  # (a link is followed out of no library)
    assert oct((tmp_path / "real.json").stat().st_mode & 0o777) == "0o600"


@pytest.fixture(scope="module")
def iclr(tmp_path_factory) -> Library:
    """200 ICLR abstracts (their titles as written)."""
    lib = Library(tmp_path_factory.mktemp("acr") / "lib")
    lib.paper_changes.import_paths([DATA / "iclr_slice.jsonl"])
    return lib


def _set(lib: Library, query: str) -> set[int]:
    result = lib.search.find(query)
    assert result.full is not None
    return set(result.indices[:result.full].tolist())


def _texts(lib: Library) -> list[str]:
    """What a search reads of each paper: title, keywords and abstract."""
    return [" ".join(" ".join([p.title, *p.keywords, p.abstract]).split()).casefold().replace("-", " ")
            for p in lib.corpus]


def test_an_acronym_and_its_expansion_find_the_same_papers(iclr):
    """LLM finds the papers writing LLM(s) or "large language model(s)"; the expansion typed finds
    those too, and (as any words typed) the papers holding its words apart."""
    texts = _texts(iclr)
    writes_acronym = {i for i, t in enumerate(texts) if " llm" in t or "(llm" in t}
    writes_out = {i for i, t in enumerate(texts) if "large language model" in t}
    assert writes_out - writes_acronym and writes_acronym - writes_out  # (the slice has both kinds)
    short, long = _set(iclr, "LLM"), _set(iclr, "large language models")
    assert short == writes_acronym | writes_out
    apart = {i for i, t in enumerate(texts) if all(w in t for w in ("large", "language", "model"))}
    assert long == short | apart
    assert _set(iclr, "LLMs") == short
    assert _set(iclr, "LLMs planning") <= _set(iclr, "large language model planning")
    assert iclr.search.find("LLM").widened == ["LLM (also large language models)"]
    assert iclr.search.find("LLMs").widened == ["LLMs (also large language models)"]
    assert iclr.search.find("large language model").widened == ["large language model (also LLM)"]
    assert {"llm", "llms"} <= iclr.search.find("large language model").matched_terms  # (highlighted in the reader)
    assert "large language models" in iclr.search.find("LLM").matched_terms  # (its words, where they stand together)
    assert "language" not in iclr.search.find("LLM").matched_terms


def test_the_words_of_a_defined_acronym_count_only_where_it_is_defined(iclr):
    """An acronym is one term only in a library whose papers define it: "rl" here, never a word
    the papers do not define ("planning"); an acronym's plural no paper writes is no acronym."""
    table = iclr.search.acronym_table()
    assert table["rl"] == ("reinforcement", "learning") and "planning" not in table
    assert iclr.search.find("RL").widened == ["RL (also reinforcement learning)"]
    assert iclr.search.find("planning").widened == []
    assert iclr.search.find("rlz").widened == []


def test_the_one_shot_search_leaves_acronyms_to_the_full_search(iclr):
    """store.search.quick answers a plain query alike or not at all: the acronyms not learned yet,
    or a query holding one, go to the full search, which learns them and keeps them on disk."""
    folder = iclr.folder
    (folder / "acronyms.json").unlink(missing_ok=True)
    fresh = Library(folder)
    assert quick.quick_search(folder, "diffusion", 5) is None  # (not learned yet)
    fresh.search.find("diffusion")
    assert (folder / "acronyms.json").exists()
    assert quick.quick_search(folder, "diffusion", 5) is not None
    assert quick.quick_search(folder, "LLM agents", 5) is None
    assert quick.quick_search(folder, "large language model agents", 5) is None


def test_an_acronym_is_shown_as_written_and_finds_its_expansion_hyphenated(tmp_path):
    """MoE is said as the papers write it (not MOE); `RL` finds the paper that writes only
    "reinforcement-learning" (indexed joined, so no paper's text need be read for it)."""
    dump = tmp_path / "d.txt"
    dump.write_text("D\n\n" + "\n\n".join([
        "Sparse mixture of experts (MoE) layers route each token to two experts of a large transformer.",
        "We balance the load of a mixture of experts (MoE) with an auxiliary loss on router entropy.",
        "A mixture of experts (MoEs) for vision scales image classification to billions of parameters.",
        "Legged robots learn to walk with offline reinforcement learning (RL) from logged gaits.",
        "Traffic signals are timed by reinforcement learning (RL) agents trained in a city simulator.",
        "Power grids are balanced by reinforcement learning (RL) controllers under demand shocks.",
        "Which reinforcement-learning algorithms can transformers implement in context, provably?"]) + "\n")
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([dump])
    assert lib.search.find("moe").widened == ["MoE (also mixture of experts)"]
    assert lib.search.find("mixture of experts routing").widened == ["mixture of experts (also MoE)"]
    result = lib.search.find("RL")
    found = {lib.corpus.papers[int(i)].abstract[:12] for i in result.indices[:result.full]}
    assert "Which reinfo" in found and len(found) == 4


def test_a_paper_that_means_something_else_by_an_acronym_is_not_counted_for_its_expansion(tmp_path):
    """Most papers' FM is flow matching, one's is foundation models: `flow matching` finds the
    papers writing FM for it, the one using FM undefined and the one defining it in words it
    shares ("fast matching"), never the foundation-models paper (which `FM` typed still finds: it
    writes the acronym)."""
    texts = [
        "We train generative models by flow matching (FM) on optimal transport paths between noise and data.",
        "Conditional flow matching (FM) regresses vector fields that carry a simple prior to images.",
        "Rectified flow matching (FM) straightens the sampling paths, so one step generates an image.",
        "Flow matching (FM) on manifolds generates proteins whose backbones respect their geometry.",
        "Our FM sampler needs ten steps for audio generation, beating diffusion on speed.",
        "Large foundation models (FMs) are adapted to hypergraph recovery; the FMs keep relational structure.",
        "Our fast matching (FM) of point clouds aligns scans, and FM runs in real time on a phone.",
    ]
    lib = library_of(tmp_path, texts)

    def found(query: str) -> set[int]:
        result = lib.search.find(query)
        return {texts.index(lib.corpus.papers[int(i)].abstract) for i in result.indices[:result.found]}

    assert lib.search.acronym_table()["fm"] == ("flow", "matching")
    # (another meaning shares no word with flow matching; "fast matching" is a way of saying it)
    assert acronyms.others_of(acronyms.count(lib.corpus.papers.record_chunks()), lib.search.acronym_table()) == \
        {"fm": [("foundation", "models")]}
    assert found("flow matching") == {0, 1, 2, 3, 4, 6}
    assert found("FM") == {0, 1, 2, 3, 4, 5, 6}
