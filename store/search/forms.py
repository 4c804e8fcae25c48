"""Word forms: which words search takes as forms of one another (policy, policies; estimate,
estimated, estimating), the same for the index and the query.

The Snowball English stemmer (PyStemmer, in C) finds a word's stem. Snowball also strips
derivational endings ("generative" and "generation" share the stem ``generat``, "optimal" and
"optimization" share ``optim``), and a researcher searching "generative" does not mean
"generation". So a word's *form key* is its stem plus the derivational ending Snowball took off,
with the inflectional ending (-s, -es, -ies, -ed, -ing, a doubled consonant before them) left
out: "generations" and "generation" share ``generat+ion``, "generated" and "generating" share
``generat``, "generative" stays apart. Measured with benchmarks/set_quality.py (docs/quality.md).

Where Snowball measurably fails on this field's words, a word is mapped before stemming:
irregular plurals (matrices, hypotheses), plural acronyms it leaves whole (LLMs, GNNs, MDPs: no
vowel for its plural rule; GPUs), each with its reason in :data:`EXCEPTIONS`.
"""

from __future__ import annotations

import Stemmer

_STEMMER = Stemmer.Stemmer("english")

# word -> the word whose forms it is, where Snowball gives the pair different stems.
EXCEPTIONS = {
    # Latin and Greek plurals: Snowball stems "matrices" to matric, "matrix" to matrix.
    "matrices": "matrix", "vertices": "vertex", "indices": "index", "simplices": "simplex",
    "appendices": "appendix", "hypotheses": "hypothesis", "analyses": "analysis", "theses": "thesis",
    "syntheses": "synthesis", "criteria": "criterion", "phenomena": "phenomenon", "automata": "automaton",
    # Snowball never takes the s off -us (virus, corpus): an activation's plural.
    "relus": "relu",
    # Irregular verb forms of this field.
    "learnt": "learn",
    # Snowball reads the -ed of "embed" as an ending (embed -> emb, embedded -> embed).
    "embed": "embedded", "embeds": "embedded",
}
_VOWELS = frozenset("aeiouy")
# Inflectional endings after the stem (longest first); a doubled consonant before the first
# three is inflection too (running, embedded).
_INFLECTIONS = ("ings", "ying", "ing", "ies", "ied", "es", "ed", "s", "d", "e", "y")
_DOUBLING = ("ings", "ing", "ed")


_NOT_PLURALS = frozenset({"plus", "thus"})  # English words shaped as the acronym plurals below


def canonical(word: str) -> str:
    """The word a search word is taken as: an exception's mapping, or an acronym's plural without
    its s. Snowball takes an s off only after a vowel that is not just before it, so it leaves
    acronym plurals whole: those with no vowel (llms, gnns, mdps, 3ds: 3+ characters) and those
    whose one vowel is the letter before the s (gpus, sdes, pdes: 4+)."""
    mapped = EXCEPTIONS.get(word)
    if mapped is not None:
        return mapped
    if len(word) >= 3 and word[-1] == "s" and word[-2] != "s" and word not in _NOT_PLURALS:
        vowels = _VOWELS.intersection(word[:-2])
        if not vowels and (word[-2] not in _VOWELS or (len(word) >= 4 and word[-2] in "eu")):
            return word[:-1]
    return word


def _derivation(tail: str, base: str) -> str | None:
    """What of ``tail`` (the word after its stem's base) is derivation; None when it is all
    inflection. Up to two endings come off ("eds", "izations" -> "ization")."""
    for _ in range(2):
        if not tail or (tail == "l" and base.endswith("l")):  # Snowball undoubles a final ll (distill -> distil)
            return None
        for suf in _INFLECTIONS:
            if tail.endswith(suf) and not (suf == "s" and tail.endswith("ss")):
                rest = tail[: -len(suf)]
                if suf in _DOUBLING and len(rest) == 1 and base.endswith(rest):
                    return None
                tail = rest
                break
        else:
            return tail
    return tail or None


def form_keys(words: list[str]) -> list[str]:
    """Each word's form key: words with one key are forms of one word (see the module's docstring)."""
    words = [canonical(w) for w in words]
    out = []
    for word, stem in zip(words, _STEMMER.stemWords(words)):
        base = stem[:-1] if len(stem) > 2 and stem[-1] in "ei" else stem
        if not word.startswith(base):
            out.append(stem)  # Snowball's own special cases (dying -> die): its stem is the key
            continue
        rest = _derivation(word[len(base):], base)
        out.append(stem if rest is None else f"{stem}+{rest}")
    return out


def form_key(word: str) -> str:
    """One word's form key (:func:`form_keys`)."""
    return form_keys([word])[0]
