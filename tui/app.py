"""The papersift Textual app and the one factory that builds it.

The App is thin: it applies the keymap, owns settings (theme, sort,
advance-after-triage), and shows the main screen. ``make_app`` is used by the
CLI, the tests and the benchmarks alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode
from textual.notifications import SeverityLevel
from textual.screen import Screen

from store import Library
from store.locations import user_keymap_path
from store.versions import TITLE_RULES
from store.wording import counted

from .commands import ActionsProvider
from .confine import Confinement
from .keyqueue import SerialKeys
from .compat import PlainQuitHint, live_keymap, quicker_frames
from .keymap import binding, key_label, load_keymap
from .screens.help import HelpScreen
from .screens.main import MainScreen
from .settings import Settings


class PapersiftApp(SerialKeys, PlainQuitHint, App[None]):
    TITLE = "papersift"
    COMMANDS = App.COMMANDS | {ActionsProvider}
    BINDINGS = [
        binding("app.quit", "Quit"),
        binding("app.help", "Help"),
        binding("app.export", "Export"),
        binding("app.dashboard", "Dashboard", show=False),
        binding("app.team", "Team", show=False),
    ]

    def __init__(self, library: Library, keymap: dict[str, str], keymap_problems: list[str],
                 settings: Settings, settings_path: Path | None = None, resume: bool = True) -> None:
        quicker_frames()  # (before any of its screens starts its frame clock)
        super().__init__()
        self.library = library
        self.keymap_problems = keymap_problems
        self.settings = settings
        self.settings_path = settings_path
        self.resume = resume  # start where this library was left (papersift --fresh: at the top)
        self.new_since_visit = (0, 0)  # (papers new since the last visit, the batch seen then): set on mount
        self.updated_since_visit = 0  # papers a newer version replaced since the last visit
        self._loaded_keymap = keymap
        self.main_screen = MainScreen(library)
        self.startup_notices: list[str] = []  # e.g. what `papersift FILE...` imported before the app opened
        self.first_start = False  # a library just made, holding the bundled sample abstracts
        self.confinement = Confinement()  # a browser session's dialogs: only its folders (see make_app)

    def on_mount(self) -> None:
        self.new_since_visit = self._count_new_since_visit()
        self.set_keymap(self._loaded_keymap)
        if self.settings.theme in self.available_themes:
            self.theme = self.settings.theme
        self.push_screen(self.main_screen)
        for problem in self.keymap_problems:
            self.notify(problem, title="keymap", severity="error", timeout=15)
        for notice in self.startup_notices:
            self.notify(notice, timeout=10)
        if self.first_start:
            self.notify(f"a new library, with papersift's {counted(len(self.library), 'sample abstract')} "
                        f"(NeurIPS 2026): press {key_label(self, 'main.import_files')} to import your own dump "
                        f"or folder (or papersift import FILE; an import replaces the sample while none of it is marked), "
                        f"{key_label(self, 'app.help')} for every key",
                        timeout=15)
        elif self._told_titles() != TITLE_RULES and self.library.paper_changes.titles_outdated:  # (said: no look at the file)
            self.notify("this library's titles were derived by an earlier papersift; `papersift retitle` "
                        "derives them with this version's better rules (`--dry-run` lists the changes first; "
                        "titles that came with the papers stay as they are)", timeout=15)
            self._save_place(lambda s: s.update_place(self._place_key, titles_told=TITLE_RULES))

    def _told_titles(self) -> int | None:
        """The title rules this library's outdated titles were last pointed out for (once each)."""
        entry = self.settings.places.get(self._place_key)
        return entry.get("titles_told") if isinstance(entry, dict) else None

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every notice is plain text: they quote searches, tags, file names and keymap sections,
        and as Textual markup "[MASK]", "[draft]" or "[main]" would vanish from them."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's commands in the palette but its "Keys" panel (the help, ?, lists every key,
        and escape does not close that panel) and its "Quit" (the palette offers ours, with its key)."""
        return (command for command in super().get_system_commands(screen) if command.title not in ("Keys", "Quit"))

    def current_keymap(self) -> dict[str, str]:
        """The live keymap: action id -> comma-separated keys."""
        return live_keymap(self) or dict(self._loaded_keymap)

    def watch_theme(self, theme: str) -> None:
        if theme != self.settings.theme:
            self.settings.theme = theme
            self.save_settings()

    def save_settings(self) -> None:
        # The places on disk win: another papersift may have left its library since we started.
        self.settings.places = Settings.load(self.settings_path)[0].places
        self.settings.save(self.settings_path)

    def library_place(self) -> tuple[str, str | None, list[str]]:
        """The search and highlighted paper this library was left at ("" and None: start afresh),
        and its earlier searches (kept by --fresh too). When papers arrived since the last visit
        (and the ``open_on_new`` setting is on), the search is theirs: ``batch:>N``."""
        query, paper, history = self.settings.place(self._place_key)
        new, seen = self.new_since_visit
        if new and self.resume and self.settings.open_on_new:
            return f"batch:>{seen}", None, history
        return (query, paper, history) if self.resume else ("", None, history)

    def _count_new_since_visit(self) -> tuple[int, int]:
        """(papers the imports since this library was last opened here added, the last batch seen
        then), and the newest batch noted as seen. A library opened for the first time here has
        nothing new: it is all new."""
        batches = self.library.corpus.batches
        newest = max((int(b["n"]) for b in batches), default=0)
        entry = self.settings.places.get(self._place_key)
        seen = entry.get("seen_batch") if isinstance(entry, dict) else None
        if seen != newest:
            self._save_place(lambda s: s.update_place(self._place_key, seen_batch=newest))
        if not isinstance(seen, int):
            return 0, newest
        self.updated_since_visit = sum(int(b.get("revised") or 0) for b in batches if int(b["n"]) > seen)
        return sum(int(b.get("new") or 0) for b in batches if int(b["n"]) > seen), seen

    def saw_batch(self, batch: int) -> None:
        """This app imported ``batch`` and showed it: not new at the next visit, if every batch
        before it was seen (one another process added meanwhile stays new)."""
        entry = self.settings.places.get(self._place_key)
        seen = entry.get("seen_batch") if isinstance(entry, dict) else None
        if isinstance(seen, int) and batch == seen + 1:
            self._save_place(lambda s: s.update_place(self._place_key, seen_batch=batch))

    def remember_place(self, query: str, paper: str | None, history: list[str]) -> None:
        """Save where this library was left."""
        self._save_place(lambda s: s.remember_place(self._place_key, query, paper, history))

    def remember_export(self, fmt: str, scope: str, dest: str) -> None:
        """Save the export dialog's choice for this library, offered again next time."""
        self._save_place(lambda s: s.update_place(self._place_key, export={"format": fmt, "scope": scope,
                                                                             "dest": dest}))

    def last_export(self) -> dict[str, str]:
        return self.settings.last_export(self._place_key)

    def library_sort(self) -> str:
        """This library's list order (``S``), kept per library as its searches are; a library not
        sorted here yet takes the sort a papersift before per-library sorts saved for all."""
        entry = self.settings.places.get(self._place_key)
        sort = entry.get("sort") if isinstance(entry, dict) else None
        return sort if isinstance(sort, str) else self.settings.sort

    def remember_sort(self, sort: str) -> None:
        self._save_place(lambda s: s.update_place(self._place_key, sort=sort))

    def _save_place(self, change: Callable[[Settings], None]) -> None:
        """Apply ``change`` to the settings file as it is on disk, so another papersift (another
        library, another terminal) keeps the places it saved."""
        on_disk, problem = Settings.load(self.settings_path)
        if problem:  # a file we cannot read (reported at start) is not written over
            return
        change(on_disk)
        on_disk.save(self.settings_path)
        self.settings.places = on_disk.places

    @property
    def _place_key(self) -> str:
        """Where this library's place is kept in the settings: the folder, and for a member other
        than the library's owner (``--as ana``) the member too, so that each member comes back to
        their own search, paper and sort, not to whoever opened the library last."""
        folder = str(self.library.folder.resolve())
        member = self.library.member
        return folder if member == self.library.owner else f"{folder} (as {member})"

    def handle_bindings_clash(self, clashed_bindings: set[Binding], node: DOMNode) -> None:
        keys = ", ".join(sorted({b.key for b in clashed_bindings}))
        ids = ", ".join(sorted(b.id or b.action for b in clashed_bindings))
        self.notify(f"key {keys} is bound to several actions ({ids}); check your keymap", severity="warning")

    def action_help(self) -> None:
        # The notices on screen (the first start's, which says to press this key) would cover the
        # help's lines: opening it is the answer to them.
        self.clear_notifications()
        self.push_screen(HelpScreen())

    def action_dashboard(self) -> None:
        from .screens.dashboard import DashboardScreen
        results = self.main_screen.results  # the current search's result set, charted too
        self.push_screen(DashboardScreen(self.library, (self.main_screen.query_text, results.set_ids)))

    def action_team(self) -> None:
        from .screens.team import TeamScreen

        def chosen(search: str | None) -> None:  # a member picked: their papers in the list
            if search is not None:
                self.main_screen.search_box.value = search
                self.main_screen.set_focus(self.main_screen.results)

        self.push_screen(TeamScreen(self.library), chosen)

    def action_export(self) -> None:
        from .screens.export import ExportScreen
        self.push_screen(ExportScreen(self.library, self.main_screen))


def make_app(library: Library, keymap_path: Path | None = None, settings_path: Path | None = None,
             resume: bool = True, confine: list[Path] | None = None) -> PapersiftApp:
    """Build the app for a library.

    Args:
        library: an open Library.
        keymap_path: a user keymap (default: keymap.toml in the user config folder).
        settings_path: where settings persist (default: the user config folder).
        resume: open at the search and paper the library was left at (False: an empty search, at the top).
        confine: the only folders the import and export dialogs may use (a browser session's).
    """
    keymap, problems = load_keymap(keymap_path if keymap_path is not None else user_keymap_path())
    settings, problem = Settings.load(settings_path)
    if problem:
        problems.append(problem)
    app = PapersiftApp(library, keymap, problems, settings, settings_path, resume)
    app.confinement = Confinement(confine)
    return app
