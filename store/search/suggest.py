"""Did you mean: the nearest existing value for a filter that matches nothing.

``tag:bandit`` when the library has ``#bandits``, ``kw:reinforcment``, ``author:lecunn``,
``venue:nips``: the filter's value is compared with the values the library holds (as the
filter compares: case and accents folded), and the closest is offered when it is close enough
to be what was meant.
"""

from __future__ import annotations

from typing import Callable

from rapidfuzz import fuzz, process

MIN_SCORE = 75  # of 100 (rapidfuzz's WRatio): below this no suggestion beats "no such value"


def nearest(value: str, candidates: list[str]) -> str | None:
    """The candidate closest to ``value`` (None when none is close)."""
    if not value or not candidates:
        return None
    # A value typed in part of a longer one may be meant ("difusion" for "diffusion models"), but
    # not one under half the value's length: WRatio's partial match scored "z" close to "zzzqx".
    pool = [c for c in candidates if 2 * len(c) >= len(value)]
    found = process.extractOne(value, pool, scorer=fuzz.WRatio, score_cutoff=MIN_SCORE)
    return found[0] if found else None


def no_match(kind: str, value: str, candidates: list[str], shown: Callable[[str], str] = lambda v: v) -> str:
    """The message for a filter value that matches nothing, with the nearest value if any."""
    close = nearest(value, candidates)
    hint = f"; did you mean {shown(close)}?" if close else ""
    return f"no {kind} {shown(value)} here{hint}"
