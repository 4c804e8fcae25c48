"""`papersift fetch arxiv` against a hostile local server (a thread on 127.0.0.1, never the
network), as an attacker would serve it: an endless body, a gzip bomb, a server that drips, a
Retry-After of days, redirects off the API's host, to ``file://`` or in a loop, an HTML login page,
links that are not web addresses; and a library folder that holds a file where ``fetched/`` goes,
or forged batch numbers. Every failure is one line naming what it is about, exits non-zero, shows
no traceback and leaves the library byte-identical."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import threading
import time
import zlib
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable

import pytest

from ..conftest import DATA

DAYS = [DATA / "arxiv_days" / f"day{n}.xml" for n in (1, 2, 3)]
EMPTY = b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"></feed>'
ATOM_TYPE = "application/atom+xml; charset=utf-8"
LIFETIME = 60.0  # seconds a hostile server serves at most: it stops by itself

pytestmark = pytest.mark.slow  # (real processes and servers: over 0.8 s each)

Answer = Callable[["Handler", int], None]


class Handler(BaseHTTPRequestHandler):
    """Answers with the script of its server: ``answer(handler, request number)``."""

    server: Server

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        hostile = self.server.hostile
        n = len(hostile.requests)
        hostile.requests.append(self.path)
        hostile.hosts.append(self.headers.get("Host", ""))
        try:
            hostile.answer(self, n)
        except (BrokenPipeError, ConnectionResetError):
            hostile.hung_up.set()  # the client went away mid-answer

    def log_message(self, *args: object) -> None:
        pass

    def head(self, status: int, headers: dict[str, str]) -> None:
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()

    def whole(self, status: int, body: bytes, content_type: str = ATOM_TYPE, **headers: str) -> None:
        self.head(status, {"Content-Type": content_type, "Content-Length": str(len(body)), **headers})
        self.wfile.write(body)

    def stream(self, chunks, pause: float = 0.0) -> None:
        """Write chunks until they end, the client hangs up, or the server's life is over."""
        for chunk in chunks:
            if time.monotonic() > self.server.hostile.ends:
                return
            self.wfile.write(chunk)
            self.wfile.flush()
            self.server.hostile.sent += len(chunk)
            if pause:
                time.sleep(pause)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    hostile: Hostile


class Hostile:
    """A local server answering every GET with ``answer``; it serves for ``LIFETIME`` seconds at
    most, then closes by itself (``close`` ends it sooner)."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests: list[str] = []
        self.hosts: list[str] = []
        self.sent = 0
        self.hung_up = threading.Event()
        self.ends = time.monotonic() + LIFETIME
        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.hostile = self
        self.server.timeout = 0.1
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.origin}/api/query"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set() and time.monotonic() < self.ends:
            self.server.handle_request()
        self.server.server_close()

    def close(self) -> None:
        self._stop.set()
        self.ends = 0.0
        self._thread.join(timeout=5)


@pytest.fixture
def hostile():
    servers: list[Hostile] = []

    def make(answer: Answer) -> Hostile:
        servers.append(Hostile(answer))
        return servers[-1]
    yield make
    for s in servers:
        s.close()


def snapshot(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder``, with a hash of each file's bytes."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(folder.rglob("*"))}


@pytest.fixture
def library(run_cli, tmp_path) -> Path:
    """A library of day one's twelve papers (batch 1)."""
    lib = tmp_path / "lib"
    run_cli("import", str(DAYS[0]), library=lib)
    return lib


def fetch(run_cli, lib: Path, url: str, *extra: str):
    return run_cli("fetch", "arxiv", "cs.LG", "--since", "2024-11-01", "--api", url, "--delay", "0", *extra,
                   library=lib, check=False)


def refused(proc, *words: str) -> str:
    """The one line of a refusal, checked: exit 1, no traceback, each of ``words`` named. (Lines
    before it may say a wait: "...; waiting 1 s, then trying again".)"""
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines[-1].startswith("error:") and all(" waiting " in line for line in lines[:-1]), proc.stderr
    for word in words:
        assert word in lines[-1], (word, lines[-1])
    return lines[-1]


def test_an_endless_body_is_cut_at_the_cap(run_cli, hostile, library):
    # 96 MiB of a feed that never closes, no length given: read to the cap, then refused at once.
    def endless(h: Handler, n: int) -> None:
        h.head(200, {"Content-Type": ATOM_TYPE})
        h.stream([b'<feed xmlns="http://www.w3.org/2005/Atom">'] + [b" " * (1 << 20)] * 96)
    server = hostile(endless)
    before = snapshot(library)
    line = refused(fetch(run_cli, library, server.url), "nothing was imported")
    assert re.search(r"over \d+ MB", line), line
    assert len(server.requests) == 1 and server.sent < 64 << 20  # it hung up early, and asked no more
    assert snapshot(library) == before


@lru_cache(maxsize=1)
def bomb() -> bytes:
    """256 MiB of spaces in a feed, gzipped to ~260 KB."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    return z.compress(b'<feed xmlns="http://www.w3.org/2005/Atom">') + b"".join(
        z.compress(b" " * (1 << 20)) for _ in range(256)) + z.flush()


def test_a_gzip_bomb_is_cut_at_the_cap(run_cli, hostile, library):
    server = hostile(lambda h, n: h.whole(200, bomb(), **{"Content-Encoding": "gzip"}))
    before = snapshot(library)
    line = refused(fetch(run_cli, library, server.url), "nothing was imported")
    assert re.search(r"over \d+ MB", line), line
    assert len(server.requests) == 1 and snapshot(library) == before


def test_a_dripping_server_meets_the_request_and_fetch_deadlines(run_cli, hostile, library):
    # A byte every half second of a feed that claims 100 kB: each request ends at its deadline
    # (1 s here), and the whole fetch at its own (4 s), however the server goes on.
    def drip(h: Handler, n: int) -> None:
        h.head(200, {"Content-Type": ATOM_TYPE, "Content-Length": "100000"})
        h.stream((b"<" if i == 0 else b" " for i in range(200)), pause=0.5)
    server = hostile(drip)
    before = snapshot(library)
    start = time.monotonic()
    proc = fetch(run_cli, library, server.url, "--request-deadline", "1", "--fetch-deadline", "4")
    took = time.monotonic() - start
    line = refused(proc, "4 s", "nothing was imported")
    assert "over 1 s" in line or "over 1 s" in proc.stderr, line
    assert took < 12, took  # 4 s, a read's pause, and the process's start
    assert 1 <= len(server.requests) <= 4 and snapshot(library) == before


def _run_until(run_cli, lib: Path, url: str, pattern: str, within: float = 20.0) -> tuple[str, int | None]:
    """Start a fetch as a user would, read its stderr until a line matches ``pattern`` (or
    ``within`` seconds pass), then stop it: (what it said, its exit code if it ended by itself)."""
    env = {**os.environ, "PAPERSIFT_LIBRARY": str(lib), "COLUMNS": "160", "NO_COLOR": "1"}
    cmd = run_cli.cmd + ["fetch", "arxiv", "cs.LG", "--since", "2024-11-01", "--api", url, "--delay", "0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    said: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:  # (ends when the process does)
            said.append(line)
            if re.search(pattern, line):
                found.set()
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    found.wait(within)
    code = proc.poll()
    if code is None:
        proc.kill()
    proc.wait(timeout=10)
    reader.join(timeout=5)
    return "".join(said), code


@pytest.mark.parametrize("after", ["999999", "Wed, 21 Oct 2099 07:28:00 GMT", "Sun, 06 Nov 2099 08:49:37 -0000",
                                   "9" * 400])
def test_a_long_retry_after_is_said_and_capped(run_cli, hostile, library, after):
    server = hostile(lambda h, n: h.whole(503, b"busy", "text/plain", **{"Retry-After": after}))
    before = snapshot(library)
    said, _ = _run_until(run_cli, library, server.url, r"waiting \d+ s")
    assert re.search(r"arXiv asked to wait (over )?[\d,]+ s; waiting 120 s", said), said
    assert "Traceback" not in said and len(server.requests) == 1 and snapshot(library) == before


@pytest.mark.parametrize("after", ["soon", "-5", "1e9", "nan", "", "Sun, 06 Nov 1994 08:49:37 GMT"])
def test_a_garbage_retry_after_waits_the_backoff_and_says_so(run_cli, hostile, library, after):
    def busy_then_empty(h: Handler, n: int) -> None:
        if n == 0:
            h.whole(503, b"busy", "text/plain", **{"Retry-After": after})
        else:
            h.whole(200, EMPTY)
    server = hostile(busy_then_empty)
    start = time.monotonic()
    proc = fetch(run_cli, library, server.url)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert re.search(r"waiting \d s", proc.stderr), proc.stderr  # the backoff (or a past date: 0 s), said
    assert time.monotonic() - start < 20 and len(server.requests) == 2


def test_a_redirect_to_another_port_or_host_is_refused(run_cli, hostile, library):
    elsewhere = hostile(lambda h, n: h.whole(200, DAYS[1].read_bytes()))
    server = hostile(lambda h, n: h.whole(302, b"", "text/plain", Location=f"{elsewhere.url}?x=1"))
    before = snapshot(library)
    refused(fetch(run_cli, library, server.url), f"127.0.0.1:{elsewhere.port}", "nothing was imported")
    assert elsewhere.requests == [] and snapshot(library) == before
    # the same server under another name is another host
    other = hostile(lambda h, n: h.whole(302, b"", "text/plain", Location=f"http://localhost:{elsewhere.port}/"))
    refused(fetch(run_cli, library, other.url), f"localhost:{elsewhere.port}")
    assert elsewhere.requests == [] and snapshot(library) == before


@pytest.mark.parametrize("where", ["file:///etc/passwd", "ftp://127.0.0.1/feed.xml", "javascript:alert(1)",
                                   "http://[::1", "https://127.0.0.1:1/x"])
def test_a_redirect_off_http_is_refused_in_one_line(run_cli, hostile, library, where):
    server = hostile(lambda h, n: h.whole(302, b"", "text/plain", Location=where))
    before = snapshot(library)
    line = refused(fetch(run_cli, library, server.url), "redirect", "nothing was imported")
    assert where[:12] in line and len(server.requests) == 1 and snapshot(library) == before


def test_a_redirect_loop_ends_in_one_line(run_cli, hostile, library):
    server = hostile(lambda h, n: h.whole(302, b"", "text/plain", Location=f"/api/query?n={n}"))
    before = snapshot(library)
    refused(fetch(run_cli, library, server.url), "redirect", "nothing was imported")
    assert 2 <= len(server.requests) <= 11 and snapshot(library) == before


def test_a_redirect_on_the_apis_own_host_is_followed(run_cli, hostile, tmp_path):
    def moved(h: Handler, n: int) -> None:
        if h.path.startswith("/api/query"):
            h.whole(301, b"", "text/plain", Location="/v2/query" + h.path[len("/api/query"):])
        else:
            h.whole(200, DAYS[0].read_bytes())
    server = hostile(moved)
    proc = fetch(run_cli, tmp_path / "lib", server.url, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["new"] == 12 and server.requests[1].startswith("/v2/query?")


LOGIN = b"<html><head><title>Sign in</title></head><body><form>user <input name='u'/></form></body></html>"


@pytest.mark.parametrize("content_type,body", [
    ("text/html; charset=utf-8", LOGIN),
    ("text/html", b"<!DOCTYPE html><html><body>Sign in<br><input name=u></body></html>"),
    ("application/json", b'{"error": "rate limited"}'),
    ("application/xml", b'<?xml version="1.0"?><rss version="2.0"><channel/></rss>'),
])
def test_a_page_that_is_not_a_feed_is_not_nothing_new(run_cli, hostile, library, content_type, body):
    server = hostile(lambda h, n: h.whole(200, body, content_type))
    before = snapshot(library)
    refused(fetch(run_cli, library, server.url), "not an Atom feed", content_type.split(";")[0],
            "nothing was imported")
    assert len(server.requests) == 1 and snapshot(library) == before
    empty = hostile(lambda h, n: h.whole(200, EMPTY))  # an empty feed is still "nothing new"
    proc = fetch(run_cli, library, empty.url)
    assert proc.returncode == 0 and "nothing new" in proc.stdout and snapshot(library) == before


def test_an_entry_nested_thousands_deep_is_refused_in_one_line(run_cli, hostile, library):
    deep = DAYS[1].read_bytes().replace(b"</entry>", b"<x>" + b"<a>" * 5000 + b"</a>" * 5000 + b"</x></entry>", 1)
    server = hostile(lambda h, n: h.whole(200, deep))
    before = snapshot(library)
    refused(fetch(run_cli, library, server.url), "too deep", "nothing was imported")
    assert snapshot(library) == before


BAD_LINKS = ["javascript:alert(document.cookie)", "file:///etc/passwd", "data:text/html,&lt;script&gt;x&lt;/script&gt;",
             " JavaScript:alert(1)", "vbscript:msgbox", "//evil.example/x"]


def test_links_that_are_not_web_addresses_are_neither_kept_nor_exported(run_cli, hostile, library, tmp_path):
    feed = DAYS[1].read_text()
    for i, bad in enumerate(BAD_LINKS):
        feed = feed.replace(f'href="http://arxiv.org/abs/2412.{10012 + i}v1"', f'href="{bad}"', 1)
    assert feed.count('href="') - feed.count('href="http') == len(BAD_LINKS)
    server = hostile(lambda h, n: h.whole(200, feed.encode()))
    proc = fetch(run_cli, library, server.url)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    for fmt in ("bibtex", "ris", "json"):
        out = run_cli("export", "--format", fmt, library=library).stdout
        low = out.lower()
        for bad in ("javascript:", "file:///", "data:text", "vbscript:", "//evil.example"):
            assert bad not in low, (fmt, bad)
        assert "https://arxiv.org/abs/2412.10003v2" in out  # a web link is kept


def test_an_export_writes_no_link_that_is_not_a_web_address(run_cli, library):
    # A library folder from a colleague, its corpus written by hand: the exports still hold no such link.
    corpus = library / "corpus.jsonl"
    text = corpus.read_text()
    assert text.count('"url":"https://arxiv.org/abs/2412.10000v1"') == 1
    corpus.write_text(text.replace('"url":"https://arxiv.org/abs/2412.10000v1"', '"url":"javascript:alert(1)"')
                      .replace('"url":"https://arxiv.org/abs/2412.10001v1"', '"url":"file:///etc/passwd"'))
    for fmt in ("bibtex", "ris"):
        out = run_cli("export", "--format", fmt, library=library).stdout.lower()
        assert "javascript:" not in out and "file:///" not in out
        assert "https://arxiv.org/abs/2412.10002v1" in out


@pytest.mark.parametrize("kind", ["file", "link"])
def test_a_file_where_the_fetched_folder_goes_is_named_in_one_line(run_cli, hostile, library, tmp_path, kind):
    server = hostile(lambda h, n: h.whole(200, DAYS[1].read_bytes()))
    target = library / "fetched"
    if kind == "file":
        target.write_text("not a folder\n")
    else:
        (tmp_path / "elsewhere").mkdir()
        target.symlink_to(tmp_path / "elsewhere")
    before = snapshot(library)
    # (a link: refused as every link in a library folder is, when the library opens)
    refused(fetch(run_cli, library, server.url), str(target), *(["nothing was imported"] if kind == "file" else []))
    assert snapshot(library) == before
    if kind == "link":
        assert list((tmp_path / "elsewhere").iterdir()) == []
    assert server.requests == []  # found before asking arXiv anything


def forge_batches(lib: Path, forged: list[object]) -> None:
    corpus = lib / "corpus.jsonl"
    header, rest = corpus.read_bytes().split(b"\n", 1)
    head = json.loads(header)
    head["batches"] += forged
    corpus.write_bytes(json.dumps(head, separators=(",", ":")).encode() + b"\n" + rest)


@pytest.mark.parametrize("forged,number", [
    ([{"n": 10**30, "new": 5}], 2), ([{"n": True, "new": 3}], 2), ([{"n": -7, "new": 2}], 2),
    ([{"n": "9", "new": 1}], 2), ([{"n": 2**63, "new": "x", "revised": [1]}, {"n": 0, "new": 1}, "x", None], 2),
    ([{"n": 1.5, "new": 1}, {"n": 1e300, "new": 1}], 2),
    ([{"n": 1, "new": True}], 2),  # the same number twice: the one kept first counts
    ([{"n": 4, "new": -3, "revised": "many", "time": 5, "files": "x"}], 5),  # a sane number, its fields cleaned
])
def test_forged_batch_numbers_are_passed_over(run_cli, library, forged, number):
    forge_batches(library, forged)
    listed = json.loads(run_cli("list", "--query", "new:", "--format", "json", library=library).stdout)
    assert len(listed) == 12  # batch 1: what the forged records cannot be
    out = json.loads(run_cli("import", str(DAYS[1]), "--format", "json", library=library).stdout)
    assert out["batch"] == number and out["new"] == 12
    for query, count in (("new:", 12), (f"batch:{number}", 12), ("batch:1", 12), ("batch:>=1", 24),
                         (f"batch:>{number}", 0), ("batch:>=99999999999999999999999", 0)):
        proc = run_cli("list", "--query", query, "--format", "json", library=library, check=False)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, (query, proc.stderr)
        assert len(json.loads(proc.stdout)) == count, query
