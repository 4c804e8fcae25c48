"""store.titles.kinds: where no rule finds a phrase that reads as a title, the paper shows the first
words of what it says it does, marked as such in every view and export, and read back as no title."""

from __future__ import annotations

from store import Library
from store.exchange.export import export_text
from store.titles.derive import derive_title, excerpt
from store.titles.kinds import is_excerpt, shown_title, title_mark

# Background first, and the paper's own sentences only point back ("this question"): no phrase.
NO_PHRASE = ("It is widely agreed that when AI models assist decision-makers in high-stakes domains, they should "
             "communicate the confidence of their predictions. However, decision-makers struggle to use it. In this "
             "paper, we address this question in the canonical case of binary predictions and binary decisions.")


def test_an_abstract_no_rule_titles_shows_the_start_of_its_own_sentence():
    title = derive_title(NO_PHRASE)
    assert title == "In this paper, we address this question in the canonical case of binary predictions"
    assert is_excerpt(title, derived=True) and not is_excerpt(title, derived=False)  # (a real title is a title)
    assert shown_title(title, True) == f"“{title}…”"
    assert "…" not in title  # stored whole; the views add the mark


def test_without_a_sentence_of_its_own_the_excerpt_is_its_first_words():
    text = ("While transformers dominate sequence modelling across language, vision and speech tasks in many "
            "settings, their cost grows with length. Quadratic attention is the bottleneck.")
    assert excerpt(text) == "While transformers dominate sequence modelling across language, vision and speech tasks"
    assert is_excerpt(derive_title(text), True)


def test_a_title_is_no_excerpt():
    for title in ("Sport as the next grand challenge for AI", "VIPBench: Voice Identity Perception benchmark",
                  "Weaker models teach stronger ones", "Astronomy with transformers"):
        assert not is_excerpt(title, True), title


def test_exports_mark_an_excerpt_and_read_it_back_as_no_title(tmp_path):
    lib = Library(tmp_path / "lib")
    (tmp_path / "d.txt").write_text("Dump\n\n" + NO_PHRASE + "\n")
    lib.paper_changes.import_paths([tmp_path / "d.txt"])
    paper = lib.corpus.papers[0]
    assert is_excerpt(paper.title, paper.derived_title) and title_mark(paper).startswith("no title")
    md = export_text(lib.pairs(""), "md")
    assert f"**“{paper.title}…”** *(no title: the first words" in md
    bib = export_text(lib.pairs(""), "bibtex")
    assert "papersift_title = {no title: the first words of what the paper says it does}" in bib
    ris = export_text(lib.pairs(""), "ris")
    assert "U1  - title no title: the first words" in ris
    for fmt, text in (("bib", bib), ("ris", ris)):  # papersift's own export read back: derived again, no real title
        other = Library(tmp_path / f"again-{fmt}")
        (tmp_path / f"e.{fmt}").write_text(text)
        other.paper_changes.import_paths([tmp_path / f"e.{fmt}"])
        assert other.corpus.papers[0].derived_title and other.corpus.papers[0].title == paper.title


def test_json_says_an_excerpt(tmp_path):
    import json
    lib = Library(tmp_path / "lib")
    (tmp_path / "d.txt").write_text("Dump\n\n" + NO_PHRASE + "\n\nWe propose ZephyrNet, a method for video "
                                    "prediction from optical flow.\n")
    lib.paper_changes.import_paths([tmp_path / "d.txt"])
    rows = {r["title"][:9]: r for r in json.loads(export_text(lib.pairs(""), "json"))["papers"]}
    assert rows["In this p"]["title_excerpt"] is True and "title_excerpt" not in rows["ZephyrNet"]
