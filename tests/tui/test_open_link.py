"""`o` opens a paper's link only when it is an http(s) address: a url from an imported file never
reaches the browser as a command-line option, a script or a local file."""

from __future__ import annotations

import json
import os
import stat
import sys

import pytest

from store import Library
from tui.app import make_app
from tui.controllers.sharing import openable

from ..conftest import wait_workers

HOSTILE = ["--renderer-cmd-prefix=touch /tmp/pwned", "-new-window", "javascript:alert(1)", "file:///etc/passwd",
           "http:/no-host", "ftp://example.org/x", "https://example.org/a b"]


@pytest.mark.parametrize("url", HOSTILE)
def test_a_hostile_url_is_not_openable(url):
    assert not openable(url)


@pytest.mark.parametrize("url", ["https://openreview.net/forum?id=Fw4fBE2rqW", "http://arxiv.org/abs/2401.00001"])
def test_an_http_url_is(url):
    assert openable(url)


@pytest.mark.parametrize("url", [HOSTILE[0], HOSTILE[2], HOSTILE[3], "https://example.org/paper"])
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_o_hands_the_browser_only_http_urls(url, tmp_path, monkeypatch):
    """A BROWSER that records its arguments: what `o` passes it, as the real webbrowser module runs it."""
    record = tmp_path / "argv.json"
    browser = tmp_path / "browser"
    browser.write_text(f"#!{sys.executable}\nimport json, sys\njson.dump(sys.argv[1:], open({str(record)!r}, 'w'))\n")
    browser.chmod(browser.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("BROWSER", str(browser))
    monkeypatch.setenv("PAPERSIFT_NO_SYSTEM_CLIPBOARD", "1")
    import webbrowser
    monkeypatch.setattr(webbrowser, "_tryorder", None)  # (read BROWSER again)
    monkeypatch.setattr(webbrowser, "_browsers", {})
    src = tmp_path / "one.jsonl"
    src.write_text(json.dumps({"title": "A paper", "url": url, "abstract": "We study a thing with a method "
                               "that works, and show it on a benchmark of many tasks."}) + "\n")
    lib = Library.open(tmp_path / "lib", seed_if_new=False)
    lib.paper_changes.import_paths([src])
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(160, 45)) as pilot:
        await wait_workers(app, pilot)
        await pilot.press("o")
        await pilot.pause(0.5)
        said = " ".join(str(n.message) for n in app._notifications)
    for _ in range(50):
        if record.exists() or not openable(url):
            break
        await __import__("asyncio").sleep(0.1)
    if openable(url):
        assert json.loads(record.read_text()) == [url]
    else:
        # (a link that is no web address is dropped when the paper is read: the paper has none)
        assert not record.exists() and (("not opened" in said and "http(s)" in said) or "has no link" in said)
    assert not os.path.exists("/tmp/pwned")
