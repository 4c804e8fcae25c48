"""Which files a browser session's dialogs may reach.

A terminal session may import from and export to anywhere its user can. A browser session
(``papersift serve``) is confined to the library folder and the declared exports folder: the
dialogs name those folders, refuse any other path (after following links, so a link inside
them cannot lead out; a folder to import holding such a link is refused too) with the same
words whether it exists or not, and complete file names only inside them.
"""

from __future__ import annotations

from pathlib import Path


class Confinement:
    """The folders a session's dialogs may use; no folders means no confinement."""

    def __init__(self, roots: list[Path] | None = None) -> None:
        self.roots = [Path(r).expanduser().resolve() for r in roots or []]

    def __bool__(self) -> bool:
        return bool(self.roots)

    def allows(self, path: Path) -> bool:
        """True when ``path`` (resolved, links followed) lies inside one of the folders."""
        if not self.roots:
            return True
        real = Path(path).expanduser().resolve()
        return any(real == root or real.is_relative_to(root) for root in self.roots)

    def refusal(self, path: Path) -> str | None:
        """Why a path may not be used here (None when it may). The same words whether a refused path
        exists or not, so that the dialogs reveal nothing of the files outside."""
        if not self.allows(path):
            return f"{path}: a browser session reaches only files in {self.describe()}"
        if self.roots and Path(path).expanduser().is_dir():
            for link in self.links_out(Path(path).expanduser()):
                return (f"{link}: a link out of {self.describe()}; a browser session does not follow it "
                        "(import the folder from a terminal, or copy the file in)")
        return None

    def links_out(self, folder: Path, limit: int = 10_000) -> list[Path]:
        """Links inside ``folder`` (a walk that does not follow them) that lead out of the folders."""
        import os
        found, seen = [], 0
        for root, dirs, names in os.walk(folder, followlinks=False):
            for name in [*dirs, *names]:
                seen += 1
                entry = Path(root) / name
                if entry.is_symlink() and not self.allows(entry):
                    found.append(entry)
            if found or seen > limit:
                break
        return found

    def describe(self) -> str:
        return " and ".join(str(r) for r in self.roots)

    def default_folder(self) -> Path | None:
        """Where new files go in a confined session: the exports folder (the last root)."""
        return self.roots[-1] if self.roots else None
