"""The morning's papers: arXiv's newest in some categories, fetched and kept as they came in the
library folder's ``fetched/`` (so an import can be repeated and a paper traced back to its feed),
ready to import as one batch. The command line (``papersift fetch``) and the app (``F``, or
"Fetch from arXiv" in ctrl+p) both run :func:`fetch_into`, then import the file it kept."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from store import locations
from store.errors import PapersiftError
from store.files.atomic import PRIVATE_FOLDER, atomic_write_text
from store.ingest import arxiv_fetch
from store.ingest.arxiv_names import check_categories

_KEPT = re.compile(r"arxiv-(?P<categories>.+)-\d{8}T\d{6}Z\.xml")


@dataclass
class Fetch:
    """What a fetch brought, and where its feed is kept (``saved``: None when nothing was new)."""

    categories: list[str]
    since: datetime
    entries: int
    requests: int
    saved: Path | None


def fetch_into(library_folder: Path, categories: list[str], since: datetime, *, api: str | None = None,
               delay: float | None = None, limit: int = 5000, say: Callable[[str], None] = lambda _: None,
               note: Callable[[str], None] = lambda _: None, request_deadline: float | None = None,
               fetch_deadline: float | None = None) -> Fetch:
    """Fetch every entry of ``categories`` submitted since ``since`` (every page, or nothing) and
    keep the feed in ``library_folder/fetched/`` (0600). ``api``, ``delay`` and the deadlines default
    to :mod:`store.ingest.arxiv_fetch`'s, read when called; a deadline given is never longer than
    the default.

    Raises:
        PapersiftError: ``fetched/`` is a file or a link (checked before arXiv is asked anything).
        FetchError: arXiv could not be reached or kept failing; nothing is kept.
    """
    folder = library_folder / locations.FETCHED_DIR
    check_folder(folder)
    got = arxiv_fetch.fetch(categories, since, api=api or arxiv_fetch.API,
                            delay=arxiv_fetch.DELAY if delay is None else max(0.0, delay), limit=limit, say=say,
                            note=note, request_deadline=_seconds(request_deadline, arxiv_fetch.REQUEST_DEADLINE),
                            fetch_deadline=_seconds(fetch_deadline, arxiv_fetch.FETCH_DEADLINE))
    if not got.entries:
        return Fetch(categories, since, 0, got.requests, None)
    try:
        folder.mkdir(mode=PRIVATE_FOLDER)
    except FileExistsError:
        check_folder(folder)
    saved = folder / f"arxiv-{'-'.join(categories)}-{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}.xml"
    atomic_write_text(saved, got.text)
    return Fetch(categories, since, got.entries, got.requests, saved)


def last_categories(library_folder: Path) -> list[str]:
    """The categories of the newest feed kept in ``fetched/`` (what the app offers to fetch again),
    read from its name; [] when there is none."""
    folder = library_folder / locations.FETCHED_DIR
    try:
        names = sorted((entry.name for entry in os.scandir(folder) if _KEPT.fullmatch(entry.name)),
                       key=lambda name: name[-20:])  # (by the time stamp that ends each name)
    except OSError:
        return []
    if not names:
        return []
    found = _KEPT.fullmatch(names[-1])
    assert found is not None
    # Categories are joined by "-", and may hold one ("astro-ph.GA", "hep-th"): a name is read only
    # when every part is one category with its subject (cs.LG-cs.RO), never guessed.
    parts = found["categories"].split("-")
    if not all("." in part for part in parts):
        return []
    try:
        return check_categories(parts)
    except PapersiftError:
        return []


def _seconds(given: float | None, default: float) -> float:
    return default if given is None or not given > 0 else min(given, default)


def check_folder(folder: Path) -> None:
    """``LIBRARY/fetched/`` is a folder, or is not there yet: a file or a link in its place (a shared
    library folder may hold anything) is named, and nothing is fetched."""
    try:
        mode = os.lstat(folder).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(mode):
        kind = "a link" if stat.S_ISLNK(mode) else "a file" if stat.S_ISREG(mode) else "not a folder"
        raise PapersiftError(f"{folder} is {kind}, where papersift keeps what it fetches (a folder): move it away "
                             "and fetch again; nothing was imported")
