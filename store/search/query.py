"""Parse a search query: free words (two joined by ``OR``: either does), "exact phrases",
filters and orderings.

Filters (each negated by a leading ``-``): marks (``status:``, ``star:``, ``tag:``), a lab's marks
(``by:``, ``star-by:``, ``status-by:``, ``tag-by:``, ``note-by:``, ``team-star:``, ``split:``,
``assigned:``), the paper (``author:``, ``id:`` or a whole 12-digit id alone, ``venue:``, ``year:``,
``kw:``, ``file:``, ``topic:``) and its arrival (``new:``, ``batch:``, ``added:``, ``updated:``);
``-word`` leaves out the papers whose text holds the word, as ``-"word"`` does. Orderings:
``similar:ID``, ``rec:stars`` / ``rec:TAG`` (never negated: said in ``errors``). docs/search.md
gives each with its values and examples.
"""

from __future__ import annotations

import datetime
import operator
import re
from typing import Any, Callable

from store.choices import MAX_STAR, STATUSES
from store.search.either import OR_BETWEEN_WORDS, Joiner
from store.text import fold_name, math_words, query_terms, search_tokens

# A "phrase", a filter with a quoted value (kw:"federated learning"), or any other token.
_TOKEN = re.compile(r'(-?)"([^"]*)"?|(-?[A-Za-z]+:"[^"]*"?|\S+)')
_PAPER_ID = re.compile(r"[0-9a-fA-F]{12}")  # store.corpus.paper_id: 12 hex digits
Comparison = tuple[Callable[[Any, Any], Any], int]  # year: and star: filters: (operator, value)
_OPS = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt, "=": operator.eq, "": operator.eq}


class Filter:
    """One filter, as typed: ``kind`` names it, ``value`` is what follows the colon as it is
    compared (a status, a folded author part, a phrase, a member's name, a date), ``compare`` an
    (operator, number) when it compares, ``negated`` for the leading ``-``, ``detail`` what a
    member's filter names after the member.

    Kinds: "phrase" (also ``-word``), "status", "star", "tag", "topic" (``value`` its number),
    "id", "author", "kw", "file", "venue", "year"; a lab's marks: "by" (the member triaged it),
    "star-by" (the member's stars compare), "status-by", "tag-by" and "note-by" (the member's
    status is ``detail``; the member tagged it ``detail``, or anything; the member's note holds
    ``detail``, or anything), "team-star" (every member's stars summed compare), "split" (one
    member starred it, another skipped it), "assigned" (to the member; "" for anyone); arrivals:
    "new" (the newest batch), "batch" (its number compares), "added" (its date compares with
    ``value``), "updated" (a newer version arrived).
    """

    __slots__ = ("kind", "value", "compare", "negated", "detail")

    def __init__(self, kind: str, value: str = "", compare: Comparison | None = None, negated: bool = False,
                 detail: str = ""):
        self.kind, self.value, self.compare, self.negated, self.detail = kind, value, compare, negated, detail

    def __repr__(self) -> str:
        return f"Filter({self.kind!r}, {self.value!r}, {self.compare!r}, negated={self.negated}, detail={self.detail!r})"


class Query:
    """A parsed query: the words to rank by, the filters (one list, each negatable, in the order
    typed), and the orderings. (A plain class, not a dataclass: importing dataclasses costs a
    one-shot ``papersift search`` ~5 ms, a tenth of its budget.)"""

    def __init__(self, similar: str | None = None, recommend: str | None = None, trailing_space: bool = False):
        self.words: list[str] = []        # search terms: words, and compounds with their parts joined by "-"
        self.either: list[list[str]] = []  # words joined by OR: a paper holding one of a group's holds it
        self.refused = False  # an OR joined nothing usable (store.search.either): such a query lists no paper
        self.unapplied = False  # a filter's value is wrong (star:>=a), the cursor off it: such a query lists no paper
        self.typing: str | None = None    # the word the cursor is on, still being typed (its completions count)
        self.filters: list[Filter] = []
        self.kinds: set[str] = set()  # the kinds among the filters (asked on every key: no call)
        self.similar = similar
        self.recommend = recommend  # "stars" or a tag
        self.errors: list[str] = []
        self.unknown_filters: list[str] = []  # keys no filter has ("statu:"): such a query lists no paper
        self.trailing_space = trailing_space
        self.text = ""  # what it was parsed from (set by parse_query)

    def __repr__(self) -> str:
        return f"Query({', '.join(f'{k}={v!r}' for k, v in vars(self).items() if v)})"

    def of(self, *kinds: str) -> list[Filter]:
        """The filters of these kinds (either sign), in the order typed."""
        return [f for f in self.filters if f.kind in kinds]

    def has(self, *kinds: str) -> bool:
        return not self.kinds.isdisjoint(kinds)

    def values(self, kind: str, negated: bool = False) -> list[str]:
        """The values of the filters of a kind and sign (``tag:rl tag:cv`` -> ["rl", "cv"])."""
        return [f.value for f in self.filters if f.kind == kind and f.negated == negated]

    def comparison(self, kind: str, negated: bool = False) -> Comparison | None:
        """The comparison of a ``star:`` or ``year:`` filter of that sign (one of each sign is kept:
        the last typed)."""
        return next((f.compare for f in self.filters if f.kind == kind and f.negated == negated), None)

    def add(self, f: Filter) -> None:
        self.filters.append(f)
        self.kinds.add(f.kind)

    def drop(self, f: object) -> None:
        """Take a filter out again (a phrase that turned out to be an OR's alternative)."""
        self.filters = [g for g in self.filters if g is not f]
        self.kinds = {g.kind for g in self.filters}

    @property
    def has_filters(self) -> bool:
        return bool(self.filters)

    @property
    def has_annotation_filters(self) -> bool:
        """Whether a status:, star: or tag: filter (or its negation) is given."""
        return self.has("status", "star", "tag")

    def mark_test(self) -> Callable[[str, int, list[str]], bool]:
        """Whether a paper's status, stars and tags pass the status:, star: and tag: filters (one
        status of those named, the star comparisons, every tag named and none left out). Read from
        the filters once: it is asked of every annotated paper."""
        statuses, not_statuses = set(self.values("status")), set(self.values("status", negated=True))
        star, not_star = self.comparison("star"), self.comparison("star", negated=True)
        tags, not_tags = self.values("tag"), self.values("tag", negated=True)

        def passes(status: str, stars: int, have: list[str]) -> bool:
            return ((not statuses or status in statuses) and status not in not_statuses
                    and (star is None or star[0](stars, star[1])) and (not_star is None or not not_star[0](stars, not_star[1]))
                    and all(t in have for t in tags) and not any(t in have for t in not_tags))
        return passes


def _comparison(value: str) -> Comparison | None:
    """``>=2``, ``3``, ``<1`` as (operator, number); None when it is not one."""
    m = re.fullmatch(r"(>=|<=|>|<|=)?(\d+)", value)
    return (_OPS[m.group(1) or ""], int(m.group(2))) if m else None


def _team(q: Query, key: str, value: str, negated: bool) -> None:
    """by:NAME, star-by:NAME:>=2 (star-by:NAME is >=1), status-by:NAME:to-read, tag-by:NAME:rl
    (tag-by:NAME: any tag), note-by:NAME:word (note-by:NAME: any note), team-star:>=3, split:,
    assigned:NAME (assigned: alone is anyone; -assigned: is nobody)."""
    if key in ("status-by", "tag-by", "note-by"):
        _member_mark(q, key, value, negated)
    elif key == "split":
        q.add(Filter("split", negated=negated))
    elif key == "assigned":
        q.add(Filter("assigned", value, negated=negated))
    elif key == "team-star":
        if (stars := _comparison(value)) is None:
            q.errors.append(f"bad team-star filter {value!r} (the team's stars summed, e.g. team-star:>=3)")
        else:
            q.add(Filter("team-star", compare=stars, negated=negated))
    elif key == "by":
        q.add(Filter("by", value, negated=negated))
    else:  # star-by
        member, sep, compared = value.partition(":")
        stars = _comparison(compared) if sep else (operator.ge, 1)
        if stars is None or not member:
            q.errors.append(f"bad star-by filter {value!r} (a member and their stars, e.g. star-by:ana:>=2)")
        else:
            q.add(Filter("star-by", member, stars, negated))


def _member_mark(q: Query, key: str, value: str, negated: bool) -> None:
    """status-by:NAME[:STATUS] (a status's start will do: status-by:ana:to; none: any status but
    unread), tag-by:NAME[:TAG] (none: any tag), note-by:NAME[:WORD] (none: any note)."""
    member, _, detail = value.partition(":")
    if key == "status-by" and detail:
        hits = [s for s in STATUSES if s.startswith(detail.lower())]
        if not member or not hits:
            q.errors.append(f"bad status-by filter {value!r} (a member and a status, e.g. status-by:ana:to-read; "
                            f"statuses: {', '.join(STATUSES)})")
            return
        detail = hits[0]
    if not member:
        q.errors.append(f"bad {key} filter {value!r} (a member, e.g. {key}:ana, "
                        + {"status-by": "status-by:ana:to-read)", "tag-by": "tag-by:ana:rl)"}.get(key, "note-by:ana:baseline)"))
        return
    q.add(Filter(key, member, negated=negated, detail=detail.lower() if key == "tag-by" else detail.casefold()))


def _arrival(q: Query, key: str, value: str, negated: bool) -> None:
    """new:, updated:, batch:3 (batch:>=3), added:>=2026-12-01 (added:2026-12 a month)."""
    if key in ("new", "updated"):
        if value:
            q.errors.append(f"{key}: takes no value ({key}: alone; batch:N names an import)")
        else:
            q.add(Filter(key, negated=negated))
    elif key == "batch":
        if (number := _comparison(value)) is None:
            q.errors.append(f"bad batch filter {value!r} (an import's number, e.g. batch:3, batch:>=2)")
        else:
            q.add(Filter("batch", compare=number, negated=negated))
    else:
        m = re.fullmatch(r"(>=|<=|>|<|=)?(\d{4}(?:-\d{2}(?:-\d{2})?)?)", value)
        if m is None:
            if not re.fullmatch(r"(>=|<=|>|<|=)?[\d-]{0,9}", value):  # (else: a date still being typed)
                q.errors.append(f"bad added filter {value!r} (a date: added:2026-12-01, added:>=2026-12)")
        elif not _a_date(m.group(2)):
            q.errors.append(f"bad added filter {value!r}: no such date (added:2026-12-01, added:>=2026-12)")
        else:
            q.add(Filter("added", m.group(2), (_OPS[m.group(1) or ""], 0), negated))


def _a_date(text: str) -> bool:
    """Whether 2026, 2026-12 or 2026-12-01 names a day that is (2026-13 and 2026-02-30 do not)."""
    try:
        return bool(datetime.date.fromisoformat((text + "-01-01")[:10]))
    except ValueError:
        return False


TEAM_KINDS = ("by", "star-by", "status-by", "tag-by", "note-by", "team-star", "split", "assigned")  # a lab's marks
ARRIVAL_KINDS = ("new", "batch", "added", "updated")  # when papers arrived
_NEEDS_VALUE = ("by", "star-by", "status-by", "tag-by", "note-by", "team-star")  # (split: and assigned: mean something bare)


# A list filter's key -> the kind of filter it adds and how its value is read. Every other filter
# has its own reader below.
_LISTS = {"tag": ("tag", str.lower), "author": ("author", fold_name),
          "id": ("id", str.lower), "venue": ("venue", str.casefold),
          "kw": ("kw", fold_name), "keyword": ("kw", fold_name),
          "keywords": ("kw", fold_name), "file": ("file", str.casefold)}


def _status(q: Query, value: str, negated: bool) -> None:
    hits = [s for s in STATUSES if s.startswith(value.lower())]
    if hits:
        q.add(Filter("status", hits[0], negated=negated))
    else:
        q.errors.append(f"unknown status {value!r} (use {', '.join(STATUSES)})")


def _year(q: Query, value: str, negated: bool) -> None:
    m = re.fullmatch(r"(>=|<=|>|<|=)?(\d*)", value)
    if m and len(m.group(2)) == 4:
        _one_of_a_sign(q, Filter("year", compare=(_OPS[m.group(1) or ""], int(m.group(2))), negated=negated))
    elif not m or len(m.group(2)) > 4:
        q.errors.append(f"bad year filter {value!r} (e.g. year:2024, year:>=2023)")
    # else: fewer than four digits, still being typed


def _star(q: Query, value: str, negated: bool) -> None:
    m = re.fullmatch(r"(>=|<=|>|<|=)?(\d)", value)
    if not m:
        q.errors.append(f"bad star filter {value!r} (e.g. star:>=2)")
        return
    _one_of_a_sign(q, Filter("star", compare=(_OPS[m.group(1) or ""], int(m.group(2))), negated=negated))
    if int(m.group(2)) > MAX_STAR:  # applied as written, but likely a slip
        q.errors.append(f"star filter {value!r}: stars go 0-{MAX_STAR}")


def _one_of_a_sign(q: Query, f: Filter) -> None:
    """A star: or year: filter: it takes the place of an earlier one of its sign (the last typed counts)."""
    q.filters = [g for g in q.filters if not (g.kind == f.kind and g.negated == f.negated)]
    q.add(f)


def _topic(q: Query, value: str, negated: bool) -> None:
    if value.isdigit():
        q.add(Filter("topic", str(int(value)), negated=negated))
    else:
        q.errors.append(f"bad topic filter {value!r} (a topic number)")


_READERS = {"status": _status, "is": _status, "year": _year, "star": _star, "stars": _star, "topic": _topic}


def _unknown_filter(key: str) -> str:
    """What is said of a filter no one knows: the nearest known one first, then them all."""
    import difflib
    everyone = {*_LISTS, *_READERS, *TEAM_KINDS, *ARRIVAL_KINDS, "similar", "rec"}
    known = sorted(everyone - {"keyword", "keywords", "stars", "is"})
    near = difflib.get_close_matches(key, sorted(everyone), n=1, cutoff=0.6)
    guess = f": did you mean {near[0]}:?" if near else ""
    return (f"unknown filter {key + ':'!r}{guess} (filters: {', '.join(k + ':' for k in known)}; "
            f"a word with a colon: put it in quotes)")


def parse_query(text: str, cursor: int | None = None) -> Query:
    """Split a query string into words, phrases and filters.

    A filter value that is wrong is reported in ``errors``; while the cursor is on it (still being
    typed: ``star:>``) it is passed over, so a half-typed filter never empties the list, and
    otherwise (``unapplied``) the search lists no paper rather than every one, as it does for an
    unknown filter (``statu:read``, kept in ``unknown_filters``).

    Args:
        cursor: where the cursor stands in the search box, while it is typed in: the word it is on
            (or just after) is still being typed, and its completions count (``Query.typing``).
            None (the command line, a search that is done): every word is a whole word.
    """
    q = Query(trailing_space=text.endswith(" "))
    q.text = text
    joiner = Joiner(q) if "OR" in text else _NO_OR  # (most queries hold none: no bookkeeping for them)
    for m in _TOKEN.finditer(text):
        typed_here = cursor is not None and m.start() < cursor <= m.end()  # (the word being typed)
        if m.group(2) is not None:
            phrase = m.group(2).strip()
            f = Filter("phrase", phrase, negated=bool(m.group(1)))
            if not phrase:
                joiner.other(OR_BETWEEN_WORDS)
            elif not joiner.joins_phrase(f):
                q.add(f)
            continue
        tok, said, held = m.group(3), len(q.errors), len(q.filters)
        if tok == "OR" and not typed_here:
            joiner.operator(m.span())
            continue
        if _PAPER_ID.fullmatch(tok):
            q.add(Filter("id", tok.lower()))
        elif _took_filter(q, tok):
            # Said wrong and not applied (a warning beside an applied filter, star:<9, is not), the
            # cursor off it: a value still being typed is passed over.
            q.unapplied |= len(q.errors) > said and len(q.filters) == held and not typed_here
            if typed_here and q.recommend and "stars".startswith(q.recommend):
                q.recommend = "stars"  # rec:sta, on its way to rec:stars: not a tag "sta" no paper has
        elif tok.startswith("-") and len(tok) > 1 and ":" not in tok and search_tokens(tok):
            q.add(Filter("phrase", tok[1:], negated=True))  # -word: as -"word"
        elif terms := query_terms(tok):
            q.words.extend(terms)
            if typed_here:
                q.typing = terms[-1] if not math_words(tok) else None
            joiner.words(terms)
            continue
        joiner.other()
    joiner.end(done=cursor is None)
    return q


class _NoOr:
    """A query without "OR" in it: the tokens need no reading for OR groups (see Joiner)."""

    def words(self, terms: list[str]) -> None: ...
    def other(self, why: str | None = None) -> None: ...
    def end(self, done: bool) -> None: ...
    def operator(self, at: tuple[int, int]) -> None: ...

    def joins_phrase(self, f: Filter) -> bool:
        return False


_NO_OR = _NoOr()


def valueless_filters(text: str) -> list[str]:
    """The filters of ``text`` typed with no value that need one (``tag:``, ``star-by:``): nothing
    while typed in the app (still being typed), a slip in a query that is done, such as a command
    line's (``tag: rl`` for ``tag:rl``)."""
    needs = {*_NEEDS_VALUE, *_LISTS, *_READERS, "batch", "added", "similar"}
    found = []
    for m in _TOKEN.finditer(text):
        tok = m.group(3)
        if tok and tok.endswith(":") and tok.lstrip("-")[:-1].lower() in needs:
            found.append(tok.lstrip("-").lower())
    return found


def _took_filter(q: Query, tok: str) -> bool:
    """Read ``tok`` into ``q`` if it is a filter (``key:value``, ``-key:value``): a known one, one
    still being typed (no value yet: nothing asked), or one no one knows (said, and kept in
    ``unknown_filters``). False for anything else: words, a pasted address, a ratio."""
    negated = tok.startswith("-") and len(tok) > 1
    key, sep, value = (tok[1:] if negated else tok).partition(":")
    if not sep:
        return False
    key = key.lower()
    if value.startswith('"'):  # kw:"federated learning"
        value = " ".join(value.strip('"').split())
    if key in ("similar", "rec"):
        _ordering(q, key, value, negated)
    elif key in TEAM_KINDS:
        if value or key not in _NEEDS_VALUE:
            _team(q, key, value, negated)
    elif key in ARRIVAL_KINDS:
        if value or key in ("new", "updated"):
            _arrival(q, key, value, negated)
    elif key in _LISTS:
        if value:  # (else still being typed)
            kind, read = _LISTS[key]
            q.add(Filter(kind, read(value), negated=negated))
    elif key in _READERS:
        if value:
            _READERS[key](q, value, negated)
    elif key.isalpha() and key.isascii() and not value.startswith("/"):  # (not a pasted URL)
        q.unknown_filters.append(key)
        q.errors.append(_unknown_filter(key))
    else:
        return False
    return True


def _ordering(q: Query, key: str, value: str, negated: bool) -> None:
    """similar:ID and rec:[stars|...]: they order the list rather than filter it."""
    if negated:
        q.errors.append(f"{key}: orders the list and cannot be negated; to leave a paper out, use -id:ID")
    elif key == "similar" and value:
        q.similar = value.lower()
    elif key == "rec":
        q.recommend = (value or "stars").lower()
