"""store/search/forms.py: which words are forms of one another."""

from __future__ import annotations

import pytest

from store.search.forms import EXCEPTIONS, canonical, form_key, form_keys

SAME = [
    ("policy", "policies"), ("trajectory", "trajectories"), ("strategy", "strategies"), ("query", "queried"),
    ("study", "studying"), ("estimate", "estimating"), ("estimated", "estimates"), ("run", "running"),
    ("embedding", "embeddings"), ("embed", "embedded"), ("scale", "scaling"), ("scaled", "scales"),
    ("generation", "generations"), ("optimize", "optimized"), ("optimizer", "optimizers"),
    ("distill", "distilled"), ("distil", "distilling"), ("happiness", "happinesses"),
]
APART = [
    ("generative", "generation"), ("generative", "generated"), ("optimal", "optimization"),
    ("optimal", "optimize"), ("transformer", "transform"), ("general", "generalization"),
    ("learner", "learning"), ("attacker", "attack"), ("sampler", "sampled"), ("news", "new"),
]


@pytest.mark.parametrize("a, b", SAME)
def test_inflections_are_one_word(a, b):
    assert form_key(a) == form_key(b)


@pytest.mark.parametrize("a, b", APART)
def test_derived_words_stay_apart(a, b):
    """Snowball gives these one stem; a researcher searching one does not mean the other."""
    assert form_key(a) != form_key(b)


@pytest.mark.parametrize("plural, single", [("llms", "llm"), ("gnns", "gnn"), ("mdps", "mdp"), ("3ds", "3d"),
                                            ("gpus", "gpu"), ("sdes", "sde"), ("pdes", "pde"), ("vaes", "vae"),
                                            ("vits", "vit"), ("relus", "relu")])
def test_acronym_plurals_are_their_acronym(plural, single):
    assert form_key(plural) == form_key(single)


@pytest.mark.parametrize("word", ["plus", "thus", "bus", "gas", "yes", "corpus", "virus", "class", "loss"])
def test_words_shaped_like_plurals_keep_their_s(word):
    assert canonical(word) == word and form_key(word) != form_key(word[:-1])


@pytest.mark.parametrize("word, meant", sorted(EXCEPTIONS.items()))
def test_each_exception_joins_the_word_it_names(word, meant):
    """Each exception is needed (Snowball alone separates the pair) and works."""
    import Stemmer
    snowball = Stemmer.Stemmer("english")
    assert snowball.stemWord(word) != snowball.stemWord(meant)
    assert form_key(word) == form_key(meant)


def test_the_batch_and_the_single_word_agree():
    words = [w for pair in SAME + APART for w in pair]
    assert form_keys(words) == [form_key(w) for w in words]


# ------------------------------------------------------------------ the result set, by the rule
@pytest.fixture(scope="module")
def icml_slice(tmp_path_factory):
    import json

    from store import Library
    from store.text import index_tokens

    from ..conftest import DATA
    tmp = tmp_path_factory.mktemp("forms")
    recs = [json.loads(line) for line in (DATA / "icml_slice.jsonl").read_text().splitlines()]
    (tmp / "dump.txt").write_text("ICML\n\n" + "\n\n".join(r["abstract"].replace("\n\n", "\n") for r in recs))
    lib = Library(tmp / "lib")
    lib.paper_changes.import_paths([tmp / "dump.txt"])
    keys = [set(form_keys(index_tokens(p.abstract) + index_tokens(p.title or ""))) for p in lib.corpus]
    return lib, keys


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_the_set_holds_exactly_the_papers_with_every_word_in_some_form(icml_slice):
    """For random queries of 1-3 words from the library's own vocabulary (words two or more
    abstracts hold, so no typo is forgiven in their place), the result set is the papers whose
    text holds each word in some form, as form_key tells, read from the paper, not the index
    (but an acronym the papers define, or words spelling one out: those count each other)."""
    import re

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from store.search import acronyms
    from store.text import STOP_WORDS
    lib, keys = icml_slice
    index = lib.index
    table = lib.search.acronym_table()
    vocab = [t for i, t in enumerate(index.vocab)
             if index.offsets[i + 1] - index.offsets[i] >= 2 and t not in STOP_WORDS and t.isascii()
             and t.isalnum() and not re.search(r"[a-z]{2}2[a-z]{2}", t)]

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.lists(st.sampled_from(vocab), min_size=1, max_size=3, unique=True))
    def check(words):
        if acronyms.involves(words, table):  # (an acronym the papers define counts its expansion: test_acronyms)
            return
        result = lib.search.find(" ".join(words))
        want = {form_key(w) for w in words}
        expected = {i for i, k in enumerate(keys) if want <= k}
        assert set(result.matches.tolist()) == expected, words

    check()
