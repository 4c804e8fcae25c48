"""A local stand-in for the arXiv API (never the network), for the command line's and the app's
fetch tests: answers in turn from a script of (status, headers, body)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from .conftest import DATA, free_port

DAYS = [DATA / "arxiv_days" / f"day{n}.xml" for n in (1, 2, 3)]
EMPTY = b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"></feed>'


class Recorded:
    """Serves ``script`` in turn (then empty feeds), recording each request's query and agent."""

    def __init__(self, script: list[tuple[int, dict[str, str], bytes]]) -> None:
        self.script = list(script)
        self.requests: list[dict[str, list[str]]] = []
        self.agents: list[str] = []
        recorded = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                recorded.requests.append(parse_qs(urlparse(self.path).query))
                recorded.agents.append(self.headers.get("User-Agent", ""))
                status, headers, body = recorded.script.pop(0) if recorded.script else (200, {}, EMPTY)
                self.send_response(status)
                length = headers.pop("X-Claimed-Length", None)
                self.send_header("Content-Length", length or str(len(body)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api/query"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def day(n: int) -> bytes:
    """A recorded day of arXiv's feed (tests/data/arxiv_days)."""
    return DAYS[n - 1].read_bytes()
