"""What the keys that share a paper do: copy its abstract, its citation or the selection's ids,
and open its link in a browser (only an http(s) address, never anything a file's words could make
a command of)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from store import Library
from store.safe_text import display_safe
from store.wording import counted

from ..clipboard import copy_text

if TYPE_CHECKING:
    from .triage import Triage
    from .view import MainView


def openable(url: str) -> bool:
    """Whether a link may go to the browser: an http(s) address with a host, so that it starts
    with "http" and can never be read as a command-line option ("--renderer-cmd-prefix=…"), nor
    run anything (``javascript:``) or open a local file (``file:``)."""
    from urllib.parse import urlsplit
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname) and url[:4].lower() == "http" \
        and not any(c.isspace() or ord(c) < 32 for c in url)


class Sharing:
    """Copying and links, for the highlighted paper or the selection (``triage`` says which)."""

    def __init__(self, library: Library, view: MainView, triage: Triage) -> None:
        self.library = library
        self.view = view
        self.triage = triage

    def _copy(self, text: str, what: str) -> None:
        where = copy_text(self.view.app, text)
        self.view.notify(f"copied {what} to the {where}")

    def copy_abstract(self) -> None:
        pid = self.triage.current_paper_id()
        if pid:
            from ..render import render_abstract
            self._copy(render_abstract(self.library.paper(pid).abstract)[0].plain, "abstract")

    def copy_citation(self) -> None:
        pid = self.triage.current_paper_id()
        if pid:
            from store.formats.markdown import citation_line# (not at start-up: it loads the export formats)
            self._copy(citation_line(self.library.paper(pid), self.library.annotation(pid)), "citation")

    def copy_ids(self) -> None:
        ids = self.triage.targets()
        if ids:
            self._copy(" ".join(ids), counted(len(ids), "id"))  # (one line: a paste that is not bracketed runs no key)

    def open_link(self) -> None:
        links = self.view.reader.links
        if not links:
            self.view.notify("this paper has no link", severity="warning")
            return
        link = next((u for u in links if openable(u)), None)
        if link is None:  # a paper's url is its file's words: never handed to a browser unchecked
            self.view.notify(f"not opened: {display_safe(links[0], False)[:80]} is not an http(s) address "
                             "(only those are opened; it is shown in the reader)", severity="warning")
            return
        try:
            import webbrowser  # (on first use: its import costs the start ~10 ms)

            opened = webbrowser.open(link)
        except Exception:
            opened = False
        if opened:
            self.view.notify(f"opened {display_safe(link, False)}")
        else:
            self._copy(link, "link (no browser found)")
