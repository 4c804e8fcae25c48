"""A phrase of an abstract as title text (store.titles.text)."""

from __future__ import annotations

from store.titles.text import clean_phrase, trim_words


def test_a_phrase_reads_as_the_reader_shows_it():
    """Math as Unicode with the spaces at its edges kept, TeX commands' text kept and their markup
    dropped, TeX quotes and dashes as typeset, emphasis and emptied parentheses gone, spaces folded."""
    assert clean_phrase("$\\alpha$-tasks with \\textbf{Foo} and ``domains'' --- fast **bold** ()") == (
        "α-tasks with Foo and “domains” — fast bold")
    assert clean_phrase("a  $k$ -NN  `upsampling'  pages 1--2,") == "a k -NN ‘upsampling’ pages 1–2"
    # a star in math is kept ("C^-algebraic ML": taken for emphasis); emphasis's stars still go
    assert clean_phrase("a new direction: $C^*$-algebraic ML, *quickly* and $y^*$") == (
        "a new direction: C^*-algebraic ML, quickly and y^*")
    # a paper's own macro reads as its name, as in the reader (ICLR 2024: "we introduce , a video
    # tokenizer"); TeX's abbreviations as words; references and markup dropped
    assert clean_phrase("we introduce \\modelname{}, a video tokenizer, \\eg for video \\cite{x}") == (
        "we introduce modelname, a video tokenizer, e.g. for video x")
    assert clean_phrase("\\textsc{Self-Defense}: a \\textsc framework") == "Self-Defense: a framework"


def test_a_phrase_cut_to_its_words_never_ends_inside_a_parenthesis():
    assert trim_words("one two three four", 2) == "one two…"
    assert trim_words("one two three", 3) == "one two three"
    assert trim_words("a method for graphs (with a long aside", 10) == "a method for graphs…"
