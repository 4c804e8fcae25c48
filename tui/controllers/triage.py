"""What the triage keys do: status, stars, undo and redo, notes, import and removal.

Each change goes through the screen's write queue (``tui.writes``), which never waits on
another process's lock in the UI thread; the screen repaints what shows the change.
"""

from __future__ import annotations

from functools import partial
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from store import Library, PapersiftError
from store.library import HistoryStep
from store.corpus import file_signature
from store.wording import counted
from store.safe_text import display_safe

from ..keymap import key_label
from ..render import one_paper_said, plain_title
from ..screens.confirm import ConfirmScreen
from ..screens.note import NoteScreen

if TYPE_CHECKING:
    from .search import Searching
    from .sync import Sync
    from .view import MainView


class Triage:
    """The triage keys, on the highlighted paper or the selection.

    Args:
        library: what is changed.
        view: the main screen (its list, write queue and repaint).
        search: the search controller (a removal searches again at once).
        sync: the cross-process sync (an import's papers arrive through it).
    """

    def __init__(self, library: Library, view: MainView, search: Searching, sync: Sync) -> None:
        self.library = library
        self.view = view
        self.search = search
        self.sync = sync

    # ------------------------------------------------------- what is acted on
    def current_paper_id(self) -> str | None:
        """The highlighted paper's id (None in an empty list)."""
        idx = self.view.results.current_index
        return self.library.corpus.papers[idx].id if idx is not None else None

    def targets(self) -> list[str]:
        """The selection if there is one, else the highlighted paper."""
        if self.view.results.selected:
            shown, elsewhere = self.selection()
            return shown + elsewhere
        pid = self.current_paper_id()
        return [pid] if pid else []

    def selection(self) -> tuple[list[str], list[str]]:
        """The selected papers in the current list (in list order) and those elsewhere (library
        order): a selection may be gathered over several searches."""
        results, corpus = self.view.results, self.library.corpus
        selected = results.selected
        shown = [pid for pid in results.shown_ids() if pid in selected]
        elsewhere = sorted(i for i in map(corpus.index_of, selected.difference(shown)) if i is not None)
        return shown, [corpus.papers[i].id for i in elsewhere]

    # -------------------------------------------------------------- triage
    def apply(self, fn: Callable[[list[str]], object], advance: bool = False, what: str = "",
              unchanged: str = "") -> None:
        """Make ``fn(ids)`` on the selection (or the highlighted paper) through the write queue.

        On a selection, the notice says what was done to how many papers (``what``: "marked read"),
        and the selection stays, to be acted on again or cleared with the clear key. ``unchanged``:
        what to say when ``fn`` changed no paper (it returns how many it changed), where nothing
        else would show that the key was taken ("already unread")."""
        results = self.view.results
        many = bool(results.selected)
        shown, elsewhere = self.selection() if many else (self.targets(), [])
        ids = shown + elsewhere
        if not ids:
            return
        settings = getattr(self.view.app, "settings", None)  # (a PapersiftApp's; not every app has settings)
        advancing = bool(advance and not many and settings and settings.advance_after_triage)
        at_once = [True]  # (landed while submit runs, the lock free: the advance below comes in the same frame)
        done = [False]

        def landed(result: object) -> None:
            done[0] = True
            if unchanged and result == 0:
                self.view.notify(unchanged)
            elif many:
                clear = key_label(self.view.app, "list.clear_filter")
                self.view.notify(f"{what or 'done'}: {counted(len(ids), 'selected paper')}"
                                 + (f" ({len(elsewhere):,} of them not in this list)" if elsewhere else "")
                                 + f" · still selected ({clear}{' twice' if self.view.search_box.value else ''}"
                                 " clears the selection)")
            self.view.repaint(ids, reader=not (advancing and at_once[0]))  # (the advance shows the next paper)

        queued: list[PapersiftError] = []

        def refused(exc: PapersiftError) -> None:
            self.write_failed(exc)
            queued.append(exc)

        assert self.view.writes is not None  # made on mount
        self.view.writes.submit(lambda: fn(ids), landed, refused)
        at_once[0] = False
        if queued:
            return  # refused (a tag that cannot be used, a full disk): no advance past it
        if advancing:
            was = results.current_index
            results.action_cursor_down()
            if done[0] and results.current_index == was:  # the last row: the paper stays, shown with its change
                self.view.show_current()

    def write_failed(self, exc: PapersiftError) -> None:
        self.view.notify(str(exc), severity="error")

    def set_status(self, status: str) -> None:
        """Mark read, to-read or skipped (then advance, as configured), or unread."""
        self.apply(lambda ids: self.library.marks.set_status(ids, status), advance=status != "unread",
                   what=f"marked {status}", unchanged="already unread" if status == "unread" else "")

    def bump_star(self, step: int) -> None:
        self.apply(lambda ids: self.library.marks.bump_star(ids, step), what="a star more" if step > 0 else "a star less",
                   unchanged="already ★★★, the most" if step > 0 else "no star to take off")

    def undo(self) -> None:
        """Undo the last change, and show the paper it changed (the cursor stays where it is when
        that paper is the highlighted one, or one of a selection's that is)."""
        self._history_step(self.library.undo_step, "undo")

    def redo(self) -> None:
        """Make again what the last undo reverted (one undo too many), until a new change is made."""
        self._history_step(self.library.redo_step, "redo")

    def _history_step(self, step: Callable[[], HistoryStep | None], verb: str) -> None:
        papers = len(self.library)
        shown = self.current_paper_id()

        def landed(made: object) -> None:
            assert made is None or isinstance(made, HistoryStep)
            self.view.notify(f"{verb}ne: {made.label}{one_paper_said(self.library, made.papers)}" if made
                             else f"nothing to {verb}")
            changed = made.papers if made else []
            if len(self.library) != papers:  # a removal undone or redone: papers came back or went
                corpus = self.library.corpus
                here = [pid for pid in (*changed, shown) if pid and corpus.index_of(pid) is not None]
                self._after_corpus_change(here[0] if here else None)  # (a paper back, else the one shown)
            elif changed and self.current_paper_id() not in changed:
                self._show_first(changed)
            self.view.repaint()
        assert self.view.writes is not None  # made on mount
        self.view.writes.submit(step, landed, self.write_failed)  # (a full disk, a damaged file: said)

    def _show_first(self, ids: list[str]) -> None:
        """Move the cursor to the first of these papers that the list shows."""
        corpus = self.library.corpus
        for pid in ids:
            idx = corpus.index_of(pid)
            if idx is not None and self.view.results.move_to_paper(idx):
                return

    # ---------------------------------------------------- import and removal
    def import_files(self) -> None:
        """Ask for a file or folder, then import it in a thread."""
        from ..screens.import_dialog import ImportScreen

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.view.notify(f"importing {path}…")
                self.import_path(path)

        self.view.app.push_screen(ImportScreen(getattr(self.view.app, "confinement", None)), chosen)

    def import_path(self, path: Path) -> None:
        """Import as another process would: a second Library on this folder, in a thread. Its
        papers then arrive as another process's do (see :meth:`Sync.poll`). It holds the
        library lock only to merge and save (0.4 s for 2,610 papers into 29,100), so a triage key
        pressed meanwhile waits at most that long."""
        self.view.run_in_thread(partial(self._import_in_thread, path), group="import", exclusive=False)

    def _import_in_thread(self, path: Path) -> None:
        try:
            summary = Library(self.library.folder).paper_changes.import_paths([path], replace_sample=True)
        except (PapersiftError, OSError) as exc:  # a bad file is named with its line; nothing written
            self.view.app.call_from_thread(self.view.notify, f"nothing imported: {exc}", severity="error",
                                           timeout=15)
            return
        self.view.app.call_from_thread(self.sync.imported, summary, file_signature(self.library.corpus_path))

    def remove(self) -> None:
        """Remove the selection (or the highlighted paper) and its annotations, once confirmed."""
        ids = self.targets()
        if not ids:
            return
        app = self.view.app
        annotated = sum(1 for i in ids if i in self.library.annotations)
        question = (f"Remove {self._named(ids)} from the library"
                    + ((", with its annotations" if len(ids) == 1 else f", with the annotations of {annotated:,} of them")
                       if annotated else "") + self.library.team.also_held(ids)
                    + f"? (a backup is taken; {key_label(app, 'main.undo')} brings {'it' if len(ids) == 1 else 'them'} back)")

        stay: str | None = None  # the paper highlighted after: chosen once the removal is confirmed

        def landed(n: object) -> None:
            removed = n if isinstance(n, int) else len(ids)
            self.view.notify(f"removed {counted(removed, 'paper')}; {key_label(app, 'main.undo')} brings "
                             f"{'it' if removed == 1 else 'them'} back")
            self.view.results.clear_selection()
            self._after_corpus_change(stay)

        def decided(yes: bool | None) -> None:
            nonlocal stay
            if yes:
                stay = self._kept_near(set(ids))
                assert self.view.writes is not None  # made on mount
                self.view.writes.submit(lambda: self.library.remove(ids), landed, self.write_failed)

        app.push_screen(ConfirmScreen(question), decided)

    def _named(self, ids: list[str], shown: int = 3) -> str:
        """The papers a question is about, by title: “Title” for one; "3 papers: “A”, “B”, “C”, …"
        for several (a selection's papers need not be the one the reader shows)."""
        def title(pid: str) -> str:
            text = display_safe(plain_title(self.library.paper(pid).title), False)
            return f"“{text[:60] + '…' if len(text) > 60 else text}”"
        if len(ids) == 1:
            return title(ids[0])
        more = ", …" if len(ids) > shown else ""
        return f"{counted(len(ids), 'paper')}: {', '.join(title(pid) for pid in ids[:shown])}{more}"

    def _kept_near(self, going: set[str]) -> str | None:
        """The paper to highlight once ``going`` are removed: the highlighted one if it stays, else
        the nearest that stays below it in the list, else above."""
        results, papers = self.view.results, self.library.corpus.papers
        cursor = results.cursor
        for row in chain(range(cursor, len(results.indices)), range(cursor - 1, -1, -1)):
            pid = papers[int(results.indices[row])].id  # (a few rows: the walk stops at the first kept)
            if pid not in going:
                return pid
        return None

    def _after_corpus_change(self, stay: str | None = None) -> None:
        """This library's own corpus changed (a removal, or its undo): search again at once (the
        list's rows point into the old corpus; ``stay``: the paper to keep highlighted), repaint."""
        if stay is not None:
            self.view.stay_on(stay)
        self.view.corpus_changed()
        query = self.search.query_text
        self.view.show_results(query, self.library.search.find(query, sort=self.view.sort), keep_paper=True)
        self.view.repaint()

    # ------------------------------------------------------------------ notes
    def note(self) -> None:
        """Edit the highlighted paper's note (a draft kept as it is typed is offered back)."""
        pid = self.current_paper_id()
        if pid is None:
            return
        app, unsaved = self.view.app, self.view.unsaved_notes
        paper = self.library.paper(pid)
        note = self.library.annotation(pid).note
        found = self.library.drafts.get(pid)
        if pid in unsaved:  # neither saved nor kept on disk (a full disk): held here
            found = (unsaved[pid], "")
        draft = found[0] if found and found[0] != note else None
        if found and draft is not None:  # (a draft is found's text)
            when = f"kept {found[1][:16].replace('T', ' ')} UTC" if found[1] else "not yet on disk"
            self.view.notify(f"restored your unsaved draft of this note ({when}); "
                             f"{key_label(app, 'note.cancel')} discards it")

        def keep_draft(text: str | None) -> None:
            try:
                if text is None:
                    self.library.drafts.drop(pid)
                else:
                    self.library.drafts.keep(pid, text)
            except OSError as exc:  # a full disk: the text stays here, in memory
                if text is None:
                    unsaved.pop(pid, None)
                else:
                    unsaved[pid] = text
                self.view.notify(f"could not keep a draft of this note: {exc}", severity="warning")
            else:
                unsaved.pop(pid, None)

        def saved(text: str | None) -> None:
            if text is None:
                return

            def failed(exc: PapersiftError) -> None:
                unsaved[pid] = text  # whatever the drafts file could take: never lost
                self.view.notify(f"{exc}; the note is kept as a draft (press {key_label(app, 'main.note')} "
                                 "to try again)", severity="error")
                self.view.repaint()  # (the reader shows the note saved elsewhere)

            def landed(_result: object) -> None:
                keep_draft(None)
                self.view.notify("note saved" if text.strip() else "note cleared" if note.strip()
                                 else "no note to save")
                self.view.repaint()
            assert self.view.writes is not None  # made on mount
            self.view.writes.submit(lambda: self.library.marks.set_note(pid, text, was=note), landed, failed)

        app.push_screen(NoteScreen(plain_title(paper.title), note, draft, keep_draft), saved)
