"""`papersift serve` is reachable only by the person who started it.

Real server processes, a real HTTP/websocket client: the printed URL works, and a request
without the secret, from a foreign page (Origin) or under a foreign host name (DNS rebinding)
is refused. The Guard's rules are also checked one by one, and a confined app's dialogs are
driven through Pilot.
"""

from __future__ import annotations

import asyncio
import time
import re
import urllib.error
from pathlib import Path
import urllib.request
from urllib.parse import urlsplit

import aiohttp
import pytest

from tests.conftest import start_serve, stop
from tui.serve import Guard, browser_url, is_loopback

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("e2e")]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def fetch(url: str, headers: dict | None = None):
    """(status, headers, body) of one request, redirects not followed (as a first look sees them)."""
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.build_opener(_NoRedirect).open(req, timeout=10) as resp:
            return resp.status, resp.headers, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read().decode(errors="replace")


def status_of(url: str, headers: dict | None = None) -> int:
    return fetch(url, headers)[0]


async def ws_status(base: str, cookie: str, origin: str | None, host: str | None = None) -> int:
    """The status a websocket handshake gets (101 when accepted; the socket is closed at once)."""
    headers = {"Cookie": cookie}
    if origin:
        headers["Origin"] = origin
    if host:
        headers["Host"] = host
    async with aiohttp.ClientSession() as http:
        try:
            async with http.ws_connect(f"{base}/ws?width=80&height=24", headers=headers,
                                       timeout=aiohttp.ClientWSTimeout(ws_close=10)) as ws:
                await ws.close()
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_the_printed_url_is_the_only_way_in(tmp_path):
    proc, _env, url = start_serve(tmp_path)
    try:
        parts = urlsplit(url)
        base = f"{parts.scheme}://{parts.netloc}"
        token = parts.query.removeprefix("token=")
        assert parts.hostname == "127.0.0.1" and len(token) >= 16
        assert "reach only" in proc.banner and "exports" in proc.banner  # the dialogs' folders are named

        # The printed URL sets the secret as a strict, script-proof cookie and sends the browser to
        # the same page without it (out of the address bar, the history and any Referer).
        status, heads, _ = fetch(url)
        cookie = heads["Set-Cookie"]
        assert status == 303 and heads["Location"] == "/" and heads["Referrer-Policy"] == "no-referrer"
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        cookie_pair = cookie.split(";")[0]
        status, heads, page = fetch(f"{base}/", {"Cookie": cookie_pair})
        assert status == 200 and heads["Referrer-Policy"] == "no-referrer"
        assert f'data-session-websocket-url="ws://{parts.netloc}/ws"' in page  # the host it was opened at
        # The page loads nothing from outside this server (textual-serve's own page loads a web font).
        urls = re.findall(r"""(?:src|href)=["']?((?:https?:)?//[^"' >]+)|url\(["']?((?:https?:)?//[^"')]+)""", page)
        outside = [u for pair in urls for u in pair if u and not u.startswith(base + "/")]
        assert outside == [] and "googleapis" not in page

        # Without the secret: refused, page, script and websocket alike.
        assert status_of(f"{base}/") == 401
        assert status_of(f"{base}/?token=wrong-{token}") == 401
        assert status_of(f"{base}/static/js/textual.js") == 401
        assert status_of(f"{base}/static/js/textual.js", {"Cookie": cookie_pair}) == 200
        assert status_of(f"{base}/", {"Authorization": f"token {token}"}) == 200
        assert status_of(f"{base}/", {"Cookie": cookie_pair, "Host": f"127.0.0.1:{parts.port + 1}"}) == 403
        assert status_of(f"{base}/", {"Cookie": cookie_pair, "Host": f"me@127.0.0.1:{parts.port}"}) == 403

        # DNS rebinding: a foreign name that resolves here is still not this server.
        assert status_of(url, {"Host": f"evil.example:{parts.port}"}) == 403
        assert status_of(url, {"Host": f"localhost:{parts.port}"}) == 303

        # The websocket: only from this server's own page, and only with the secret.
        own = f"http://{parts.netloc}"
        assert asyncio.run(ws_status(base, cookie_pair, "https://evil.example")) == 403
        assert asyncio.run(ws_status(base, cookie_pair, f"http://localhost:{parts.port + 1}")) == 403
        assert asyncio.run(ws_status(base, "", own)) == 401
        assert asyncio.run(ws_status(base, cookie_pair, own, host=f"evil.example:{parts.port}")) == 403
        assert asyncio.run(ws_status(base, cookie_pair, own)) == 101
    finally:
        stop(proc)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_fixed_token_and_a_public_host_warn_and_still_guard(tmp_path):
    proc, _env, url = start_serve(tmp_path, "--host", "0.0.0.0", "--token", "kV3q-Zp8_Lr2mXt9Wc4nHy7Bd1Fs6Gj0")
    try:
        assert "warning: listening on 0.0.0.0" in proc.banner
        assert "`ps` shows every user" in proc.banner  # a secret in the arguments: said
        assert url.endswith("/?token=kV3q-Zp8_Lr2mXt9Wc4nHy7Bd1Fs6Gj0")
        base = url.split("/?")[0]
        assert status_of(url) == 303
        assert status_of(f"{base}/") == 401
    finally:
        stop(proc)


@pytest.mark.parametrize("weak", ["1234", "a" * 16, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "ab" * 20,
                                  "abcdefghijklmnopqrstuvwxyzabcdefgh"])
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_weak_token_is_refused_with_the_rule(run_cli, weak):
    proc = run_cli("serve", "--token", weak, check=False)
    assert proc.returncode == 1 and "needs at least 128 bits" in proc.stderr and "token_urlsafe(32)" in proc.stderr


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_the_secret_from_a_file_or_the_environment_never_reaches_argv_or_the_log(tmp_path):
    """The access log (and anything else the server prints) never holds the secret, and a secret
    from a file or the environment is not in the command's arguments."""
    import os
    import subprocess

    from tests.conftest import free_port, papersift_argv
    secret = "k3Jd9-xQ_2mLw8ZrT4vBn7Yc1HsE6uPa"
    (tmp_path / "token").write_text(secret + "\n")
    for how in ("file", "env"):
        port = free_port()
        env = {**os.environ, "PAPERSIFT_LIBRARY": str(tmp_path / "lib"), "HOME": str(tmp_path)}
        argv = [*papersift_argv(), "serve", "--port", str(port)]
        if how == "file":
            argv += ["--token-file", str(tmp_path / "token")]
        else:
            env["PAPERSIFT_SERVE_TOKEN"] = secret
        out, err = open(tmp_path / f"out-{how}", "w"), open(tmp_path / f"err-{how}", "w")
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=err, start_new_session=True)
        try:
            url = f"http://127.0.0.1:{port}/?token={secret}"
            for _ in range(150):
                try:
                    if status_of(url.replace("?token=", "?x=")) == 401:
                        break
                except urllib.error.URLError:  # not listening yet
                    pass
                time.sleep(0.1)
            assert status_of(url) == 303 and status_of(url.replace(secret, "wrong-guess-wrong")) == 401
            time.sleep(0.5)
        finally:
            stop(proc)
            out.close()
            err.close()
        said = (tmp_path / f"out-{how}").read_text() + (tmp_path / f"err-{how}").read_text()
        assert "GET /?token=…" in said, said[-2000:]  # the request is logged, its secret cut out
        assert secret not in said.replace(f"open {url}", "") and secret not in " ".join(argv)
        assert "`ps` shows" not in said


@pytest.mark.slow  # (a server, a session)
def test_ctrl_c_stops_the_server_at_once_with_a_session_open(tmp_path):
    """Ctrl+C with a browser's session open left the server running, silently, until its
    websocket's next heartbeat (~15-18 s): the session's app is now told to quit at once."""
    import signal

    proc, _env, url = start_serve(tmp_path)
    try:
        parts = urlsplit(url)
        base = f"{parts.scheme}://{parts.netloc}"
        cookie_pair = fetch(url)[1]["Set-Cookie"].split(";")[0]

        async def interrupted_in_a_session() -> float:
            async with aiohttp.ClientSession() as http:
                async with http.ws_connect(f"{base}/ws?width=80&height=24", headers={"Cookie": cookie_pair}) as ws:
                    for _ in range(40):  # (the session's app drawing: it runs)
                        msg = await asyncio.wait_for(ws.receive(), 15)
                        if msg.type == aiohttp.WSMsgType.BINARY:
                            break
                    proc.send_signal(signal.SIGINT)
                    start = time.monotonic()

                    async def read_on() -> None:  # (as a browser does: its close answered at once)
                        while (await ws.receive()).type not in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                                                                aiohttp.WSMsgType.ERROR):
                            pass
                    reading = asyncio.create_task(read_on())
                    await asyncio.to_thread(proc.wait, 40)
                    reading.cancel()
                    return time.monotonic() - start
        assert asyncio.run(interrupted_in_a_session()) < 8
    finally:
        stop(proc)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_sessions_are_capped(tmp_path):
    proc, _env, url = start_serve(tmp_path, "--max-sessions", "1")
    try:
        parts = urlsplit(url)
        base = f"{parts.scheme}://{parts.netloc}"
        cookie_pair = fetch(url)[1]["Set-Cookie"].split(";")[0]

        async def two() -> tuple[int, int]:
            async with aiohttp.ClientSession() as http:
                async with http.ws_connect(f"{base}/ws?width=80&height=24", headers={"Cookie": cookie_pair}):
                    await asyncio.sleep(0.3)
                    second = await ws_status(base, cookie_pair, None)
                    status, _, page = await asyncio.to_thread(fetch, f"{base}/", {"Cookie": cookie_pair})
                    assert "1 session is open already" in page and "--max-sessions" in page
                    return second, status
        assert asyncio.run(two()) == (503, 503)
        # closed: room again, once the session's app has ended (its process may take a while on a
        # busy machine: waited for, up to 15 s)
        deadline = time.monotonic() + 15
        while (status := status_of(f"{base}/", {"Cookie": cookie_pair})) != 200 and time.monotonic() < deadline:
            time.sleep(0.25)
        assert status == 200
    finally:
        stop(proc)


def test_guard_rules_one_by_one():
    g = Guard("s3cret-s3cret-s3cret", "127.0.0.1", 8000)
    assert g.host_allowed("127.0.0.1:8000") and g.host_allowed("localhost:8000") and g.host_allowed("[::1]:8000")
    assert not g.host_allowed("attacker.example:8000") and not g.host_allowed("")
    assert g.origin_allowed(None, "localhost:8000")              # not a page: the token decides
    assert g.origin_allowed("http://localhost:8000", "localhost:8000")
    assert not g.origin_allowed("http://localhost:8000", "127.0.0.1:8000")
    assert not g.origin_allowed("null", "localhost:8000")         # a sandboxed frame or a file: page
    assert g.token_ok("s3cret-s3cret-s3cret", None, None)
    assert g.token_ok(None, None, "token s3cret-s3cret-s3cret")
    assert not g.token_ok("s3cret", "", "Bearer s3cret-s3cret-s3cret")
    wild = Guard("t" * 20, "0.0.0.0", 8000)
    assert wild.host_allowed("my-laptop.lan:8000")               # any name reaches a wildcard; the token guards
    named = Guard("t" * 20, "192.168.1.5", 8000)
    assert named.host_allowed("192.168.1.5:8000") and not named.host_allowed("evil.example:8000")
    assert is_loopback("127.0.0.2") and is_loopback("::1") and not is_loopback("0.0.0.0")
    assert browser_url("localhost", 8000, "x") == "http://127.0.0.1:8000/?token=x"
    assert browser_url("::1", 8000, "x") == "http://[::1]:8000/?token=x"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_browser_sessions_dialogs_reach_only_its_folders(tmp_path, lib):
    """Import and export in a confined app: a path outside is refused and named, no folder
    outside is listed for completion, and an export inside the exports folder works."""
    from textual.widgets import Input, Label

    from tui.app import make_app
    from tui.screens.export import ExportScreen
    from tui.screens.import_dialog import ImportInput, ImportScreen, PathSuggester

    exports = tmp_path / "exports"
    exports.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("Abstract: a private file outside the library, which no page may read. " * 3)
    (exports / "escape.txt").symlink_to(secret)
    app = make_app(lib, settings_path=tmp_path / "settings.json", confine=[lib.folder, exports])
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("i")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ImportScreen)
        assert "Browser session" in str(screen.query_one("#import-confined", Label).render())
        box = screen.query_one(ImportInput)
        assert box.value == f"{exports}/"                          # it starts in the exports folder
        for outside in (str(secret), str(exports / "escape.txt")):  # a link out is as outside as the file
            box.value = outside
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, ImportScreen)
            assert "reaches only files in" in str(screen.query_one("#import-error", Label).render())
        # A path outside says the same whether it exists or not: the dialog reveals nothing outside.
        said = []
        for outside in ("/etc/shadow", "/etc/no-such-file-here"):
            box.value = outside
            await pilot.press("enter")
            await pilot.pause()
            said.append(str(screen.query_one("#import-error", Label).render()).replace(outside, "PATH"))
        assert said[0] == said[1] and "reaches only files in" in said[0]
        # A folder inside holding a link out (the walk of an import would follow it) is refused.
        box.value = str(exports)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ImportScreen)
        assert "escape.txt: a link out of" in str(screen.query_one("#import-error", Label).render())
        suggester = PathSuggester(app.confinement)
        assert await suggester.get_suggestion(f"{tmp_path}/sec") is None
        assert await suggester.get_suggestion(f"{exports}/esc") == f"{exports}/escape.txt"
        await pilot.press("escape")
        await pilot.pause()

        await pilot.press("x")
        await pilot.pause()
        export = app.screen
        assert isinstance(export, ExportScreen)
        export.query_one("#scope-all").value = True
        await pilot.pause()
        dest = export.query_one("#dest", Input)
        assert dest.value.startswith(str(exports))
        dest.value = str(tmp_path / "outside.md")
        export.action_run()
        await pilot.pause()
        assert not (tmp_path / "outside.md").exists()
        assert isinstance(app.screen, ExportScreen)
        dest.value = str(exports / "list.md")
        export.action_run()
        await pilot.pause()
        assert (exports / "list.md").exists()


def test_a_token_file_is_read_safely_and_the_url_quotes_the_token(tmp_path, capsys):
    import os

    from store import PapersiftError
    from tui.serve import _read_token_file
    with pytest.raises(PapersiftError, match="not a regular file"):
        _read_token_file(Path("/dev/zero"))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(PapersiftError, match="not a regular file"):
        _read_token_file(fifo)
    loose = tmp_path / "token"
    loose.write_text("k3Jd9-xQ_2mLw8ZrT4vBn7Yc1HsE6uPa\n")
    loose.chmod(0o644)
    assert _read_token_file(loose) == "k3Jd9-xQ_2mLw8ZrT4vBn7Yc1HsE6uPa"
    assert "can be read by other users" in capsys.readouterr().err
    assert browser_url("127.0.0.1", 8000, "Ab3#xY9&zQ1%k") == "http://127.0.0.1:8000/?token=Ab3%23xY9%26zQ1%25k"
