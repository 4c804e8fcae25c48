"""Who is triaging: member names, checked, and the default one.

A member is named by ``--as NAME``, else ``PAPERSIFT_USER``, else the login name (its characters a
name cannot hold made '-'). Names are short
plain words (letters, digits, ``. _ -``; at most 64 characters): they are typed in filters
(``by:ana``), written into team files and shown in every list row, so anything else is refused.
"""

from __future__ import annotations

import getpass
import math
import os
import re
from typing import Sequence

from store.errors import PapersiftError

MAX_MEMBER_CHARS = 64
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
FALLBACK = "me"  # a login name that is no usable member name (or none at all)


def member_problem(name: str) -> str | None:
    """Why ``name`` cannot name a member (None if it can)."""
    if not name:
        return "no member name given (a member is a short name such as ana)"
    if len(name) > MAX_MEMBER_CHARS:
        return f"a member name of {len(name)} characters; at most {MAX_MEMBER_CHARS}"
    if not _NAME.fullmatch(name):
        return (f"member name {name!r}: use letters, digits, '.', '_' and '-' "
                "(starting with a letter or digit)")
    return None


def checked_member(name: str) -> str:
    """``name`` when it can name a member.

    Raises:
        PapersiftError: it cannot, with why.
    """
    if problem := member_problem(name):
        raise PapersiftError(problem)
    return name


def default_member() -> str:
    """``PAPERSIFT_USER`` (checked: a bad one is an error, not a silent fallback), else the login
    name when it is a usable member name, else ``me``."""
    named = os.environ.get("PAPERSIFT_USER", "").strip()
    if named:
        if problem := member_problem(named):
            raise PapersiftError(f"PAPERSIFT_USER: {problem}")
        return named
    try:
        login = getpass.getuser()
    except Exception:  # (no user database entry, no LOGNAME: a container)
        login = ""
    return usable_name(login)


def usable_name(login: str) -> str:
    """A login name as a member name: characters a name cannot hold become '-' (``jdoe@CORP`` is
    ``jdoe-CORP``), at most 64 characters; ``me`` when nothing usable is left."""
    name = re.sub(r"[^A-Za-z0-9._-]", "-", login).lstrip("._-")[:MAX_MEMBER_CHARS]
    return name if name and member_problem(name) is None else FALLBACK


def member_list(text: str) -> list[str]:
    """Members written as ``ana,ben,chen`` (spaces allowed), each checked, each once.

    Raises:
        PapersiftError: an empty list, an empty or bad name, or a name given twice (``--to ana,ana``
            would deal ana two shares, and ``ana,,ben`` is a typo).
    """
    parts = [part.strip() for part in text.split(",")]
    if not any(parts):
        raise PapersiftError("no members given (e.g. --to ana,ben,chen)")
    if "" in parts:
        raise PapersiftError(f"{text!r}: an empty name between commas (e.g. --to ana,ben,chen)")
    twice = sorted({p for p in parts if parts.count(p) > 1})
    if twice:
        raise PapersiftError(f"{', '.join(twice)} named twice (each member once; --weights gives one a larger share)")
    for name in parts:
        checked_member(name)
    return parts


def check_weights(names: Sequence[str], weights: Sequence[float]) -> list[float]:
    """The members' relative shares (``1e308,1e308`` is ``1,1``).

    Raises:
        PapersiftError: not one finite positive number per member, or a share a millionth of another's.
    """
    if len(weights) != len(names) or any(not (w > 0 and math.isfinite(w)) for w in weights):
        raise PapersiftError(f"--weights needs one positive number per member ({len(names)}: "
                             f"{', '.join(names)}), e.g. {','.join(['1'] * len(names))}")
    top = max(weights)
    shares = [w / top for w in weights]
    if min(shares) < 1e-6:
        raise PapersiftError(f"--weights {','.join(f'{w:g}' for w in weights)}: a share a millionth of another's is "
                             "no share; give every member at least that")
    return shares


def typo_of(name: str, member: str) -> bool:
    """Whether ``name`` reads as a slip of ``member``: the same letters swapped, one more, one
    fewer or one other (``bne``, ``benn``, ``bn``, ``ban`` for ben)."""
    if abs(len(name) - len(member)) > 1 or name == member:
        return False
    if sorted(name) == sorted(member):
        return True
    from rapidfuzz.distance import Levenshtein
    return Levenshtein.distance(name, member) <= 1


def nearest_member(name: str, known: Sequence[str]) -> str | None:
    """The member ``name`` was likely meant to name (None: none is close): the same name in
    other case (``Ben``), a slip (``bne``: :func:`typo_of`), else the closest by spelling."""
    from store.search.suggest import nearest
    return (next((m for m in known if m != name and m.casefold() == name.casefold()), None)
            or next((m for m in known if typo_of(name, m)), None) or nearest(name, list(known)))


def no_member(name: str, known: Sequence[str]) -> str:
    """What is said of a name no member here has, with the member likely meant."""
    close = nearest_member(name, known)
    return f"no member {name} here" + (f"; did you mean {close}?" if close else "")
