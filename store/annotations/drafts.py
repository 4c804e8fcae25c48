"""Unsaved note drafts: the note editor's text, kept on disk until it is saved or discarded.

A long note lost to a closed terminal, a crash or a stray ctrl+c is the one way the app
could still lose a user's words: annotations are durable once saved, but a note is saved
only when its editor closes. The editor hands its text here as it changes (debounced);
the next time that paper's note is opened, an unsaved draft is offered back. One small
JSON file beside the annotations, written atomically (store.files.atomic); a damaged file
counts as no drafts, so it can never stop the app.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from store.annotations.storage import now_iso
from store.files.atomic import atomic_write_text


class NoteDrafts:
    """paper id -> (draft text, when it was kept)."""

    def __init__(self, path: Path):
        self.path = path

    def _load(self) -> dict[str, Any]:  # paper id -> {"text", "kept"}, as read: checked by its users
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def count(self) -> int:
        """How many notes have an unsaved draft."""
        return len(self._load())

    def papers(self) -> list[str]:
        """The ids of the papers whose note has an unsaved draft."""
        return [pid for pid, entry in self._load().items() if isinstance(entry, dict)]

    def get(self, paper_id: str) -> tuple[str, str] | None:
        """The draft of this paper's note and when it was kept, if there is one."""
        entry = self._load().get(paper_id)
        if isinstance(entry, dict) and isinstance(entry.get("text"), str):
            return entry["text"], str(entry.get("kept", ""))
        return None

    def keep(self, paper_id: str, text: str) -> None:
        """Keep (or replace) this paper's draft."""
        data = self._load()
        data[paper_id] = {"text": text, "kept": now_iso()}
        atomic_write_text(self.path, json.dumps(data, ensure_ascii=False, indent=1))

    def drop(self, paper_id: str) -> None:
        """Forget this paper's draft (the note was saved, or the changes discarded)."""
        data = self._load()
        if data.pop(paper_id, None) is None:
            return
        if data:
            atomic_write_text(self.path, json.dumps(data, ensure_ascii=False, indent=1))
        else:
            self.path.unlink(missing_ok=True)
