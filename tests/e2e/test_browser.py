"""End to end in a web browser: `papersift serve`, loaded by headless Chromium.

The page draws the terminal on a canvas (xterm.js), so there is no text in the DOM
to read. The test talks to Chromium over the DevTools protocol and, while the page
loads, adds one assignment to textual-serve's script so the xterm.js Terminal is
reachable from the page (`window.__papersiftTerm`); it then reads the screen from
the terminal's buffer and types with real key events. Everything else — server,
websocket, app process, library on disk — runs as a user would run it.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
import shutil
import subprocess
import time
import urllib.request

import aiohttp
import pytest

from tests.conftest import free_port, papersift_argv, start_serve, stop

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.xdist_group("e2e"),
              pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"),
                                 reason="chromium is not installed (.ci/run installs it)")]

HOOK_FROM = "this.terminal.open(e)"
HOOK_TO = "(window.__papersiftTerm=this.terminal),this.terminal.open(e)"
READ_SCREEN = ("window.__papersiftTerm ? [...Array(__papersiftTerm.rows).keys()]"
               ".map(i => __papersiftTerm.buffer.active.getLine(i)?.translateToString(true) ?? '').join('\\n') : ''")


def wait_http(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{url} never answered")


class DevTools:
    """Just enough of the Chrome DevTools Protocol: commands, and the Fetch hook."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse):
        self.ws = ws
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future] = {}
        self.patched = asyncio.Event()
        self.reader = asyncio.create_task(self._read())

    async def send(self, method: str, **params):
        msg_id = next(self.ids)
        fut = asyncio.get_running_loop().create_future()
        self.pending[msg_id] = fut
        await self.ws.send_str(json.dumps({"id": msg_id, "method": method, "params": params}))
        reply = await asyncio.wait_for(fut, 30)
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    async def _read(self) -> None:
        async for msg in self.ws:
            data = json.loads(msg.data)
            if "id" in data:
                self.pending.pop(data["id"]).set_result(data)
            elif data.get("method") == "Fetch.requestPaused":
                asyncio.create_task(self._patch(data["params"]))

    async def _patch(self, event: dict) -> None:
        body = await self.send("Fetch.getResponseBody", requestId=event["requestId"])
        text = base64.b64decode(body["body"]).decode() if body["base64Encoded"] else body["body"]
        assert HOOK_FROM in text, "textual-serve's script changed: update the test's hook"
        text = text.replace(HOOK_FROM, HOOK_TO, 1)
        await self.send("Fetch.fulfillRequest", requestId=event["requestId"], responseCode=200,
                        responseHeaders=[{"name": "Content-Type", "value": "application/javascript"}],
                        body=base64.b64encode(text.encode()).decode())
        self.patched.set()

    async def screen(self) -> str:
        result = await self.send("Runtime.evaluate", expression=READ_SCREEN, returnByValue=True)
        return result["result"].get("value", "")

    async def wait_for(self, text: str, timeout: float = 40) -> str:
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = await self.screen()
            if text in shown:
                return shown
            await asyncio.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared in the browser; screen:\n{shown}")

    async def type(self, keys: str | list[str]) -> None:
        """Real key events, one at a time ("Enter" and "Escape" by name)."""
        named = {"Enter": ("\r", 13), "Escape": ("", 27)}
        for key in ([keys] if isinstance(keys, str) and keys in named else keys):
            text, code = named[key] if key in named else (key, ord(key.upper()))
            base = {"key": key, "windowsVirtualKeyCode": code}
            await self.send("Input.dispatchKeyEvent", type="keyDown", text=text, unmodifiedText=text, **base)
            await self.send("Input.dispatchKeyEvent", type="keyUp", **base)
            await asyncio.sleep(0.05)


def test_the_app_runs_in_a_browser(tmp_path):
    """The URL `papersift serve` prints, opened in Chromium: the app runs and a key is saved."""
    assert CHROMIUM, "chromium is required in CI (.ci/run installs it)"
    server, env, url = start_serve(tmp_path)
    debug_port = free_port()
    browser = None
    try:
        browser = subprocess.Popen([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                    "--disable-background-networking", "--disable-component-update",
                                    "--disable-sync", "--disable-quic",
                                    f"--user-data-dir={tmp_path / 'chromium'}", f"--remote-debugging-port={debug_port}",
                                    "--window-size=1400,1000", "about:blank"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        wait_http(f"http://127.0.0.1:{debug_port}/json/version")
        asyncio.run(_drive(debug_port, url))
    finally:
        stop(browser)
        stop(server)

    out = subprocess.run([*papersift_argv(), "list", "--format", "json"], capture_output=True, text=True,
                         env=env, check=True).stdout
    papers = {p["title"].split(":")[0]: p for p in json.loads(out)}
    assert papers["EverAnimate"]["status"] == "read", "the triage key pressed in the browser was not saved"


async def _drive(debug_port: int, url: str) -> None:
    """Open the printed URL, search, triage; then try the websocket from another page."""
    async with aiohttp.ClientSession() as http:
        async with http.get(f"http://127.0.0.1:{debug_port}/json/list") as resp:
            target = next(t for t in await resp.json() if t["type"] == "page")
        async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            cdp = DevTools(ws)
            await cdp.send("Fetch.enable", patterns=[{"urlPattern": "*textual.js*", "requestStage": "Response"}])
            await cdp.send("Page.enable")
            await cdp.send("Page.navigate", url=url)
            await asyncio.wait_for(cdp.patched.wait(), 30)
            screen = await cdp.wait_for("35 / 35")          # the results list, populated from the seeds
            assert "VIPBench" in screen or "papersift" in screen
            await cdp.send("Runtime.evaluate", expression="__papersiftTerm.focus()")
            await cdp.type("/")
            await cdp.type(list("everanimate"))
            await cdp.type("Enter")
            await cdp.wait_for("1 / 35")                     # the list narrowed to the one match
            await cdp.wait_for("EverAnimate")
            await cdp.type("r")                              # mark it read, in the browser
            await cdp.wait_for("1 / 35 triaged")

            # Another page in the same browser (here a data: page; any site alike) cannot drive it.
            ws_url = "ws://" + url.split("://", 1)[1].split("/", 1)[0] + "/ws?width=80&height=24"
            await cdp.send("Page.navigate", url="data:text/html,<title>elsewhere</title>")
            await asyncio.sleep(0.5)
            probe = (f"new Promise(done => {{ const ws = new WebSocket({json.dumps(ws_url)});"
                     "ws.onopen = () => done('open'); ws.onerror = () => done('refused'); })")
            result = await cdp.send("Runtime.evaluate", expression=probe, awaitPromise=True, returnByValue=True)
            assert result["result"]["value"] == "refused"
            cdp.reader.cancel()
