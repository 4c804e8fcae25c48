"""More like this on the main screen, and the model behind it.

The similarity model is built once the list is usable: in this process for a small library,
in a helper process (``python -m store.discovery.prepare``) for a big one, so the UI never
stalls; the papers like the highlighted one follow it in the reader once the cursor rests.
"""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

from textual import work
from textual.worker import get_current_worker

from ..keymap import key_label
from ..widgets.reader import Reader
from ..widgets.searchbox import SearchBox
from . import limits
from .mixin import ScreenMixin

if TYPE_CHECKING:
    from textual.timer import Timer

    from store import Library

    from ..widgets.results import ResultsList


class SimilarPapers(ScreenMixin):
    """Mixin of :class:`~tui.screens.main.MainScreen`: more like this and the model's lifecycle.

    Uses the screen's ``library``, ``results`` and ``_similar_timer``."""

    library: Library
    _similar_timer: Timer | None

    if TYPE_CHECKING:  # the screen's own and another mixin's (stubs at run time would shadow them)
        @property
        def results(self) -> ResultsList: ...
        def current_paper_id(self) -> str | None: ...
        def _show_current(self) -> None: ...

    def action_more_like_this(self) -> None:
        """List the papers most like the highlighted one (escape returns to the full list)."""
        pid = self.current_paper_id()
        if pid and not self.library.similarity_ready and len(self.library) > limits.AUTO_MODEL_MAX:
            # A huge library: the model (minutes of work) is built on request, in the helper.
            if not any(w.group == "prepare" and w.is_running for w in self.workers):
                self.prepare_similarity()
            again = key_label(self.app, "main.more_like_this")
            self.notify(f"building the similarity model for {len(self.library):,} papers in the background; "
                        f"press {again} again when the reader shows “More like this”")
            return
        if pid:
            self.query_one(SearchBox).value = f"similar:{pid}"
            self.set_focus(self.results)

    @work(exclusive=True, thread=True, group="prepare")
    def prepare_similarity(self) -> None:
        """Get the similarity model after the first paint: from its cache, else built by a helper.

        The helper is a separate process (``python -m store.discovery.prepare``) for big
        libraries, so the SVD uses another core and neither its memory nor the
        GIL is taken from the app while the user types; if it fails, the model
        is built here instead.
        """
        try:
            self.ensure_model()
        except Exception:
            return
        self.app.call_from_thread(self._show_current)

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

    def _similar_soon(self, paper_index: int) -> None:
        """Nearest papers for the reader once the cursor rests (big libraries).

        At 30k papers a lookup takes ~20 ms of CPU, much of it holding the GIL;
        run on every keystroke and every row passed while scrolling, it delayed
        the list's own repaint. Small libraries look up at once.
        """
        if self._similar_timer is not None:
            self._similar_timer.stop()
            self._similar_timer = None
        if len(self.library) <= limits.BIG_LIBRARY:
            self.show_similar(paper_index)
        else:
            self._similar_timer = self.set_timer(limits.SIMILAR_DELAY, lambda: self.show_similar(paper_index))

    @work(exclusive=True, thread=True, group="similar")
    def show_similar(self, paper_index: int) -> None:
        """Five nearest papers in the reader, computed off the UI thread."""
        try:
            sims = self.library.similarity.similar(paper_index, 5)
        except Exception:  # never let the side panel break reading
            return
        if get_current_worker().is_cancelled:
            return
        titles = [(i, self.library.corpus.papers[i].title) for i, _ in sims]
        self.app.call_from_thread(self._show_similar_titles, paper_index, titles)

    def _show_similar_titles(self, paper_index: int, titles: list[tuple[int, str]]) -> None:
        """:meth:`show_similar`'s answer, on the UI thread, where the reader is looked up: it may be
        gone by then (the app closing as the lookup finished), and a worker that looked it up
        itself failed, taking the app down with a traceback."""
        for reader in self.query(Reader):
            reader.show_similar(paper_index, titles)
