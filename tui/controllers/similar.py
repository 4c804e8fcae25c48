"""More like this, and the model behind it.

The similarity model is built once the list is usable: in this process for a small library,
in a helper process (``python -m store.discovery.prepare``) for a big one, so the UI never
stalls; the papers like the highlighted one follow it in the reader once the cursor rests.
"""

from __future__ import annotations

import subprocess
import sys
import time
from functools import partial
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from .. import limits
from ..keymap import key_label

if TYPE_CHECKING:
    from textual.timer import Timer

    from store import Library

    from .view import MainView


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

    def more_like_this(self) -> None:
        """List the papers most like the highlighted one (escape returns to the full list)."""
        pid = self.view.current_paper_id()
        if pid and not self.library.similarity_ready and len(self.library) > limits.AUTO_MODEL_MAX:
            # A huge library: the model (minutes of work) is built on request, in the helper.
            if not self.view.working("prepare"):
                self.prepare()
            again = key_label(self.view.app, "main.more_like_this")
            self.view.notify(f"building the similarity model for {len(self.library):,} papers in the background; "
                             f"press {again} again when the reader shows “More like this”")
            return
        if pid:
            self.view.search_box.value = f"similar:{pid}"
            self.view.set_focus(self.view.results)

    def prepare(self) -> None:
        """Get the similarity model after the first paint, in a worker: from its cache, else built
        by a helper.

        The helper is a separate process (``python -m store.discovery.prepare``) for big
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
            lib.build_similarity_elsewhere(lambda: subprocess.run(
                [sys.executable, "-m", "store.discovery.prepare", str(lib.folder)], check=False,
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _ = lib.similarity  # (built, or loaded from the cache the helper wrote)

    def soon(self, paper_index: int) -> None:
        """Nearest papers for the reader once the cursor rests (big libraries).

        At 30k papers a lookup takes ~20 ms of CPU, much of it holding the GIL;
        run on every keystroke and every row passed while scrolling, it delayed
        the list's own repaint. Small libraries look up at once.
        """
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if len(self.library) <= limits.BIG_LIBRARY:
            self.show(paper_index)
        else:
            # While typing, a pause at least twice as long as a lookup takes: at 300k papers one
            # takes 0.2-0.4 s, mostly holding the GIL, and a key typed meanwhile waited for it
            # (the list and reader settled 126 ms after a typed key with the model ready, 86 ms
            # without). Moving through the list keeps the short wait: its keys were not held up.
            typing = self.view.focused is self.view.search_box
            delay = max(limits.SIMILAR_DELAY, 2 * self._lookup_seconds if typing else 0)
            self._timer = self.view.set_timer(delay, lambda: self.show(paper_index))

    def show(self, paper_index: int) -> None:
        """Five nearest papers in the reader, computed off the UI thread."""
        self.view.run_in_thread(partial(self._show_in_thread, paper_index), group="similar")

    def _show_in_thread(self, paper_index: int) -> None:
        started = time.perf_counter()
        try:
            sims = self.library.similarity.similar(paper_index, 5)
        except Exception:  # never let the side panel break reading
            return
        self._lookup_seconds = time.perf_counter() - started
        if get_current_worker().is_cancelled:
            return
        titles = [(i, self.library.corpus.papers[i].title) for i, _ in sims]
        self.view.app.call_from_thread(self._show_titles, paper_index, titles)

    def _show_titles(self, paper_index: int, titles: list[tuple[int, str]]) -> None:
        """:meth:`show`'s answer, on the UI thread, where the reader is looked up: it may be gone by
        then (the app closing as the lookup finished), and a worker that looked it up itself failed,
        taking the app down with a traceback."""
        for reader in self.view.readers():
            reader.show_similar(paper_index, titles)
