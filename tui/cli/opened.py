"""What opening the library found, handed to every command with the library (its own module: the
command modules import it, and :mod:`tui.cli.library` registers some of theirs)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Opened:
    """What opening the library found: damage kept in backups/ (said first), and whether it was new."""

    problems: list[str] = field(default_factory=list)
    new_library: bool = False
