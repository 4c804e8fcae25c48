"""The words that say what papers are about: why a paper is recommended (the terms that weigh most
for it, :func:`explain`) and what a topic is (its label's phrases, :func:`topic_labels`), both read
from the similarity model's term weights (:mod:`store.discovery.similar`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from store.discovery.content_words import is_content_word, outside_addresses

LABEL_SAMPLE = 80  # abstracts per topic read for its label's phrases

SHARED_FIRST = 3  # "because" words the wanted papers share that are enough: the rest are not looked for


def explain(matrix: sp.csr_matrix, w: np.ndarray, doc: int, vocab: list[str], top: int = 5,
            shared: set[int] | None = None, text: str = "") -> list[str]:
    """The terms that contribute most to a paper's recommendation score: content words only
    (function words and the words every abstract writes left out: "because: them, same" or
    "negligible, higher, methodology" explains nothing; see :mod:`store.discovery.content_words`).
    With ``shared`` (the terms two or more of the wanted papers hold), those come first, and when
    there are ``SHARED_FIRST`` of them the others are left out: a word one starred paper happens to
    write ("acknowledged", "recently") weighs for it but says nothing of what the reader wants.
    ``text``: the paper's text, whose terms found only in a web address are left out ("microsoft"
    of github.com/microsoft/SmartPlay)."""
    outside = outside_addresses(text)
    row = matrix[doc]
    contrib = row.data * w[row.indices]
    order = [i for i in np.argsort(-contrib) if contrib[i] > 0]
    out: list[str] = []

    def take(picks: list[int]) -> None:
        for i in picks:
            if len(out) == top:
                return
            term = vocab[row.indices[i]]
            if term not in LABEL_STOP and is_content_word(term) and (outside is None or term in outside) \
                    and not _a_form_of(term, out) \
                    and not any(term in other or other in term for other in out):  # ("physics", "physics-informed")
                out.append(term)

    if shared is not None:
        take([i for i in order if int(row.indices[i]) in shared])
        if len(out) >= SHARED_FIRST:
            return out
    take(order)
    return out


def _a_form_of(term: str, named: list[str]) -> bool:
    """Whether ``term`` is the singular or plural of a term already named ("agents" after "agent")."""
    return any(term in (other + "s", other + "es") or other in (term + "s", term + "es") for other in named)


LABEL_STOP = frozenset("""a about above across after again against all also among an and any are as at be
because been before being between both but by can could did do does doing during each either else
every few for from further had has have having here how however if in into is it its itself just
like many may might more most much must neither no nor not now of off often on once only or other
our out over own per rather same several shall should since so some such than that the their them
then there these they this those though through thus to too under until up upon us very via was we
were what when where whether which while who whom whose why will with within without would yet you
your new novel propose proposed approach approaches method methods paper work show results based
using use used existing well also different first two one three""".split())


def topic_labels(matrix: sp.csr_matrix, labels: np.ndarray, vocab: list[str], top: int = 3,
                 texts: Callable[[np.ndarray], list[str]] | None = None) -> dict[int, str]:
    """A readable label per topic: the terms most over-represented in it, as phrases.

    Each term's mean weight in the topic minus its mean over the library, so
    words every topic uses ("learning", "whether") do not label them all;
    function words are skipped outright. With ``texts`` (abstracts for rows), each
    term is grown into the phrase the topic's papers write (``store.discovery.topic_labels``):
    "Monte Carlo · Bayesian", not "carlo · monte · bayesian".
    """
    from store.discovery.topic_labels import Sample, label

    overall = np.asarray(matrix.mean(axis=0)).ravel()
    out = {}
    for t in np.unique(labels):
        members = np.flatnonzero(labels == t)
        mean = np.asarray(matrix[members].mean(axis=0)).ravel() - overall
        terms = [vocab[i] for i in np.argsort(-mean)[:top * 8] if vocab[i] not in LABEL_STOP and len(vocab[i]) >= 3]
        step = max(1, len(members) // LABEL_SAMPLE)
        sample = Sample(texts(members[::step][:LABEL_SAMPLE]) if texts else [])
        out[int(t)] = " · ".join(label(sample, terms, LABEL_STOP, top))
    return out

