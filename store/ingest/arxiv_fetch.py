"""``papersift fetch arxiv cs.LG cs.RO``: the newest papers of some arXiv categories, from the
arXiv API, saved as one Atom file in the library's ``fetched/`` folder and imported from there.

The API's documented use (its user manual and terms): the query endpoint with
``search_query=cat:cs.LG OR cat:cs.RO``, newest submissions first, pages of at most
``PAGE`` results; no more than one request every three seconds; a User-Agent that says who is
asking. A 503 (or a 429, or another 5xx, or a body cut off) is tried again after the server's
``Retry-After`` when it gives one, else after a doubling backoff, up to ``ATTEMPTS`` times; every
wait is said and none is longer than ``MAX_WAIT``. Paging stops at the first entry submitted before
``since``. Nothing is imported unless every page arrived: a fetch that fails changes nothing, and
says why in one line.

The server (``--api`` may name a mirror) is not trusted: an answer is read as a stream and refused
past ``MAX_BODY`` bytes once decompressed (papersift decodes gzip itself, a chunk at a time, so a
gzip bomb stops at the cap); a request has ``REQUEST_DEADLINE`` seconds from its first byte sent to
its last byte read (a server that drips a byte at a time meets it; one that falls silent meets the
read timeout, ``READ_TIMEOUT``), and the whole fetch ``FETCH_DEADLINE``. A redirect is followed
only on the API's own scheme, host and port, ``MAX_REDIRECTS`` at most. An answer that is not an
Atom feed (a login page, an error in JSON) is an error, never "nothing new".
"""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Callable

from store.errors import PapersiftError
from store.ingest.arxiv_names import check_categories, one_line
from store.wording import counted

if TYPE_CHECKING:
    import httpx

API = "https://export.arxiv.org/api/query"
PAGE = 200
DELAY = 3.0  # seconds between two requests (the API's terms)
ATTEMPTS = 5
MAX_WAIT = 120.0  # seconds: the longest wait between two tries, whatever Retry-After asks
MAX_BODY = 32 * 1024 * 1024  # bytes of one answer, decompressed (a page of 200 entries: ~0.6 MB)
REQUEST_DEADLINE = 90.0  # seconds one request may take, redirects and every byte of its answer
READ_TIMEOUT = 30.0  # seconds of silence within one request
CONNECT_TIMEOUT = 15.0
FETCH_DEADLINE = 15 * 60.0  # seconds the whole fetch may take: every page, try and wait
MAX_REDIRECTS = 5  # followed, each on the API's own scheme, host and port
REDIRECTS = (301, 302, 303, 307, 308)
RETRIED = (429, 500, 502, 503, 504)
USER_AGENT = "papersift/0.1 (a terminal app for triaging papers; daily arXiv import)"
ATOM = "{http://www.w3.org/2005/Atom}"


class FetchError(PapersiftError):
    """arXiv could not be reached or kept failing: nothing was imported."""


@dataclass
class Fetched:
    """What a fetch brought: the feed's text (every entry of every page), and what it noted."""

    text: str
    entries: int
    requests: int
    warnings: list[str] = field(default_factory=list)


def check_api(api: str) -> tuple[str, str, int]:
    """The API's address as (scheme, host, port): an http(s) address, else an error."""
    import httpx
    try:
        origin = _origin(httpx.URL(api))
    except (httpx.InvalidURL, ValueError):
        origin = None
    if origin is None:
        raise PapersiftError(f"--api {one_line(api)}: not an http(s) address, as {API}")
    return origin


def fetch(categories: list[str], since: datetime, api: str = API, delay: float = DELAY, limit: int = 5000,
          sleep: Callable[[float], None] = time.sleep, say: Callable[[str], None] = lambda _: None,
          note: Callable[[str], None] = lambda _: None, request_deadline: float = REQUEST_DEADLINE,
          fetch_deadline: float = FETCH_DEADLINE, clock: Callable[[], float] = time.monotonic) -> Fetched:
    """Every entry of the categories submitted since ``since`` (newest first), at most ``limit``.

    Args:
        say: progress (entries so far), for a terminal.
        note: what a user must hear however the output goes: each wait and why.

    Raises:
        FetchError: arXiv could not be reached, answered in error after every retry, answered what is
            not an Atom feed or is too large, redirected off its host, or took too long.
    """
    import httpx  # (only when fetching: an import of its own costs a one-shot search ~40 ms)

    query = " OR ".join(f"cat:{c}" for c in check_categories(categories))
    entries: list[str] = []
    warnings: list[str] = []
    session = _Session(api, check_api(api), delay, sleep, note, request_deadline,
                       clock() + fetch_deadline, fetch_deadline, clock)
    # Redirects are checked as each answer arrives (before httpx reads their Location) and followed
    # by hand (_Session.get); encodings are decoded by hand (_Body).
    with httpx.Client(headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip"}, follow_redirects=False,
                      event_hooks={"response": [session.checked_redirect]}) as client:
        session.client = client
        start = 0
        while start < limit:
            params = {"search_query": query, "sortBy": "submittedDate", "sortOrder": "descending",
                      "start": str(start), "max_results": str(min(PAGE, limit - start))}
            if session.requests:
                session.wait(delay, "")
            root = session.page(params)
            page = root.findall(f"{ATOM}entry")
            older = False
            for entry in page:
                published = _published(entry)
                if published is not None and published < since:
                    older = True
                    break
                try:
                    entries.append(ET.tostring(entry, encoding="unicode"))
                except RecursionError:  # (ElementTree writes recursively; it reads without)
                    raise FetchError("an entry of arXiv's answer nests elements too deep to write: not kept; "
                                     "nothing was imported") from None
            say(f"{counted(len(entries), 'entry', 'entries')} so far")
            if older or len(page) < int(params["max_results"]):
                break
            start += len(page)
    text = ('<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
            f"<title>arXiv: {query} since {since:%Y-%m-%d}</title>\n" + "\n".join(entries) + "\n</feed>\n")
    return Fetched(text, len(entries), session.requests, warnings)


def _published(entry: ET.Element) -> datetime | None:
    el = entry.find(f"{ATOM}published")
    try:
        return datetime.fromisoformat((el.text or "").strip().replace("Z", "+00:00")) if el is not None else None
    except ValueError:
        return None


_REDIRECT = "papersift.redirect"  # (a redirect answer's extension: where it leads, checked)


class _Late(Exception):
    """A request ran past its deadline (tried again, as an answer cut off)."""


class _Session:
    """One fetch's requests: the API's origin, the deadlines, the waits (each said)."""

    def __init__(self, api: str, origin: tuple[str, str, int], delay: float, sleep: Callable[[float], None],
                 note: Callable[[str], None], request_deadline: float, ends: float, fetch_deadline: float,
                 clock: Callable[[], float]) -> None:
        self.api, self.origin, self.delay, self.sleep, self.note = api, origin, delay, sleep, note
        self.request_deadline, self.ends, self.fetch_deadline, self.clock = request_deadline, ends, fetch_deadline, clock
        self.client: httpx.Client | None = None
        self.requests = 0

    def page(self, params: dict[str, str]) -> ET.Element:
        """One page of the feed, parsed; retried as the module says."""
        import httpx

        backoff = max(self.delay, 1.0)
        problem = ""
        for attempt in range(1, ATTEMPTS + 1):
            asked: str | None = None
            try:
                status, reason, headers, body = self.get(params)
                if status == 200:
                    return _feed(body, headers.get("Content-Type", ""))
                problem = f"HTTP {status}"
                if status not in RETRIED:
                    raise FetchError(f"arXiv answered {problem} ({one_line(reason, 40)}); nothing was imported")
                asked = headers.get("Retry-After")
            except httpx.ConnectError as exc:
                raise FetchError(f"cannot reach arXiv at {self.origin[1]} ({_reason(exc)}): no network? "
                                 "nothing was imported") from None
            except httpx.HTTPError as exc:  # read timeouts, a connection cut, a bad chunk: tried again
                problem = f"the answer was cut off ({_reason(exc)})"
            except _Late:
                problem = f"the answer took over {self.request_deadline:.0f} s"
            except ET.ParseError as exc:
                problem = f"the answer is not whole XML ({one_line(str(exc), 60)})"
            except zlib.error as exc:
                problem = f"the answer's gzip is broken ({one_line(str(exc), 60)})"
            if attempt == ATTEMPTS:
                break
            self.wait(backoff, problem, asked, attempt + 1)
            backoff *= 2
        raise FetchError(f"arXiv kept failing ({problem}, {ATTEMPTS} tries); nothing was imported: try again later")

    def wait(self, backoff: float, problem: str, asked: str | None = None, attempt: int = 0) -> None:
        """Sleep before the next request: the server's Retry-After or ``backoff``, at least the
        API's delay, at most MAX_WAIT; said (for a retry), and never past the fetch's deadline."""
        after = _retry_after(asked)
        pause = min(max(after if after is not None else backoff, self.delay), MAX_WAIT)
        if pause > self.ends - self.clock():
            raise FetchError(f"arXiv took too long: the fetch's {self.fetch_deadline:.0f} s are up"
                             + (f" ({problem})" if problem else "") + "; nothing was imported: try again later")
        if problem:
            then = f"then trying again ({attempt} of {ATTEMPTS})"
            if after is not None:
                capped = " (the longest papersift waits)" if after > MAX_WAIT else ""
                self.note(f"{problem}: arXiv asked to wait {_seconds(after)}; waiting {pause:.0f} s{capped}, {then}")
            elif asked and asked.strip():
                self.note(f"{problem}: arXiv's Retry-After {one_line(asked, 40)!r} is not a number of seconds or a "
                          f"date; waiting {pause:.0f} s, {then}")
            else:
                self.note(f"{problem}; waiting {pause:.0f} s, {then}")
        self.sleep(pause)

    def get(self, params: dict[str, str]) -> tuple[int, str, httpx.Headers, bytes]:
        """One request (and the redirects it leads to, each checked), its answer read whole within the
        caps: (status, reason, headers, decoded body)."""
        import httpx

        assert self.client is not None
        until = min(self.clock() + self.request_deadline, self.ends)
        url: httpx.URL = httpx.URL(self.api)
        query: dict[str, str] | None = params
        for _ in range(MAX_REDIRECTS + 1):
            left = until - self.clock()
            if left <= 0:
                raise _Late()
            timeout = httpx.Timeout(min(READ_TIMEOUT, left), connect=min(CONNECT_TIMEOUT, left))
            self.requests += 1
            response = self.client.send(self.client.build_request("GET", url, params=query, timeout=timeout),
                                        stream=True)
            try:
                if response.status_code in REDIRECTS:
                    url, query = response.extensions[_REDIRECT], None
                    continue
                body = _Body(response.headers.get("Content-Encoding", ""))
                for chunk in response.iter_raw():
                    body.add(chunk)
                    if self.clock() > until:
                        raise _Late()
                return response.status_code, response.reason_phrase, response.headers, body.done()
            finally:
                response.close()
        raise FetchError(f"arXiv's answer redirected more than {MAX_REDIRECTS} times (a loop? last to "
                         f"{one_line(str(url))}); nothing was imported")

    def checked_redirect(self, response: httpx.Response) -> None:
        """(httpx's response hook) A redirect's target, kept in the answer when it is on the API's own
        scheme, host and port (else an error); its Location taken away, so httpx makes nothing of it."""
        if response.status_code in REDIRECTS:
            response.extensions[_REDIRECT] = self._redirect(response)
            del response.headers["Location"]

    def _redirect(self, response: httpx.Response) -> httpx.URL:
        """Where a redirect leads, when that is on the API's own scheme, host and port; else an error."""
        import httpx

        location = response.headers.get("Location", "")
        try:
            target: httpx.URL | None = response.url.join(location) if location.strip() else None
        except (httpx.InvalidURL, ValueError):
            target = None
        if target is None or _origin(target) != self.origin:
            scheme, host, port = self.origin
            raise FetchError(f"arXiv's answer redirected to {one_line(location) or 'nowhere'}, off {scheme}://{host}:{port}: "
                             "not followed; nothing was imported")
        return target


class _Body:
    """An answer's bytes, decoded as they arrive (gzip and deflate by papersift itself, a bounded
    amount a chunk, so a bomb stops at the cap) and refused past MAX_BODY."""

    def __init__(self, encoding: str) -> None:
        codings = [c.strip().lower() for c in encoding.split(",") if c.strip().lower() not in ("", "identity")]
        if codings and codings not in (["gzip"], ["x-gzip"], ["deflate"]):
            raise FetchError(f"arXiv's answer is encoded as {one_line(encoding, 40)!r}, which papersift does not read "
                             "(it asks for gzip); nothing was imported")
        self.decoder = zlib.decompressobj(32 + zlib.MAX_WBITS) if codings else None  # (gzip or zlib header)
        self.chunks: list[bytes] = []
        self.size = 0

    def add(self, data: bytes) -> None:
        if self.decoder is None:
            self._keep(data)
            return
        self._keep(self.decoder.decompress(data, MAX_BODY - self.size + 1))
        while self.decoder.unconsumed_tail:
            self._keep(self.decoder.decompress(self.decoder.unconsumed_tail, MAX_BODY - self.size + 1))

    def _keep(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > MAX_BODY:
            raise FetchError(f"arXiv's answer is over {MAX_BODY // (1024 * 1024)} MB (a page is well under 1 MB): "
                             "not read further; nothing was imported")
        self.chunks.append(data)

    def done(self) -> bytes:
        if self.decoder is not None:
            self._keep(self.decoder.flush())
        return b"".join(self.chunks)


def _feed(body: bytes, content_type: str) -> ET.Element:
    """The Atom feed an answer holds; an answer that is something else (a login page, JSON) is an
    error, not an empty feed. XML that does not parse is raised as such (tried again: cut off?)."""
    kind = one_line(content_type.split(";")[0].strip().lower(), 40) or "no content type"
    start = body.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not start.startswith(b"<"):
        raise _not_a_feed(kind, f"it starts {one_line(start[:24].decode('utf-8', 'replace'), 24)!r}")
    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        if "html" in kind or start[:14].lower().startswith((b"<!doctype html", b"<html")):
            raise _not_a_feed(kind, "HTML") from None
        raise
    if root.tag != f"{ATOM}feed":
        raise _not_a_feed(kind, f"<{one_line(root.tag.split('}')[-1], 30)}>")
    return root


def _not_a_feed(kind: str, what: str) -> FetchError:
    return FetchError(f"the server's answer is not an Atom feed ({kind}, {what}): a login page, or not the arXiv "
                      "API's address? nothing was imported")


def _origin(url: httpx.URL) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an http(s) address, the default port filled in; None for any other."""
    scheme = url.scheme.lower()
    if scheme not in ("http", "https") or not url.host:
        return None
    return scheme, url.host.lower(), url.port or (443 if scheme == "https" else 80)


def _retry_after(value: str | None) -> float | None:
    """Retry-After as seconds (a number of seconds or an HTTP date, a past one 0); None when absent
    or unreadable (a negative number, a fraction, words)."""
    value = (value or "").strip()
    if not value:
        return None
    if value.isascii() and value.isdigit():
        return float(min(int(value[:12]) if len(value) <= 12 else 10**12, 10**12))
    from email.utils import parsedate_to_datetime
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # ("-0000": a time in UTC, the RFC says, which the parser leaves naive)
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def _seconds(value: float) -> str:
    return f"{value:,.0f} s" if value < 1e9 else "over 1,000,000,000 s"


def _reason(exc: Exception) -> str:
    return one_line(str(exc), 80) or type(exc).__name__
