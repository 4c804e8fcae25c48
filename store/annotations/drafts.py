"""Unsaved note drafts: the note editor's text, kept on disk until it is saved or discarded.

A long note lost to a closed terminal, a crash or a stray ctrl+c is the one way the app
could still lose a user's words: annotations are durable once saved, but a note is saved
only when its editor closes. The editor hands its text here as it changes (debounced);
the next time that paper's note is opened, an unsaved draft is offered back. One small
JSON file beside the annotations, written atomically (store.files.atomic); a damaged file
counts as no drafts, so it can never stop the app, and is kept as found in backups/ (and told)
before a new draft is written over it.
"""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

from store.annotations.backups import keep_damaged
from store.annotations.storage import now_iso
from store.files.atomic import atomic_write_text
from store.files.nofollow import read_no_link


class NoteDrafts:
    """paper id -> (draft text, when it was kept)."""

    def __init__(self, path: Path):
        self.path = path
        self.reports: list[str] = []  # a damaged file found (kept in backups/), not yet told
        self._told: set[str] = set()

    def _load(self, writing: bool = False) -> dict[str, Any]:
        """paper id -> {"text", "kept"}, as read (checked by its users); ``writing``: the file is to
        be written over, which a damaged one is not until it is kept in backups/ (OSError)."""
        try:
            data = json.loads(read_no_link(self.path).decode("utf-8"))
        except FileNotFoundError:
            return {}
        except OSError:  # (a link, a folder: left as it is; `papersift doctor` names it)
            return {}
        except ValueError:
            data = None
        if not isinstance(data, dict):
            self._keep_damaged(writing)
            return {}
        return data

    def _keep_damaged(self, writing: bool) -> None:
        """A drafts file papersift cannot read: copied into backups/ as found before a draft is
        written over it, and told once a process."""
        kept, _new = keep_damaged(self.path)
        if kept is None:
            if not writing:
                return
            # never written over unkept: the draft is held in the app's memory instead
            raise OSError(errno.EIO, "damaged, and it could not be copied to backups/", str(self.path))
        if kept.name not in self._told:
            self._told.add(kept.name)
            self.reports.append(f"{self.path.name}: damaged, so its unsaved note drafts cannot be offered back "
                                f"(kept as found in {kept.parent.name}/{kept.name}: the text is there to copy from)")

    def take_reports(self) -> list[str]:
        """Damage not yet told, each said once."""
        said, self.reports = self.reports, []
        return said

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
        data = self._load(writing=True)
        data[paper_id] = {"text": text, "kept": now_iso()}
        atomic_write_text(self.path, json.dumps(data, ensure_ascii=False, indent=1))

    def drop(self, paper_id: str) -> None:
        """Forget this paper's draft (the note was saved, or the changes discarded)."""
        data = self._load(writing=True)
        if data.pop(paper_id, None) is None:
            return
        if data:
            atomic_write_text(self.path, json.dumps(data, ensure_ascii=False, indent=1))
        else:
            self.path.unlink(missing_ok=True)
