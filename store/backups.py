"""Rotating backups of library files, taken before bulk or risky operations.

A backup is a byte-for-byte copy written crash-safely into
``<library>/backups/`` as ``<file>.<UTC time>.<reason>.bak``; the newest
``KEEP`` per file are kept.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from .atomic import atomic_write_bytes
from .locations import BACKUP_DIR

KEEP = 10


def backup_file(path: Path, reason: str) -> Path | None:
    """Copy ``path`` into the backups folder; None when there is nothing to back up."""
    if not path.is_file():
        return None
    folder = path.parent / BACKUP_DIR
    folder.mkdir(exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    target = folder / f"{path.name}.{stamp}.{reason}.bak"
    atomic_write_bytes(target, path.read_bytes())
    for old in list_backups(path)[KEEP:]:
        old.unlink(missing_ok=True)
    return target


def list_backups(path: Path) -> list[Path]:
    """Backups of ``path``, newest first."""
    folder = path.parent / BACKUP_DIR
    if not folder.is_dir():
        return []
    # (the time first: "annotations.json.journal.<time>…" is the journal's, not the snapshot's)
    return sorted(folder.glob(f"{path.name}.[0-9]*.bak"), reverse=True)
