"""Where papersift keeps things: every default path lives here.

The library folder defaults to the platform's user data folder; ``--library``
or the ``PAPERSIFT_LIBRARY`` environment variable override it. Nothing here
touches the disk at import time.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "papersift"
LIBRARY_ENV = "PAPERSIFT_LIBRARY"

CORPUS_FILE = "corpus.jsonl"
CORPUS_FILE_V1 = "corpus.json"  # format version 1, migrated on open
ANNOTATIONS_FILE = "annotations.json"
INDEX_CACHE_FILE = "index.cache"
SIMILAR_CACHE_FILE = "similar.cache"  # the more-like-this model (numpy .npz); disposable
PHRASE_CACHE_FILE = "phrases.cache"  # every paper's folded text, for "phrase" search; disposable
DEDUP_CACHE_FILE = "dedup.cache"  # every paper's LSH band keys and name-shaped words, for the next import; disposable
DRAFTS_FILE = "note-drafts.json"  # note editor text not yet saved (store.annotations.drafts)
LOCK_FILE = ".lock"
LOG_FILE = "papersift.log"  # what went wrong in a session, with its traceback (store.logbook)
BACKUP_DIR = "backups"
FETCHED_DIR = "fetched"  # what `papersift fetch` downloaded, kept as the files it imported
ARCHIVE_FILE = "archive.jsonl"  # papers `papersift archive` moved out of the way, each with every mark
SYNC_FILE = "sync.json"  # the lab's git remote, and the last of its commits a sync took (store.sync.library_sync)
SYNC_DIR = "sync"  # the library's clone of that remote: this member's files and everyone else's
SYNC_LOCK_FILE = "sync.lock"  # held while a sync runs (one sync of a library at a time)
SYNC_NAMES = (SYNC_FILE, SYNC_DIR, SYNC_LOCK_FILE)  # what a first sync leaves in a folder before any paper arrives


# What a library folder holds: its data (never a link: see store.files.atomic) and its caches.
LIBRARY_DATA = (CORPUS_FILE, CORPUS_FILE_V1, ANNOTATIONS_FILE, ANNOTATIONS_FILE + ".journal",
                ANNOTATIONS_FILE + ".acked", DRAFTS_FILE, LOCK_FILE, LOG_FILE, BACKUP_DIR, "exports", FETCHED_DIR,
                ARCHIVE_FILE)
ACRONYMS_FILE = "acronyms.json"  # the acronyms the papers define (store.search.acronyms); disposable
LIBRARY_CACHES = (INDEX_CACHE_FILE, SIMILAR_CACHE_FILE, PHRASE_CACHE_FILE, DEDUP_CACHE_FILE, ACRONYMS_FILE)


def is_library_dir(path: Path) -> bool:
    """Whether a folder is a papersift library (its lock file and corpus or annotations)."""
    return (path / LOCK_FILE).exists() and ((path / CORPUS_FILE).exists() or (path / ANNOTATIONS_FILE).exists())


def holds_library(path: Path) -> bool:
    """Whether a folder holds a library's data (its corpus or annotations, in any version): a
    library whose lock file is gone still counts, so that doctor can look at it."""
    return any((path / name).exists() for name in (CORPUS_FILE, CORPUS_FILE_V1, ANNOTATIONS_FILE))


def a_librarys_own(path: Path) -> bool:
    """Whether ``path`` names one of a library folder's own files (its corpus, annotations, journal,
    archive, caches, sync files, or anything in its backups): what no export may write over."""
    folder = path.parent
    names = set(LIBRARY_DATA) | set(LIBRARY_CACHES) | set(SYNC_NAMES)
    if path.name in names and holds_library(folder):
        return True
    return folder.name in (BACKUP_DIR, SYNC_DIR) and holds_library(folder.parent)


def in_a_library(path: Path) -> bool:
    """Whether ``path`` is a file in a library's folder (or its exports/): an export written there
    is private to its owner as the library's files are (doctor checks the folder's modes)."""
    folder = path.parent
    return holds_library(folder) or (folder.name == "exports" and holds_library(folder.parent))


def library_dir(folder: Path | str | None = None) -> Path:
    """The library folder: the one given (``--library``), else :func:`default_library_dir`."""
    return Path(folder).expanduser() if folder else default_library_dir()


def default_library_dir() -> Path:
    """The library folder: ``$PAPERSIFT_LIBRARY`` or the user data folder."""
    env = os.environ.get(LIBRARY_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs  # (here, not at the top: most commands are given --library or the variable)

    return Path(platformdirs.user_data_dir(APP_NAME)) / "library"


def config_dir() -> Path:
    """The user configuration folder (user keymap, settings)."""
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME))


def user_keymap_path() -> Path:
    """The user's keymap override file."""
    return config_dir() / "keymap.toml"


def bundled_seeds_dir() -> Path:
    """The bundled NeurIPS 2026 sample dumps.

    In a wheel they travel inside the package as ``store/_seeds``; in a source
    checkout (editable install) they are the top-level ``seeds/`` folder.
    """
    here = Path(__file__).resolve().parent
    packaged = here / "_seeds"
    if packaged.is_dir():
        return packaged
    return here.parent / "seeds"


def default_keymap_path() -> Path:
    """The shipped keymap.toml (inside the wheel, or at the checkout's top level)."""
    here = Path(__file__).resolve().parent
    packaged = here.parent / "tui" / "_keymap.toml"
    if packaged.is_file():
        return packaged
    return here.parent / "keymap.toml"


def refuse_a_folder_of_other_files(folder: Path) -> None:
    """A library is made only in a new or empty folder (or one of a library's own files): never
    in a home folder or ``/`` given by mistake.

    Raises:
        PapersiftError: ``folder`` holds other files and no library.
    """
    from store.errors import PapersiftError

    if holds_library(folder) or not folder.is_dir():
        return
    own = set(LIBRARY_DATA) | set(LIBRARY_CACHES) | set(SYNC_NAMES)
    try:
        # (a dot file counts: a home folder holding only .bashrc is not empty; a killed write's temp file is ours)
        others = [name for name in os.listdir(folder) if name not in own
                  and not (name.startswith(".") and name.endswith(".tmp"))]
    except OSError:
        return  # (said when the folder is used)
    if others:
        raise PapersiftError(f"{folder} holds other files ({', '.join(sorted(others)[:3])}…) and no papersift "
                             f"library: a library is made only in a new or empty folder "
                             f"(for instance --library {folder / 'papersift-library'})")


def require_library(folder: Path) -> None:
    """Raise unless ``folder`` holds a library: a command that only reads or changes one never
    makes one (only the app's first start and an import do)."""
    from store.errors import PapersiftError
    if folder.exists() and not folder.is_dir():
        raise PapersiftError(f"{folder}: cannot be used as a library folder (a file, not a folder)")
    if not holds_library(folder):
        raise PapersiftError(f"no library in {folder}: `papersift` makes one on the bundled sample and opens it; "
                             f"`papersift import FILE` makes one from your files (another folder: --library DIR)")
