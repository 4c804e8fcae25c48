"""The vocabulary helpers (store/search/vocab.py): word forms and content words."""





def test_vocab_stems_word_forms_together_and_keeps_content_words():
    from store.search.forms import form_key
    from store.search.sorted_words import SortedWords
    from store.search.vocab import content_words
    from store.text import STOP_WORDS

    assert form_key("networks") == form_key("network") and form_key("learning") == form_key("learned")
    assert content_words(["the", "graph", "of", "networks"]) == ["graph", "networks"]
    assert "the" in STOP_WORDS and "graph" not in STOP_WORDS
    words = SortedWords(sorted(["apple", "applet", "banana", "band"]))
    assert words.find("banana") is not None and words.find("bandana") is None
    assert words.chunk("b") == (2, ["banana", "band"])
    assert len(words.completions("app")) == 2 and len(words.completions("ban")) == 2


# ------------------------------------------------------------------ journal
