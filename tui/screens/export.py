"""The export dialog (x): pick a format, which papers, and where to — a file or the clipboard.

Which papers: the current list (query and filters as shown), the selection,
the to-read list, everything annotated, or the whole library. Writing uses the
store's atomic writer; exporting never changes the library.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual import on
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet

from store import Library
from store.files.atomic import atomic_write_text
from store.errors import WriteFailedError
from store.formats import EXPORTS as FORMATS
from store.exchange.export import EXTENSIONS, export_text
from store.locations import in_a_library
from store.wording import counted

from ..clipboard import copy_text
from ..compat import PickedRadioSet
from ..confine import Confinement
from ..keymap import binding, key_label
from ..widgets.footer import Footer
from .confirm import ConfirmScreen

if TYPE_CHECKING:
    from store.formats.records import Pair

    from ..host import ExportSource

FORMAT_LABELS = {"md": "Markdown reading list", "csv": "CSV", "json": "JSON", "jsonl": "JSON Lines",
                 "bibtex": "BibTeX", "org": "Org-mode", "csl-json": "CSL-JSON (Zotero)", "ris": "RIS (Zotero)"}
SCOPES = (("list", "the current list"), ("selection", "the selected papers"), ("to-read", "my to-read list"),
          ("annotated", "everything I annotated"), ("all", "the whole library"))


EMPTY = {"list": "the current list is empty", "selection": "no paper is selected",
         "to-read": "nothing is marked to read", "annotated": "no paper is annotated", "all": "the library is empty"}


class Choice(RadioButton):
    """A radio button whose pick shows by its shape too (● picked, ○ not): Textual draws both as
    ● in two colours, which a terminal without colour, or a screen reader's text, cannot tell apart."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # noqa: N802 (Textual's class constant, read per render)
        return "●" if self.value else "○"


class ExportScreen(ModalScreen[str | None]):
    """Dismisses with a description of what was exported, or None."""

    BINDINGS = [binding("export.run", "Export"), binding("export.cancel", "Cancel")]
    DEFAULT_CSS = """
    ExportScreen { align: center middle; }
    ExportScreen > Vertical { width: 84; max-width: 100%; height: auto; max-height: 95%; border: thick $accent; background: $surface; padding: 0 1; }
    ExportScreen Horizontal { height: auto; }
    ExportScreen RadioSet { width: 1fr; }
    ExportScreen #dest-row { margin-top: 1; }
    ExportScreen #dest { width: 1fr; }
    ExportScreen #dest-row Button { margin-left: 1; min-width: 10; }
    """

    def __init__(self, library: Library, main_screen: ExportSource) -> None:
        super().__init__()
        self.library = library
        self.main_screen = main_screen

    def compose(self) -> ComposeResult:
        with Vertical():
            run, cancel = key_label(self.app, "export.run"), key_label(self.app, "export.cancel")
            yield Label(f"[b]Export[/b]   [dim]tab moves · space picks · {run} exports · {cancel} cancels[/dim]")
            # The library's last export is offered again (a reading list is exported more than once),
            # and the dialog says so; papers selected now are what a person means to export.
            last = self.app.last_export() if hasattr(self.app, "last_export") else {}
            fmt = last["format"] if last.get("format") in FORMATS else FORMATS[0]
            scope, why = self._scope(last.get("scope"))
            with Horizontal():
                with PickedRadioSet(id="format"):
                    for key in FORMATS:
                        yield Choice(FORMAT_LABELS[key], value=key == fmt, id=f"fmt-{key}")
                with PickedRadioSet(id="scope"):
                    sizes = self._scope_sizes()
                    for key, label in SCOPES:
                        yield Choice(f"{label} ({sizes[key]:,})", value=key == scope, id=f"scope-{key}")
            if why:
                yield Label(why, id="scope-why", markup=False)
            yield Label("Destination: a file path, or [b]clipboard[/b]", id="dest-label")
            if self.confinement:
                yield Label(f"Browser session: files only in {self.confinement.describe()}",
                            id="dest-confined", markup=False)
            dest = last.get("dest")
            if dest and dest.lower() != "clipboard" and not self.confinement.allows(Path(dest)):
                dest = None
            with Horizontal(id="dest-row"):  # (the buttons beside the path: the dialog fits in 24 lines)
                yield Input(value=dest or self._default_path(fmt), id="dest")
                yield Button("Export", variant="primary", id="run")
                yield Button("Cancel", id="cancel")
        yield Footer()  # this dialog's keys, over the main screen's

    def on_mount(self) -> None:
        self.query_one("#format", RadioSet).focus()

    @property
    def confinement(self) -> Confinement:
        return getattr(self.app, "confinement", None) or Confinement()

    def _default_path(self, fmt: str) -> str:
        """A new file in the folder papersift was started in (where its user works, as the CLI's
        ``--output`` is; a browser session's: its exports folder), named after the library."""
        folder = self.confinement.default_folder() or Path.cwd()
        return str(folder / f"papersift-{self.library.name}{EXTENSIONS[fmt]}")

    def _chosen(self, set_id: str, prefix: str) -> str:
        pressed = self.query_one(f"#{set_id}", RadioSet).pressed_button
        return (pressed.id or "").removeprefix(prefix) if pressed else ""

    def _scope_sizes(self) -> dict[str, int]:
        """How many papers each choice of papers holds (what the dialog shows beside each)."""
        results = getattr(self.main_screen, "results", None)
        corpus = self.library.corpus
        annotated = [a for pid, a in self.library.annotations.items() if corpus.index_of(pid) is not None]
        listed = 0 if results is None else len(results.indices[:results.full])  # (as _pairs takes them)
        return {"list": listed,
                "selection": len(results.selected) if results is not None else 0,
                "to-read": sum(1 for a in annotated if a.status == "to-read"),
                "annotated": len(annotated), "all": len(self.library)}

    def _scope(self, last: object) -> tuple[str, str]:
        """Which papers the dialog starts on, and a line saying why when it is not the default:
        the selection, else the last export's choice, else the to-read list, or the current list
        while nothing is marked to read."""
        picked = len(self.main_screen.results.selected) if hasattr(self.main_screen, "results") else 0
        if picked:
            return "selection", f"Which papers: the {counted(picked, 'selected paper')}"
        if last in dict(SCOPES) and last != "selection":
            return str(last), ("" if last == "to-read" else f"Which papers: {dict(SCOPES)[str(last)]}, as your last export")
        if self._scope_sizes()["to-read"] == 0 and hasattr(self.main_screen, "results"):
            return "list", "Which papers: the current list (nothing is marked to read yet)"
        return "to-read", ""

    @on(RadioSet.Changed, "#format")
    def _format_changed(self) -> None:
        """Another format: the destination's extension follows it, and a path typed keeps its
        folder and name (one with an extension of no format is left as typed)."""
        dest = self.query_one("#dest", Input)
        fmt = self._chosen("format", "fmt-")
        typed = dest.value.strip()
        if not typed:
            dest.value = self._default_path(fmt)
        elif typed.lower() != "clipboard":
            path = Path(typed)
            # The longest ending a format's: .csl.json is CSL-JSON's whole (with .json alone, RIS
            # after CSL-JSON named the file papersift-lib.csl.ris).
            ending = next((e for e in sorted({*EXTENSIONS.values(), ".txt", ".markdown"}, key=len, reverse=True)
                           if path.name.lower().endswith(e) and len(path.name) > len(e)), None)
            if ending is not None:
                dest.value = str(path.with_name(path.name[:-len(ending)] + EXTENSIONS[fmt]))

    def _pairs(self, scope: str) -> list[Pair]:
        """The papers of a scope with their marks, a lab's every member's too (Library.pairs: the
        current list and "everything I annotated" had left them out)."""
        lib = self.library
        if scope == "list":
            results = self.main_screen.results  # the result set, not the weaker matches below it
            ids = lib.corpus.ids()
            return lib.pairs(ids=[ids[int(i)] for i in results.indices[:results.full]])
        if scope == "selection":
            ids = self.main_screen.triage.targets() if self.main_screen.results.selected else []
            return lib.pairs(ids=ids)
        if scope == "to-read":
            return lib.pairs("status:to-read")
        if scope == "annotated":  # in library order, parsing only those papers (not all 300k)
            found = sorted(i for i in map(lib.corpus.index_of, lib.annotations) if i is not None)
            ids = lib.corpus.ids()
            return lib.pairs(ids=[ids[i] for i in dict.fromkeys(found)])
        return lib.pairs("")

    @on(Button.Pressed, "#run")
    @on(Input.Submitted, "#dest")
    def action_run(self) -> None:
        fmt = self._chosen("format", "fmt-") or "md"
        scope = self._chosen("scope", "scope-") or "to-read"
        pairs = self._pairs(scope)
        if not pairs:
            self.notify(f"nothing to export: {EMPTY[scope]}", severity="warning")
            return
        text = export_text(pairs, fmt, library_name=self.library.name)
        what = f"exported {counted(len(pairs), 'paper')} as {FORMAT_LABELS[fmt]}"
        dest = self.query_one("#dest", Input).value.strip()
        if not dest:
            self.notify("type a file path, or clipboard", severity="error")
            return
        if dest.lower() == "clipboard":
            self._choice = (fmt, scope, dest)  # remembered once the export is done
            self._done(f"{what} to the {copy_text(self.app, text)}")
            return
        path = Path(dest).expanduser().absolute()  # (a relative name: where the app was started, said and kept so)
        self._choice = (fmt, scope, str(path))
        if (named := _format_named(path.name)) is not None and named != fmt:  # (BibTeX written to annot.md)
            self.notify(f"{path.name} ends as {FORMAT_LABELS[named]}, and {FORMAT_LABELS[fmt]} is chosen: choose "
                        f"{FORMAT_LABELS[named]}, or end the name with {EXTENSIONS[fmt]}", severity="error")
        elif refused := self.confinement.refusal(path):
            self.notify(refused, severity="error")
        elif path.is_dir():
            self.notify(f"{path} is a folder: name a file in it", severity="error")
        elif (blocking := next((p for p in path.parents if p.exists()), None)) is not None and not blocking.is_dir():
            self.notify(f"{blocking} is a file, not a folder", severity="error")
        elif not path.parent.is_dir():  # a folder named for the export, as a shell's mkdir -p would make it
            self.app.push_screen(ConfirmScreen(f"{path.parent} does not exist. Create it and export there?"),
                                 lambda yes: self._write(path, text, what, make_folder=True) if yes else None)
        elif path.exists():  # an earlier export the user may have edited: ask first
            self.app.push_screen(ConfirmScreen(f"{path} exists. Replace it?"),
                                 lambda yes: self._write(path, text, what) if yes else None)
        else:
            self._write(path, text, what)

    def _write(self, path: Path, text: str, what: str, make_folder: bool = False) -> None:
        was_link = path.is_symlink()  # (now, not when "Replace it?" was asked: a link swapped in meanwhile)
        try:
            if make_folder:
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise WriteFailedError(path.parent, exc) from exc
            # a new file renamed over the target: never through a link; made to be handed on (the
            # umask's permissions), but private in a library's folder, as its files are
            atomic_write_text(path, text, shared=not in_a_library(Path(os.path.abspath(path))))
        except WriteFailedError as exc:  # every OSError of the atomic write: it names the file itself
            self.notify(str(exc), severity="error")
            return
        through = " (it replaced a link there; what the link led to is unchanged)" if was_link else ""
        self._done(f"{what} to {path}{through}")

    def _done(self, message: str) -> None:
        if hasattr(self.app, "remember_export"):
            self.app.remember_export(*self._choice)
        self.notify(message)  # notices are plain text (see PapersiftApp.notify)
        self.dismiss(message)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


def _format_named(name: str) -> str | None:
    """The export format a file's last ending names (``.md``, ``.bib``; ``.markdown`` too), or
    None (``.txt``, no ending). ``.json`` names JSON and CSL-JSON alike (Zotero reads CSL-JSON
    from a .json file): None for it when CSL-JSON's own ending is not there either."""
    suffix = Path(name).suffix.lower()
    if suffix == ".markdown":
        return "md"
    if suffix == ".json":
        return "csl-json" if name.lower().endswith(EXTENSIONS["csl-json"]) else None
    return next((fmt for fmt, ext in EXTENSIONS.items() if ext == suffix), None)
