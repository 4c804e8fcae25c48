"""User settings (theme, advance-after-triage, sort, where each library was left), kept in the config folder.

Written with the store's crash-safe writer; a missing or unreadable file means
the defaults (and the problem is reported once, not fatal).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from store.files.atomic import atomic_write_text
from store.locations import config_dir


PLACES_KEPT = 50
HISTORY_KEPT = 50  # searches remembered per library


@dataclass
class Settings:
    theme: str = "textual-dark"
    advance_after_triage: bool = True
    sort: str = "import"
    open_on_new: bool = True  # after an import, the app opens on the papers new since the last visit
    # Where the app was left in each library (its folder -> {"query": ..., "paper": id,
    # "history": [earlier searches, oldest first], "export": {"format", "scope", "dest"}}),
    # so the next start picks up there and the export dialog offers the last choice again.
    # The most recent PLACES_KEPT libraries are kept.
    places: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.places, dict):  # a hand-edited file: forget the places, keep the rest
            self.places = {}

    @classmethod
    def load(cls, path: Path | None = None) -> tuple["Settings", str | None]:
        path = path or config_dir() / "settings.json"
        if not path.exists():
            return cls(), None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            known = {f.name for f in fields(cls)}
            return cls(**{k: v for k, v in data.items() if k in known}), None
        except (OSError, ValueError, TypeError) as exc:
            return cls(), f"{path}: unreadable settings ({exc}); using defaults"

    def remember_place(self, folder: str, query: str, paper: str | None, history: list[str]) -> None:
        """Note where a library was left: its search, highlighted paper and earlier searches."""
        self.update_place(folder, query=query, paper=paper, history=history[-HISTORY_KEPT:])

    def update_place(self, folder: str, **fields: Any) -> None:
        """Set some of a library's remembered fields (the others are kept); it becomes the newest."""
        entry = self.places.pop(folder, None)
        self.places[folder] = {**(entry if isinstance(entry, dict) else {}), **fields}
        for old in list(self.places)[:-PLACES_KEPT]:
            del self.places[old]

    def last_export(self, folder: str) -> dict[str, str]:
        """The format, scope and destination of the library's last export ({} if none)."""
        entry = self.places.get(folder)
        export = entry.get("export") if isinstance(entry, dict) else None
        return {k: v for k, v in export.items() if k in ("format", "scope", "dest") and isinstance(v, str)} \
            if isinstance(export, dict) else {}

    def place(self, folder: str) -> tuple[str, str | None, list[str]]:
        """The search, paper and earlier searches a library was left with ("", None, [] if never,
        or if unreadable)."""
        entry = self.places.get(folder)
        if not isinstance(entry, dict):
            return "", None, []
        query, paper, history = entry.get("query"), entry.get("paper"), entry.get("history")
        return (query if isinstance(query, str) else "",
                paper if isinstance(paper, str) else None,
                [q for q in history if isinstance(q, str)] if isinstance(history, list) else [])

    def save(self, path: Path | None = None) -> None:
        path = path or config_dir() / "settings.json"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, json.dumps(asdict(self), indent=2), follow_links=True)  # (dotfiles link it)
        except OSError:
            pass  # settings are a convenience; never fail the app over them
