"""The import dialog (i): a file or folder to import without leaving the app.

The dialog only asks for the path (completing file names as you type, ``right`` accepts) and
checks that it exists; :class:`~tui.screens.main.MainScreen` runs the import as another
process's would, so the screen never waits for it and a bad file changes nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual import on
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input, Label

from ..confine import Confinement
from ..keymap import TypingKeys, binding, key_label
from ..widgets.footer import Footer


class PathSuggester(Suggester):
    """Completes the last part of a path from its folder's entries (a folder gets a trailing
    separator; hidden entries only once a '.' is typed; several entries: as far as they agree)."""

    def __init__(self, confinement: Confinement | None = None) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.confinement = confinement or Confinement()

    async def get_suggestion(self, value: str) -> str | None:
        if not value.strip():
            return None
        typed = Path(value).expanduser()
        folder, stem = (typed, "") if value.endswith(os.sep) else (typed.parent, typed.name)
        if not self.confinement.allows(folder):
            return None  # a browser session lists no folder outside its own
        matches = entries_starting(folder, stem)
        if not matches:
            return None
        # Several: as far as they agree first (icml2024 for icml2024.jsonl and icml2024_dump.txt),
        # so that → never picks one of them unseen; once they part, the first.
        shared = os.path.commonprefix(matches)
        name = shared if len(matches) > 1 and len(shared) > len(stem) else matches[0]
        done = value[:len(value) - len(stem)] + name
        return done + (os.sep if name in matches and (folder / name).is_dir() else "")


def entries_starting(folder: Path, stem: str) -> list[str]:
    """A folder's entries whose names go on from ``stem`` (hidden ones only once a '.' is typed)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [name for name in names
            if name.startswith(stem) and name != stem and (stem.startswith(".") or not name.startswith("."))]


class ImportInput(TypingKeys, Input):
    """The path box: its keys act on the dialog (see keymap.binding)."""

    BINDINGS = [binding("import.run", "Import", action="screen.run"),
                binding("import.cancel", "Cancel", action="screen.cancel")]


class ImportScreen(ModalScreen[Path | None]):
    """Dismisses with an existing file or folder, or None."""

    DEFAULT_CSS = """
    ImportScreen { align: center middle; }
    ImportScreen > Vertical { width: 84; max-width: 100%; height: auto; border: thick $accent; background: $surface; padding: 0 1; }
    ImportScreen Label { width: 100%; }
    ImportScreen #import-error { color: $error; }
    """

    def __init__(self, confinement: Confinement | None = None) -> None:
        super().__init__()
        self.confinement = confinement or Confinement()

    def compose(self) -> ComposeResult:
        confined = self.confinement
        with Vertical():
            run, cancel = key_label(self.app, "import.run"), key_label(self.app, "import.cancel")
            yield Label(f"[b]Import[/b]   [dim]a file or folder · → completes · {run} imports · {cancel} cancels[/dim]")
            yield Label("Dumps, JSON/JSON Lines (OpenReview too), CSV, BibTeX, RIS, arXiv (.xml); a folder: "
                        "every such file in it. Duplicates are merged; nothing you annotated changes.", classes="dim")
            if confined:
                yield Label(f"Browser session: only files in {confined.describe()}", id="import-confined",
                            markup=False)
            start = f"{confined.default_folder()}{os.sep}" if confined else ""
            yield ImportInput(value=start, placeholder="~/abstracts/neurips.txt",
                              suggester=PathSuggester(confined), id="import-path")
            yield Label("", id="import-error")
        yield Footer()  # this dialog's keys, over the main screen's

    def on_mount(self) -> None:
        self.query_one(ImportInput).focus()

    def action_run(self) -> None:
        value = self.query_one(ImportInput).value.strip()
        if not value:
            self.query_one("#import-error", Label).update(Text("type the path of a file or folder to import"))
            return
        path = Path(value).expanduser()
        if refused := self.confinement.refusal(path):  # first: a refused path is refused, there or not
            self.query_one("#import-error", Label).update(Text(refused))
            return
        if not path.exists():
            # The name typed so far with a suggestion shown after it (→ took the part its candidates
            # share): one candidate is what the box shows, and is taken; several are named.
            near = [] if value.endswith(os.sep) else entries_starting(path.parent, path.name)
            if len(near) != 1 or self.confinement.refusal(path.parent / near[0]):
                more = f" (did you mean {' or '.join(near[:3])}{' or …' if len(near) > 3 else ''}? → completes)" if near else ""
                self.query_one("#import-error", Label).update(Text(f"no such file or folder: {path}{more}"))
                return
            path = path.parent / near[0]
        from store.ingest.parse import import_problem
        if problem := import_problem(path):  # (said here, where the path is put right: not in a notice)
            self.query_one("#import-error", Label).update(Text(problem))
            return
        self.dismiss(path)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Changed, "#import-path")
    def _typed(self) -> None:
        """What was said of the path before is about another path now."""
        self.query_one("#import-error", Label).update("")
