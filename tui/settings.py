"""User settings (theme, advance-after-triage, sort), kept in the config folder.

Written with the store's crash-safe writer; a missing or unreadable file means
the defaults (and the problem is reported once, not fatal).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from store.atomic import atomic_write_text
from store.locations import config_dir


@dataclass
class Settings:
    theme: str = "textual-dark"
    advance_after_triage: bool = True
    sort: str = "import"

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

    def save(self, path: Path | None = None) -> None:
        path = path or config_dir() / "settings.json"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, json.dumps(asdict(self), indent=2))
        except OSError:
            pass  # settings are a convenience; never fail the app over them
