"""The main screen's triage and library actions: status, stars, undo and redo, notes, import,
removal, copying and links.

Each change goes through the screen's write queue (``tui.writes``), which never waits on
another process's lock in the UI thread; the screen repaints what shows the change.
"""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work

from store import Library, PapersiftError
from store.corpus import file_signature
from store.text import counted, display_safe

from ..clipboard import copy_text
from ..keymap import key_label
from ..render import plain_title
from ..widgets.reader import Reader
from .confirm import ConfirmScreen
from .mixin import ScreenMixin
from .note import NoteScreen

if TYPE_CHECKING:
    import numpy as np

    from store.search.result import SearchResult

    from ..widgets.results import ResultsList
    from ..writes import Writes


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


class TriageActions(ScreenMixin):
    """Mixin of :class:`~tui.screens.main.MainScreen`: what the triage keys do.

    Uses the screen's ``library``, ``writes``, ``results``, ``targets``, ``current_paper_id``,
    ``repaint`` and ``unsaved_notes``."""

    library: Library
    writes: Writes | None
    unsaved_notes: dict[str, str]
    query_text: str
    sort: str
    _own_import: tuple | None
    _triaged: np.ndarray | None

    if TYPE_CHECKING:  # the screen's own and another mixin's (stubs at run time would shadow them)
        @property
        def results(self) -> ResultsList: ...
        def current_paper_id(self) -> str | None: ...
        def targets(self) -> list[str]: ...
        def _selection(self) -> tuple[list[str], list[str]]: ...
        def _show_results(self, query: str, result: SearchResult, keep_paper: bool = False) -> None: ...
        def repaint(self, changed: list[str] | None = None) -> None: ...
        def _poll_other_processes(self) -> None: ...

    # -------------------------------------------------------------- triage
    def _apply(self, fn, advance: bool = False) -> None:
        many = bool(self.results.selected)
        shown, elsewhere = self._selection() if many else (self.targets(), [])
        ids = shown + elsewhere
        if not ids:
            return

        def landed(_result) -> None:
            if many:
                self.notify(f"applied to {counted(len(ids), 'selected paper')}"
                            + (f" ({len(elsewhere):,} of them not in this list)" if elsewhere else ""))
            self.repaint(ids)

        failed = self._write_failed
        queued: list[PapersiftError] = []

        def refused(exc: PapersiftError) -> None:
            failed(exc)
            queued.append(exc)

        assert self.writes is not None  # made on mount
        self.writes.submit(lambda: fn(ids), landed, refused)
        if queued:
            return  # refused (a tag that cannot be used, a full disk): no advance past it
        if many:
            self.results.clear_selection()
        settings = getattr(self.app, "settings", None)  # (a PapersiftApp's; not every app has settings)
        if advance and not many and settings and settings.advance_after_triage:
            self.results.action_cursor_down()

    def _write_failed(self, exc: PapersiftError) -> None:
        self.notify(str(exc), severity="error")

    def action_read(self) -> None:
        self._apply(lambda ids: self.library.set_status(ids, "read"), advance=True)

    def action_to_read(self) -> None:
        self._apply(lambda ids: self.library.set_status(ids, "to-read"), advance=True)

    def action_skipped(self) -> None:
        self._apply(lambda ids: self.library.set_status(ids, "skipped"), advance=True)

    def action_unread(self) -> None:
        self._apply(lambda ids: self.library.set_status(ids, "unread"))

    def action_star_up(self) -> None:
        self._apply(lambda ids: self.library.bump_star(ids, 1))

    def action_star_down(self) -> None:
        self._apply(lambda ids: self.library.bump_star(ids, -1))

    def action_undo(self) -> None:
        self._history_step(self.library.undo, "undo")

    def action_redo(self) -> None:
        """Make again what the last undo reverted (one undo too many), until a new change is made."""
        self._history_step(self.library.redo, "redo")

    def _history_step(self, step, verb: str) -> None:
        papers = len(self.library)

        def landed(label) -> None:
            self.notify(f"{verb}ne: {label}" if label else f"nothing to {verb}")
            if len(self.library) != papers:
                self._after_corpus_change()  # a removal undone or redone: papers came back or went
            self.repaint()
        assert self.writes is not None  # made on mount
        self.writes.submit(step, landed, self._write_failed)  # (a full disk, a damaged file: said)

    def action_import_files(self) -> None:
        from .importer import ImportScreen

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.notify(f"importing {path}…")
                self._import(path)

        self.app.push_screen(ImportScreen(getattr(self.app, "confinement", None)), chosen)

    @work(thread=True, group="import")
    def _import(self, path: Path) -> None:
        """Import as another process would: a second Library on this folder, in a thread. Its
        papers then arrive as another process's do (see :meth:`_poll_other_processes`). It holds the
        library lock only to merge and save (0.4 s for 2,610 papers into 29,100), so a triage key
        pressed meanwhile waits at most that long."""
        try:
            summary = Library(self.library.folder).import_paths([path], replace_sample=True)
        except (PapersiftError, OSError) as exc:  # a bad file is named with its line; nothing written
            self.app.call_from_thread(self.notify, f"nothing imported: {exc}", severity="error", timeout=15)
            return
        self.app.call_from_thread(self._imported, summary.line(), file_signature(self.library.corpus_path))

    def _imported(self, line: str, signature: tuple | None) -> None:
        self.notify(line, timeout=10)
        self._own_import = signature  # its papers arrive as another process's would, but unannounced
        self._poll_other_processes()

    def action_remove(self) -> None:
        """Remove the selection (or the highlighted paper) and its annotations, once confirmed."""
        ids = self.targets()
        if not ids:
            return
        annotated = sum(1 for i in ids if i in self.library.annotations)
        question = (f"Remove {counted(len(ids), 'paper')} from the library"
                    + (f", with the annotations of {annotated:,}" if annotated else "")
                    + f"? (a backup is taken; {key_label(self.app, 'main.undo')} brings them back)")

        def landed(n) -> None:
            self.notify(f"removed {counted(n, 'paper')}; {key_label(self.app, 'main.undo')} brings them back")
            self.results.clear_selection()
            self._after_corpus_change()

        def decided(yes: bool | None) -> None:
            if yes:
                assert self.writes is not None  # made on mount
                self.writes.submit(lambda: self.library.remove(ids), landed, self._write_failed)

        self.app.push_screen(ConfirmScreen(question), decided)

    def _after_corpus_change(self) -> None:
        """This library's own corpus changed (a removal, or its undo): search again at once (the
        list's rows point into the old corpus), repaint."""
        self._triaged = None
        self._show_results(self.query_text, self.library.search(self.query_text, sort=self.sort), keep_paper=True)
        self.repaint()

    def action_note(self) -> None:
        pid = self.current_paper_id()
        if pid is None:
            return
        paper = self.library.paper(pid)
        note = self.library.annotation(pid).note
        found = self.library.drafts.get(pid)
        if pid in self.unsaved_notes:  # neither saved nor kept on disk (a full disk): held here
            found = (self.unsaved_notes[pid], "")
        draft = found[0] if found and found[0] != note else None
        if found and draft is not None:  # (a draft is found's text)
            when = f"kept {found[1][:16].replace('T', ' ')} UTC" if found[1] else "not yet on disk"
            self.notify(f"restored your unsaved draft of this note ({when}); "
                        f"{key_label(self.app, 'note.cancel')} discards it")

        def keep_draft(text: str | None) -> None:
            try:
                if text is None:
                    self.library.drafts.drop(pid)
                else:
                    self.library.drafts.keep(pid, text)
            except OSError as exc:  # a full disk: the text stays here, in memory
                if text is None:
                    self.unsaved_notes.pop(pid, None)
                else:
                    self.unsaved_notes[pid] = text
                self.notify(f"could not keep a draft of this note: {exc}", severity="warning")
            else:
                self.unsaved_notes.pop(pid, None)

        def saved(text: str | None) -> None:
            if text is None:
                return

            def failed(exc: PapersiftError) -> None:
                self.unsaved_notes[pid] = text  # whatever the drafts file could take: never lost
                self.notify(f"{exc}; the note is kept as a draft (press {key_label(self.app, 'main.note')} "
                            "to try again)", severity="error")

            def landed(_result) -> None:
                keep_draft(None)
                self.notify("note saved")
                self.repaint()
            assert self.writes is not None  # made on mount
            self.writes.submit(lambda: self.library.set_note(pid, text), landed, failed)

        self.app.push_screen(NoteScreen(plain_title(paper.title), note, draft, keep_draft), saved)

    # ----------------------------------------------------- clipboard, links
    def _copy(self, text: str, what: str) -> None:
        where = copy_text(self.app, text)
        self.notify(f"copied {what} to the {where}")

    def action_copy_abstract(self) -> None:
        pid = self.current_paper_id()
        if pid:
            from ..render import render_abstract
            self._copy(render_abstract(self.library.paper(pid).abstract)[0].plain, "abstract")

    def action_copy_citation(self) -> None:
        pid = self.current_paper_id()
        if pid:
            from store.exchange.export import citation_line  # (not at start-up: it loads the export formats)
            self._copy(citation_line(self.library.paper(pid), self.library.annotation(pid)), "citation")

    def action_copy_ids(self) -> None:
        ids = self.targets()
        if ids:
            self._copy("\n".join(ids), counted(len(ids), "id"))

    def action_open_link(self) -> None:
        links = self.query_one(Reader).links
        if not links:
            self.notify("this paper has no link", severity="warning")
            return
        link = next((u for u in links if openable(u)), None)
        if link is None:  # a paper's url is its file's words: never handed to a browser unchecked
            self.notify(f"not opened: {display_safe(links[0], False)[:80]} is not an http(s) address "
                        "(only those are opened; it is shown in the reader)", severity="warning")
            return
        try:
            opened = webbrowser.open(link)
        except Exception:
            opened = False
        if opened:
            self.notify(f"opened {display_safe(link, False)}")
        else:
            self._copy(link, "link (no browser found)")
