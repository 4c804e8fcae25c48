"""Keywords: the subject labels an input gives a paper, read from the fields formats write them in
and written back so they read again the same.

Formats hold them two ways: a list (JSON, OpenReview, RIS's one ``KW`` line each) or one string
(BibTeX ``keywords``, CSL-JSON ``keyword``, a CSV cell) separated by ',' or ';'. A label may hold
a comma itself ("Reinforcement learning, offline"; ICLR's area "societal considerations including
fairness, safety, privacy", which the exports add to the keywords), so :func:`join_keywords` uses
';' whenever one does, and :func:`keywords_of` splits on ';' when the string has one. A ';'
inside a list's label is taken as a separator too (["graphs; GNN"] is two labels), as tags
keep it out: no label could otherwise survive the round trip through one string.
"""

from __future__ import annotations

from store.safe_text import display_safe

MAX_KEYWORDS = 50
WIDE_SEMICOLON = "\uff1b"  # "；", as CJK input methods write ';' (2 of ICLR 2024's papers): a separator too
MAX_KEYWORD_CHARS = 200


def keywords_of(*values: object) -> list[str]:
    """Labels from fields as inputs write them, in order, duplicates (case ignored) dropped.

    A list holds one label per item (an item with a ';' is split there: no label holds one, so
    every export's one string reads back the same); a string is split on ';' when it has one,
    else on ',' (BibTeX's "RL, bandits", Zotero's "RL; bandits"). Whitespace and control characters are
    folded away; a label longer than ``MAX_KEYWORD_CHARS`` is cut, and at most
    ``MAX_KEYWORDS`` are kept: they are labels, a note holds prose.
    """
    out: list[str] = []
    seen: set[str] = set()
    for value in values:
        if isinstance(value, str):
            value = value.replace(WIDE_SEMICOLON, ";")
            items = value.split(";" if ";" in value else ",")
        elif isinstance(value, list):  # ';' is the separator of last resort: never inside a label
            items = [part for v in value if isinstance(v, str) for part in v.replace(WIDE_SEMICOLON, ";").split(";")]
        else:
            continue
        for item in items:
            label = clean_label(item)
            if label and label.casefold() not in seen and len(out) < MAX_KEYWORDS:
                seen.add(label.casefold())
                out.append(label)
    return out


def clean_label(text: str) -> str:
    """One label as kept: control characters gone, white space collapsed, at most
    ``MAX_KEYWORD_CHARS`` characters."""
    return " ".join(display_safe(text, keep_newlines=False).split())[:MAX_KEYWORD_CHARS].strip()


def join_keywords(labels: list[str]) -> str:
    """Labels as one string that :func:`keywords_of` splits back into the same labels: joined
    by ", " as BibTeX and CSL-JSON readers expect, or by "; " when a label holds a comma (a
    lone such label gets a trailing ';' so its comma is not taken for a separator)."""
    if not any("," in label for label in labels):
        return ", ".join(labels)
    return "; ".join(labels) + (";" if len(labels) == 1 else "")


def tags_and_keywords(tags: list[str], keywords: list[str], area: str = "") -> list[str]:
    """What a reference manager's one keywords field gets: the person's tags first, then the
    source's keywords and area not already among them (case ignored)."""
    return keywords_of(list(tags), list(keywords), [area])
