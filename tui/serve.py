"""``papersift serve``: the same app in a web browser, through textual-serve, locked to its user.

textual-serve runs one app process per browser tab, talking to the page over a
websocket; each process opens the same library folder, so the usual lock and
reload keep two tabs (or a tab and a terminal) from losing each other's changes.

textual-serve itself checks nothing: any web page the user visits could open
``ws://localhost:8000/ws`` and type into the app (whose dialogs read and write
files). :class:`GuardedServer` wraps it the way Jupyter guards its server:

- a fresh secret per run (or ``--token``), printed in the URL to open; a request
  without it is refused (401). The page sets it as an HttpOnly, SameSite=Strict
  cookie, which the page's own script, styles and websocket then carry;
- the Host header must name this server (loopback names when listening on
  loopback), which defeats DNS rebinding (403);
- a request that says where it comes from (``Origin``: every browser websocket)
  must come from this server's own page (403);
- it listens on loopback unless ``--host`` says otherwise, with a warning;
- the app processes it starts are *confined*: their import and export dialogs
  reach only the library folder and the declared exports folder.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import os
import re
import secrets
import shlex
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from store import Library, PapersiftError
from store.wording import counted
from tui.secret_strength import token_problem

if TYPE_CHECKING:
    from aiohttp.typedefs import Handler
    from textual_serve.server import Server

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"", "0.0.0.0", "::"})
TOKEN_ENV = "PAPERSIFT_SERVE_TOKEN"
SESSION_QUIT_SECONDS = 10  # at Ctrl+C, how long the open sessions' apps are given to quit (they save)


def _read_token_file(path: Path) -> str:
    """A secret from a regular file (a FIFO or /dev/zero would hang or fill memory), at most 4 KB;
    a file others may read is said to be one."""
    import stat as stat_module
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise PapersiftError(f"{path}: cannot read the secret ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat_module.S_ISREG(info.st_mode):
            raise PapersiftError(f"{path}: not a regular file; the secret is read from a file of its own")
        raw = fh.read(4097)
    if len(raw) > 4096:
        raise PapersiftError(f"{path}: over 4 KB; a secret file holds the secret alone")
    if info.st_mode & 0o077:
        sys.stderr.write(f"warning: {path} can be read by other users (chmod 600 {path})\n")
    try:
        return raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise PapersiftError(f"{path}: not UTF-8 text") from None


def fixed_token(token: str | None, token_file: str | None) -> str | None:
    """The fixed secret: ``--token-file``, else ``$PAPERSIFT_SERVE_TOKEN``, else ``--token`` (which
    ``ps`` shows every local user: said); None for a fresh one.

    Raises:
        PapersiftError: an unreadable file, or a secret too weak (with the rule).
    """
    where = "--token"
    if token_file:
        token, where = _read_token_file(Path(token_file).expanduser()), f"--token-file {token_file}"
    elif os.environ.get(TOKEN_ENV):
        token, where = os.environ[TOKEN_ENV].strip(), f"${TOKEN_ENV}"
    elif token is not None:
        sys.stderr.write(f"warning: --token puts the secret in this command's arguments, which `ps` shows every "
                         f"user of this computer; use ${TOKEN_ENV} or --token-file FILE instead\n")
    if token is None:
        return None
    if problem := token_problem(token):
        raise PapersiftError(f"{where}: {problem}")
    return token


def app_command(lib: Library, keymap: str | None = None, confine: list[Path] | None = None) -> str:
    """The shell command textual-serve runs for each browser session."""
    argv = [sys.executable, "-m", "tui", "--library", str(lib.folder.resolve()), "open"]
    if keymap:
        argv += ["--keymap", str(Path(keymap).resolve())]
    for root in confine or []:
        argv += ["--confine", str(root.resolve())]
    return shlex.join(argv)


def check_port_free(host: str, port: int) -> None:
    """Fail with a clear message before the server prints its banner."""
    if not 0 < port < 65536:
        raise PapersiftError(f"--port {port}: must be between 1 and 65535")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            raise PapersiftError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; "
                                 "choose another with --port") from None


def is_loopback(host: str) -> bool:
    """True for localhost and the loopback addresses (127.0.0.0/8, ::1)."""
    host = host.strip("[]").lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The host name of a Host header or an origin's netloc, without its port: 'localhost',
    '127.0.0.1', '::1' ('' when it cannot be read)."""
    try:
        return (urlsplit(f"//{header}").hostname or "").lower()
    except ValueError:
        return ""


class Guard:
    """The checks every request passes before textual-serve sees it (kept apart from aiohttp so
    each rule is testable on its own).

    Args:
        token: the secret a request must carry.
        host: the interface the server listens on (decides which Host headers are this server).
        port: the port (names the cookie, so two servers on one machine keep their own).
    """

    def __init__(self, token: str, host: str, port: int) -> None:
        self.token = token
        self.host = host.strip("[]").lower()
        self.port = port
        self.cookie = f"papersift-token-{port}"

    def host_allowed(self, header: str) -> bool:
        """Whether a Host header names this server: its port, no user name or path, and (unless it
        listens on a wildcard address, where the token still guards) the listening address or a
        loopback name."""
        if not header or any(c in header for c in "@/\\?# ") or not header.isprintable():
            return False
        try:
            parts = urlsplit(f"//{header}")
            port = parts.port
        except ValueError:
            return False
        if (port or 80) != self.port:
            return False
        if self.host in WILDCARDS:
            return True
        name = (parts.hostname or "").lower()
        return bool(name) and (name == self.host or is_loopback(name))

    def origin_allowed(self, origin: str | None, host_header: str) -> bool:
        """A request from a page must come from this server's own page: same host and port."""
        if origin is None:
            return True  # not sent by a browser page (curl, a script): the token decides
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and parts.netloc.lower() == host_header.lower()

    def token_ok(self, query_token: str | None, cookie_token: str | None, authorization: str | None) -> bool:
        """The secret, from ``?token=``, the cookie, or an ``Authorization: token …`` header."""
        offered = [query_token, cookie_token]
        if authorization and authorization.lower().startswith("token "):
            offered.append(authorization[6:].strip())
        return any(t and hmac.compare_digest(t.encode(), self.token.encode()) for t in offered)

    def refusal(self, host_header: str, origin: str | None, query_token: str | None,
                cookie_token: str | None, authorization: str | None) -> tuple[int, str] | None:
        """(status, reason) for a request that must be refused, or None."""
        if not self.host_allowed(host_header):
            return 403, f"papersift serve: host {host_header!r} is not this server"
        if not self.origin_allowed(origin, host_header):
            return 403, f"papersift serve: requests from {origin!r} are refused"
        if not self.token_ok(query_token, cookie_token, authorization):
            return 401, "papersift serve: open the URL with the token that `papersift serve` printed"
        return None


SECRET_IN_TEXT = re.compile(r"(token=)[^&\s\"']+", re.IGNORECASE)
PAGE = Path(__file__).resolve().parent / "serve_page"  # textual-serve's page, its font served from here


class RedactSecret(logging.Filter):
    """Every log line (the access log's request lines included) with the secret cut out."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        clean = SECRET_IN_TEXT.sub(r"\1…", text).replace(self.token, "…")
        if clean != text:
            record.msg, record.args = clean, None
        return True


def make_server(command: str, host: str, port: int, token: str, title: str, banner: str = "",
                max_sessions: int = 4) -> Server:
    """A textual-serve Server behind :class:`Guard` (a subclass and a middleware: no fork)."""
    from aiohttp import web
    from textual_serve.server import Server

    guard = Guard(token, host, port)

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        refused = guard.refusal(request.host, request.headers.get("Origin"), request.query.get("token"),
                                request.cookies.get(guard.cookie), request.headers.get("Authorization"))
        if refused:
            status, reason = refused
            return web.Response(status=status, text=reason + "\n")
        if request.query.get("token") and request.method == "GET" and request.path == "/":
            # The secret becomes a cookie, and leaves the address bar (and the history, and bookmarks).
            rest = request.rel_url.with_query({k: v for k, v in request.query.items() if k != "token"})
            response = web.HTTPSeeOther(location=str(rest))
            response.set_cookie(guard.cookie, token, httponly=True, samesite="Strict", path="/")
            return response
        return await handler(request)

    async def headers(request: web.Request, response: web.StreamResponse) -> None:
        response.headers["Referrer-Policy"] = "no-referrer"  # the page's links never carry its address

    class GuardedServer(Server):
        """textual-serve with the guard in front, a cap on sessions, no secret in its logs, and its
        page addressed by the Host it was opened at."""

        sessions = 0
        handlers: set[asyncio.Task[object] | None] = set()  # the open sessions' websocket handlers

        def initialize_logging(self) -> None:
            super().initialize_logging()
            redact = RedactSecret(token)
            for handler in logging.getLogger().handlers:
                handler.addFilter(redact)
                if hasattr(handler, "tracebacks_show_locals"):
                    handler.tracebacks_show_locals = False  # (a traceback's locals hold the raw request)

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.middlewares.append(check)
            app.on_response_prepare.append(headers)
            return app

        def _full(self) -> web.Response | None:
            if self.sessions < max_sessions:
                return None
            return web.Response(status=503, content_type="text/html", text=(
                f"<!DOCTYPE html><title>papersift</title><p>papersift serve: {counted(max_sessions, 'session')} "
                f"{'is' if max_sessions == 1 else 'are'} open "
                f"already (the most this server runs at once: <code>--max-sessions</code>). Close one of its tabs, "
                f"then reload this page.</p>\n"))

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            if full := self._full():
                return full
            # textual-serve builds the page's URLs from --host; a page opened at 127.0.0.1 would then
            # load its script and websocket from "localhost", another origin without the cookie.
            self.public_url = f"{request.scheme}://{request.host}"
            return await super().handle_index(request)

        async def handle_websocket(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
            # (a full server answers the websocket request with a page: aiohttp takes any response)
            if full := self._full():
                return full
            self.sessions += 1  # (one event loop: no lock needed)
            task = asyncio.current_task()
            self.handlers.add(task)
            try:
                return await super().handle_websocket(request)
            finally:
                self.sessions -= 1
                self.handlers.discard(task)

        async def on_shutdown(self, app: web.Application) -> None:
            await end_sessions(self.handlers)

        async def on_startup(self, app: web.Application) -> None:
            # The banner is papersift's own, with the token in the URL, and printed once the port
            # answers (startup runs before aiohttp binds): a URL opened at once must work.
            async def say_when_listening() -> None:
                probe = "127.0.0.1" if host.strip("[]") in WILDCARDS | {"localhost"} else host.strip("[]")
                for _ in range(500):
                    try:
                        _reader, writer = await asyncio.open_connection(probe, port)
                    except OSError:
                        await asyncio.sleep(0.02)
                        continue
                    writer.close()
                    break
                sys.stderr.write(banner)
                sys.stderr.flush()
            app["banner"] = asyncio.get_running_loop().create_task(say_when_listening())

    return GuardedServer(command, host=host, port=port, title=title, templates_path=PAGE)


async def end_sessions(handlers: set[asyncio.Task[object] | None]) -> None:
    """At Ctrl+C, the open sessions ended: each handler waited on its browser (a heartbeat every
    15 s) before its app was told to quit. Cancelled, each tells its app to quit (it saves, as on
    q) and closes its websocket; waited for at most SESSION_QUIT_SECONDS."""
    waiting = [task for task in handlers if task is not None and not task.done()]
    for task in waiting:
        task.cancel()
    if waiting:
        await asyncio.wait(waiting, timeout=SESSION_QUIT_SECONDS)


def browser_url(host: str, port: int, token: str) -> str:
    """The address to open: loopback and wildcard addresses as 127.0.0.1 (works in every browser)."""
    shown = "127.0.0.1" if host.strip("[]").lower() in WILDCARDS | {"localhost"} else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    from urllib.parse import quote
    return f"http://{shown}:{port}/?token={quote(token, safe='')}"


def serve(lib: Library, host: str, port: int, keymap: str | None = None, token: str | None = None,
          exports: str | None = None, token_file: str | None = None, max_sessions: int = 4) -> int:
    """Run the web server until Ctrl+C (or SIGTERM)."""
    if keymap and not Path(keymap).is_file():
        raise PapersiftError(f"{keymap}: no such keymap file")
    if max_sessions < 1:
        raise PapersiftError("--max-sessions: at least 1")
    token = fixed_token(token, token_file)
    exports_dir = Path(exports).expanduser() if exports else lib.folder / "exports"
    try:
        exports_dir.mkdir(mode=0o700, parents=True, exist_ok=True)  # (private, as the library's folders)
    except OSError as exc:
        raise PapersiftError(f"{exports_dir}: cannot be used as the exports folder ({exc.strerror or exc})") from None
    check_port_free(host, port)
    secret = token or secrets.token_urlsafe(24)
    err = sys.stderr
    if not is_loopback(host):
        err.write(f"warning: listening on {host}, not only on this computer: anyone who can reach it and "
                  "has the URL below can read and change this library\n")
    banner = (f"papersift serve: library {lib.folder}\n"
              f"  files: the app's import and export dialogs reach only {lib.folder} and {exports_dir}\n"
              f"  open {browser_url(host, port, secret)}\n"
              "  press Ctrl+C to stop\n")
    server = make_server(app_command(lib, keymap, [lib.folder, exports_dir]), host, port, secret,
                         f"papersift: {lib.name}", banner, max_sessions)
    server.serve()
    return 0
