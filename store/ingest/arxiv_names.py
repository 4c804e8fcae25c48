"""What a person names to fetch from arXiv: categories as arXiv's taxonomy names them (checked
before arXiv is asked anything: it answers a name it has no such thing as with nothing, not an
error) and the date to fetch since. Read by ``papersift fetch`` and the app's fetch dialog."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from store.errors import PapersiftError

_CATEGORY = re.compile(r"[a-z-]+(\.[A-Za-z-]+)?")
# arXiv's archives (its category taxonomy): those whose categories are named by subject, in
# capitals (cs.LG) or in words (cond-mat.str-el), and those that are a category alone (hep-th).
_BY_CAPITALS = frozenset("cs econ eess math nlin q-bio q-fin stat astro-ph".split())
_BY_WORDS = frozenset("cond-mat physics".split())
_ALONE = frozenset("astro-ph cond-mat gr-qc hep-ex hep-lat hep-ph hep-th math-ph nucl-ex nucl-th quant-ph".split())
_SUBJECT = {True: re.compile(r"[A-Z]{2}"), False: re.compile(r"[a-z]+(-[a-z]+)*")}
_EXAMPLE = {"cs": "cs.LG", "econ": "econ.EM", "eess": "eess.SP", "math": "math.CO", "nlin": "nlin.AO",
            "q-bio": "q-bio.NC", "q-fin": "q-fin.ST", "stat": "stat.ML", "physics": "physics.optics"}


def check_categories(categories: list[str]) -> list[str]:
    """The categories as arXiv names them (cs.LG, stat.ML, astro-ph, cond-mat.str-el); a name of
    no archive of arXiv's, an archive without its subject, or a subject in the wrong case is an
    error that says what it expected (arXiv answers such a query with nothing, not an error)."""
    if not categories:
        raise PapersiftError("which categories? e.g. papersift fetch arxiv cs.LG cs.RO")
    for c in categories:
        if not _CATEGORY.fullmatch(c):
            raise PapersiftError(f"{one_line(c)!r} is not an arXiv category (such as cs.LG, stat.ML, astro-ph)")
        archive, _, subject = c.partition(".")
        if archive not in _BY_CAPITALS | _BY_WORDS | _ALONE:
            raise PapersiftError(f"{one_line(c)!r} is not an arXiv category: {one_line(archive)!r} is no archive of arXiv's "
                                 f"(cs, math, stat, physics, q-bio, astro-ph, hep-th, …)")
        if not subject and archive not in _ALONE:
            raise PapersiftError(f"{c!r} is an arXiv archive: name one of its categories, such as {_EXAMPLE[archive]}")
        if subject and archive not in _BY_CAPITALS | _BY_WORDS:
            raise PapersiftError(f"{one_line(c)!r} is not an arXiv category: {archive} is a category alone, with no "
                                 "subject after it")
        capitals = archive in _BY_CAPITALS
        if subject and not _SUBJECT[capitals].fullmatch(subject):
            way = "two capitals, as cs.LG" if capitals else "words, as cond-mat.str-el"
            raise PapersiftError(f"{one_line(c)!r} is not an arXiv category: {archive}'s subjects are {way}")
    return categories


def since_date(text: str | None, now: datetime | None = None) -> datetime:
    """``--since 2026-12-01`` as a time (UTC midnight); none given: a day before now."""
    now = now or datetime.now(timezone.utc)
    if not text:
        return now - timedelta(days=1)
    try:
        return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)
    except ValueError:
        raise PapersiftError(f"--since {text!r}: a date, as 2026-12-01") from None


def one_line(text: str, width: int = 100) -> str:
    """Text from a server or a person, on one line and short enough for a one-line message."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"
