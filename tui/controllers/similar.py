"""More like this, and the model behind it.

The similarity model is built once the list is usable: in this process for a small library,
in a helper process (``python -m store.prepare``) for a big one, so the UI never
stalls; the papers like the highlighted one follow it in the reader once the cursor rests. In a
huge library another helper process answers the lookups (store.discovery.lookups).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections import OrderedDict
from functools import partial
from typing import TYPE_CHECKING

from textual.worker import get_current_worker
from store.wording import counted

from .. import limits
from ..keymap import key_label

if TYPE_CHECKING:
    from textual.timer import Timer

    from store import Library

    from .view import MainView


FOUND_KEPT = 256  # papers whose nearest papers are kept (a few KB): going back shows them at once

Titles = list[tuple[int, str]]


class Similar:
    """More like this, the model's lifecycle and the reader's nearest papers.

    Args:
        library: whose model it is.
        view: the main screen (its search box, list and reader).
    Once the model is there, the screen shows the highlighted paper again (with its nearest papers).
    """

    def __init__(self, library: Library, view: MainView) -> None:
        self.library = library
        self.view = view
        self._timer: Timer | None = None
        self._lookup_seconds = 0.0  # how long the last lookup took (the pause to wait for: soon)
        self._running: int | None = None  # the paper a lookup is running for
        self._next: int | None = None  # the paper to look up when it ends (the cursor moved meanwhile)
        self._found: OrderedDict[tuple[str, int], Titles] = OrderedDict()  # (corpus generation, paper)
        self._cursor_was = 0  # the list's cursor when the reader last changed paper (which way it moves)
        self._step = 1
        self._drawn_first: int | None = None  # the paper whose lookup waits for the frame showing it

    def origin(self, query: str) -> str | None:
        """The paper a ``similar:`` search lists neighbours of (None for another search, and for a
        paper removed since or a mistyped id)."""
        from store.errors import PapersiftError
        from store.search.query import parse_query

        key = parse_query(query).similar
        if not key:
            return None
        try:
            return self.library.paper(key).id
        except PapersiftError:
            return None

    def more_like_this(self) -> None:
        """List the papers most like the highlighted one (escape returns to the full list)."""
        pid = self.view.current_paper_id()
        if pid and not self.library.discovery.similarity_ready and len(self.library) > limits.AUTO_MODEL_MAX:
            # A huge library: the model (minutes of work) is built on request, in the helper.
            if not self.view.working("prepare"):
                self.prepare()
            again = key_label(self.view.app, "main.more_like_this")
            self.view.notify(f"building the similarity model for {counted(len(self.library), 'paper')} in the background; "
                             f"press {again} again when the reader shows “More like this”")
            return
        if pid:
            self.view.search_box.value = f"similar:{pid}"
            self.view.set_focus(self.view.results)

    def model_soon(self) -> None:
        """Get the model once the list is up: at start, and after the corpus changed (an import, a
        removal or its undo, papers another process wrote), which dropped it; the reader's panel
        comes back when it is there. A huge library's is made only when asked for (m), unless its
        cache is fresh."""
        lib = self.library
        if lib.discovery.similarity_ready:
            return
        if len(lib) <= limits.AUTO_MODEL_MAX or lib.discovery.similarity_cache_fresh():
            self.view.set_timer(1.0 if len(lib) > limits.BIG_LIBRARY else 0.05, self.prepare)

    def prepare(self) -> None:
        """Get the similarity model after the first paint, in a worker: from its cache, else built
        by a helper.

        The helper is a separate process (``python -m store.prepare``) for big
        libraries, so the SVD uses another core and neither its memory nor the
        GIL is taken from the app while the user types; if it fails, the model
        is built here instead.
        """
        self.view.run_in_thread(self._prepare_in_thread, group="prepare")

    def _prepare_in_thread(self) -> None:
        try:
            self.ensure_model()
        except Exception:
            return
        self.view.app.call_from_thread(self.view.show_current)

    def ensure_model(self) -> None:
        """The similarity model, from its cache, else built by the helper process (big libraries),
        else here. It blocks: call it from a worker (the topic browser's calls it too, so topics
        asked for before the helper starts wait for the helper's one build)."""
        lib = self.library
        if len(lib) > limits.BIG_LIBRARY:
            lib.discovery.build_similarity_elsewhere(lambda: subprocess.run(
                [sys.executable, "-m", "store.prepare", str(lib.folder)], check=False,
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _ = lib.discovery.similarity  # (built, or loaded from the cache the helper wrote)
        if len(lib) > limits.LOOKUP_HELPER:
            lib.discovery.lookups_elsewhere()  # (a helper process answers the lookups from now on)

    def end(self) -> None:
        """The screen is going: the lookup helper ends too."""
        self.library.discovery.close()

    def soon(self, paper_index: int, burst: bool = False) -> None:
        """Nearest papers for the reader (big libraries: one lookup at a time, never a queue).

        A lookup starts once the frame showing the paper is drawn (run beside the drawing, on two
        cores, each took about twice as long: the whole screen settled later), or at once when a
        helper process answers it (above LOOKUP_HELPER papers: it runs on the other core while the
        frame is drawn, and no longer takes turns with it for the GIL), when none runs, else
        when the running one ends, for the paper the reader shows then: a held key looks up only
        where the cursor is when each lookup ends. Once the cursor rests in the list, the next
        paper the way it moves is looked up ahead (the next key, or a triage key that moves on,
        shows its panel at once), and the last papers' neighbours are kept. While keys come in a
        ``burst`` in the search box (Searching.in_burst) the lookup waits for a pause at least
        twice as long as the last one took: each key changes the paper, and a lookup takes CPU the
        next key's search wants (a key typed stops a running lookup: :meth:`hold`). Small libraries
        look up at once.
        """
        self._stop_timer()
        found = self._found.get(self._key(paper_index))
        if found is not None:
            self._show_titles(paper_index, found)
            self._look_ahead(paper_index)
        elif len(self.library) <= limits.BIG_LIBRARY:
            self.show(paper_index)
        elif burst:
            delay = max(limits.SIMILAR_DELAY, 2 * self._lookup_seconds)
            self._timer = self.view.set_timer(delay, lambda: self.show(paper_index))
        elif self.library.discovery.helper_pid is not None:  # it runs on the other core while the frame is drawn
            self._after_frame(paper_index, drawn=False)
        else:
            self._drawn_first = paper_index
            self.view.call_after_refresh(self._after_frame, paper_index)

    def _after_frame(self, paper_index: int, drawn: bool = True) -> None:
        """The frame showing the paper is drawn (or, a helper looking up, about to be): its lookup
        starts, or waits for the running one."""
        if drawn and self._drawn_first != paper_index:
            return  # (held, or another paper since)
        self._drawn_first = None
        if self._running is None:
            self.show(paper_index)
        elif self._running != paper_index:
            self._next = paper_index

    def hold(self) -> None:
        """No lookup for the paper the reader shows now (a key typed: another is coming): a pending
        one is not started, and a running one stops at its next window and shows nothing (at 300k
        papers a lookup takes 25-45 ms of a core, which the key's search wants)."""
        self._stop_timer()
        self._drawn_first = None
        if self._running is not None:
            self.view.cancel_workers("similar")
            self._running = self._next = None

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _key(self, paper_index: int) -> tuple[str, int]:
        return self.library.corpus.generation, paper_index

    def _look_ahead(self, paper_index: int) -> None:
        """Look up the paper after ``paper_index`` in the list (the way the cursor last moved),
        unless a lookup runs, the cursor moved on, or the search box has the focus."""
        results = self.view.results
        if (self._running is not None or len(self.library) <= limits.BIG_LIBRARY
                or results.current_index != paper_index or self._key(paper_index) not in self._found
                or self.view.focused is self.view.search_box):
            return
        cursor = results.cursor
        if cursor != self._cursor_was:
            self._step = 1 if cursor > self._cursor_was else -1
            self._cursor_was = cursor
        ahead = cursor + self._step
        if 0 <= ahead < len(results.indices):
            nxt = int(results.indices[ahead])
            if self._key(nxt) not in self._found:
                self.show(nxt)

    def show(self, paper_index: int) -> None:
        """Five nearest papers in the reader, computed off the UI thread."""
        self._running, self._next = paper_index, None
        key = self._key(paper_index)
        self.view.run_in_thread(partial(self._show_in_thread, paper_index, key), group="similar")

    def _show_in_thread(self, paper_index: int, key: tuple[str, int]) -> None:
        started = time.perf_counter()
        worker = get_current_worker()
        titles: Titles | None = None
        try:
            sims = self.library.discovery.nearest(paper_index, 5, stop=lambda: worker.is_cancelled)
            self._lookup_seconds = time.perf_counter() - started
            titles = [(i, self.library.corpus.papers[i].title) for i, _ in sims]
        except Exception:  # never let the side panel break reading (a stopped lookup ends here too)
            pass
        if not worker.is_cancelled:
            self.view.app.call_from_thread(self._ended, paper_index, key, titles)

    def _ended(self, paper_index: int, key: tuple[str, int], titles: Titles | None) -> None:
        """A lookup ended (on the UI thread): its panel shown and kept, and then the paper the
        cursor moved to meanwhile looked up, or the next one ahead."""
        if self._running == paper_index:
            self._running = None
        if titles is not None and key == self._key(paper_index):  # (not from before an import)
            self._found[key] = titles
            self._found.move_to_end(key)
            while len(self._found) > FOUND_KEPT:
                self._found.popitem(last=False)
            self._show_titles(paper_index, titles)
        if self._running is None and self._next is not None:
            self.show(self._next)
        elif titles is not None:
            current = self.view.results.current_index
            if current is not None:
                self._look_ahead(current)

    def _show_titles(self, paper_index: int, titles: Titles) -> None:
        """:meth:`show`'s answer, on the UI thread, where the reader is looked up: it may be gone by
        then (the app closing as the lookup finished), and a worker that looked it up itself failed,
        taking the app down with a traceback."""
        for reader in self.view.readers():
            reader.show_similar(paper_index, titles)
