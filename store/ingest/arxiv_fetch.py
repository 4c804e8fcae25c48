"""``papersift fetch arxiv cs.LG cs.RO``: the newest papers of some arXiv categories, from the
arXiv API, saved as one Atom file in the library's ``fetched/`` folder and imported from there.

The API's documented use (its user manual and terms): the query endpoint with
``search_query=cat:cs.LG OR cat:cs.RO``, newest submissions first, pages of at most
``PAGE`` results; no more than one request every three seconds; a User-Agent that says who is
asking. A 503 (or a 429, or another 5xx, or a body cut off) is tried again after the server's
``Retry-After`` when it gives one, else after a doubling backoff, up to ``ATTEMPTS`` times. Paging
stops at the first entry submitted before ``since``. Nothing is imported unless every page
arrived: a fetch that fails changes nothing, and says why in one line.
"""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Callable

from store.errors import PapersiftError

if TYPE_CHECKING:
    import httpx

API = "https://export.arxiv.org/api/query"
PAGE = 200
DELAY = 3.0  # seconds between two requests (the API's terms)
ATTEMPTS = 5
MAX_WAIT = 120.0  # the longest Retry-After honoured
USER_AGENT = "papersift/0.1 (a terminal app for triaging papers; daily arXiv import)"
ATOM = "{http://www.w3.org/2005/Atom}"
_CATEGORY = re.compile(r"[a-z-]+(\.[A-Za-z-]+)?")


class FetchError(PapersiftError):
    """arXiv could not be reached or kept failing: nothing was imported."""


@dataclass
class Fetched:
    """What a fetch brought: the feed's text (every entry of every page), and what it noted."""

    text: str
    entries: int
    requests: int
    warnings: list[str] = field(default_factory=list)


def check_categories(categories: list[str]) -> list[str]:
    """The categories as arXiv names them (cs.LG, stat.ML, astro-ph); a bad one is an error."""
    if not categories:
        raise PapersiftError("which categories? e.g. papersift fetch arxiv cs.LG cs.RO")
    for c in categories:
        if not _CATEGORY.fullmatch(c):
            raise PapersiftError(f"{c!r} is not an arXiv category (such as cs.LG, stat.ML, astro-ph)")
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


def fetch(categories: list[str], since: datetime, api: str = API, delay: float = DELAY, limit: int = 5000,
          sleep: Callable[[float], None] = time.sleep, say: Callable[[str], None] = lambda _: None) -> Fetched:
    """Every entry of the categories submitted since ``since`` (newest first), at most ``limit``.

    Raises:
        FetchError: arXiv could not be reached, or answered in error after every retry.
    """
    import httpx  # (only when fetching: an import of its own costs a one-shot search ~40 ms)

    query = " OR ".join(f"cat:{c}" for c in check_categories(categories))
    entries: list[str] = []
    warnings: list[str] = []
    requests = 0
    with httpx.Client(headers={"User-Agent": USER_AGENT}, timeout=httpx.Timeout(60.0, connect=15.0),
                      follow_redirects=True) as client:
        start = 0
        while start < limit:
            params = {"search_query": query, "sortBy": "submittedDate", "sortOrder": "descending",
                      "start": str(start), "max_results": str(min(PAGE, limit - start))}
            if requests:
                sleep(delay)
            root, tries = _page(client, api, params, delay, sleep, say)
            requests += tries
            page = root.findall(f"{ATOM}entry")
            older = False
            for entry in page:
                published = _published(entry)
                if published is not None and published < since:
                    older = True
                    break
                entries.append(ET.tostring(entry, encoding="unicode"))
            say(f"{len(entries):,} entries so far")
            if older or len(page) < int(params["max_results"]):
                break
            start += len(page)
    text = ('<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
            f"<title>arXiv: {query} since {since:%Y-%m-%d}</title>\n" + "\n".join(entries) + "\n</feed>\n")
    return Fetched(text, len(entries), requests, warnings)


def _published(entry: ET.Element) -> datetime | None:
    el = entry.find(f"{ATOM}published")
    try:
        return datetime.fromisoformat((el.text or "").strip().replace("Z", "+00:00")) if el is not None else None
    except ValueError:
        return None


def _page(client: httpx.Client, api: str, params: dict[str, str], delay: float, sleep: Callable[[float], None],
          say: Callable[[str], None]) -> tuple[ET.Element, int]:
    """One page of the feed, parsed, and how many requests it took; retried as the module says."""
    import httpx

    wait = max(delay, 1.0)
    problem = ""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            response = client.get(api, params=params)
            if response.status_code == 200:
                return ET.fromstring(response.text), attempt
            problem = f"HTTP {response.status_code}"
            if response.status_code not in (429, 500, 502, 503, 504):
                raise FetchError(f"arXiv answered {problem} ({response.reason_phrase}); nothing was imported")
            after = _retry_after(response.headers.get("Retry-After"))
        except httpx.ConnectError as exc:
            raise FetchError(f"cannot reach arXiv at {httpx.URL(api).host} ({_reason(exc)}): no network? "
                             "nothing was imported") from None
        except (httpx.TimeoutException, httpx.RemoteProtocolError, httpx.ReadError) as exc:
            problem, after = f"the answer was cut off ({_reason(exc)})", None
        except ET.ParseError as exc:
            problem, after = f"the answer is not whole XML ({exc})", None
        if attempt == ATTEMPTS:
            break
        pause = min(after if after is not None else wait, MAX_WAIT)
        say(f"arXiv: {problem}; trying again in {pause:.0f} s")
        sleep(pause)
        wait *= 2
    raise FetchError(f"arXiv kept failing ({problem}, {ATTEMPTS} tries); nothing was imported: try again later")


def _retry_after(value: str | None) -> float | None:
    """Retry-After as seconds (a number of seconds or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    if value.strip().isdigit():
        return float(value.strip())
    from email.utils import parsedate_to_datetime
    try:
        return max(0.0, (parsedate_to_datetime(value) - datetime.now(timezone.utc)).total_seconds())
    except (TypeError, ValueError):
        return None


def _reason(exc: Exception) -> str:
    return str(exc) or type(exc).__name__
