"""store.titles.ends: how a derived title ends (whole phrases; brackets and quotes paired)."""

from __future__ import annotations

import pytest

from store.titles.ends import balanced, noun_end, tidy_end, without_dangling


@pytest.mark.parametrize("title, fixed", [
    ("AQLM: extreme'' LLM compression", "AQLM: extreme LLM compression"),
    ("A method inspired by \"stochastic resonance", "A method inspired by stochastic resonance"),
    ("What is it—discriminative inference (fast", "What is it—discriminative inference"),
    ("A pipeline consisting of 1) a retriever and 2) a reader", "A pipeline consisting of a retriever and a reader"),
    ("“Forward-only” algorithms that avoid a backward pass", "Forward-only algorithms that avoid a backward pass"),
    ("Parkinson’s disease and models’ errors", "Parkinson’s disease and models’ errors"),
])
def test_balanced(title, fixed):
    assert balanced(title) == fixed


@pytest.mark.parametrize("phrase, ended", [
    ("A method for", "A method"),
    ("EquiBot: a robust", "EquiBot"),
    ("Transformers of the", "Transformers"),
])
def test_a_phrase_never_ends_on_a_word_that_leads_on(phrase, ended):
    assert without_dangling(phrase) == ended


def test_a_cut_phrase_ends_on_a_word_that_can_end_it():
    assert noun_end("A scalable model trained specifically") == "A scalable model"
    assert tidy_end("LESS: a simple integration of a") == "LESS: a simple integration"
