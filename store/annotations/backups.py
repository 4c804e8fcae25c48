"""Rotating backups of library files, taken before bulk or risky operations.

A backup is a byte-for-byte copy written crash-safely into
``<library>/backups/`` as ``<file>.<UTC time>.<reason>.bak``; the newest
``KEEP`` per file are kept.
"""

from __future__ import annotations

import os

from datetime import datetime, timezone
from pathlib import Path

from store.files.atomic import atomic_write_bytes, fsync_dir, private_folder
from store.locations import BACKUP_DIR

KEEP = 10


def backup_file(path: Path, reason: str, content: bytes | None = None, replaced_whole: bool = False) -> Path | None:
    """Copy ``path`` (or ``content`` read from it) into the backups folder; None when there is
    nothing to back up.

    Args:
        replaced_whole: ``path`` is only ever replaced by a rename (an atomic write), never written
            in place, as the corpus is: the backup is then a hard link to it (its bytes stay as they
            are when the file is replaced), not a copy; at 300k papers the copy took ~1 s of an import.
    """
    if content is None and not path.is_file():
        return None
    folder = private_folder(path.parent / BACKUP_DIR)  # (never a link out of the library)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    target = folder / f"{path.name}.{stamp}.{reason}.bak"
    linked = False
    if replaced_whole and content is None and not path.is_symlink():
        try:
            os.link(path, target, follow_symlinks=False)
            fsync_dir(folder)
            linked = True
        except OSError:  # (a file system without hard links: copied instead)
            pass
    if not linked:
        atomic_write_bytes(target, path.read_bytes() if content is None else content)
    for old in [b for b in list_backups(path) if ".damaged-" not in b.name][KEEP:]:
        old.unlink(missing_ok=True)  # (a damaged file's copy is kept until the user removes it)
    return target


def keep_damaged(path: Path) -> tuple[Path | None, bool]:
    """Copy a damaged file into backups/ once per distinct content (its hash is in the name).

    Returns:
        (the copy, or None when it could not be written; True when it was written just now).
    """
    import hashlib

    try:
        raw = path.read_bytes()
    except OSError:
        raw = b""
    digest = hashlib.sha256(raw).hexdigest()[:12]
    folder = path.parent / BACKUP_DIR
    walkable = folder.is_dir() and not folder.is_symlink()
    existing = sorted(folder.glob(f"{path.name}.[0-9]*.damaged-{digest}.bak")) if walkable else []
    if existing:
        return existing[-1], False
    try:
        return backup_file(path, f"damaged-{digest}", raw), True
    except OSError:
        return None, False


def damaged_copies(path: Path) -> list[Path]:
    """The copies :func:`keep_damaged` made of ``path``, newest first."""
    return [b for b in list_backups(path) if ".damaged-" in b.name]


def list_backups(path: Path) -> list[Path]:
    """Backups of ``path``, newest first (a link among them is none: it is never read or counted)."""
    folder = path.parent / BACKUP_DIR
    if folder.is_symlink() or not folder.is_dir():  # (a link out of the library is not walked)
        return []
    # (the time first: "annotations.json.journal.<time>…" is the journal's, not the snapshot's)
    return sorted((b for b in folder.glob(f"{path.name}.[0-9]*.bak") if not b.is_symlink()), reverse=True)
