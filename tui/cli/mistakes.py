"""A command line's mistakes, said with what was likely meant: a mistyped command or choice (the
nearest by edits), a ``--library`` value that is a command or an option."""

from __future__ import annotations

import re
from pathlib import Path

from store import locations

_COMMAND_LIKE = re.compile(r"[A-Za-z][A-Za-z-]*")  # a word that is no path: a mistyped command


# The options that belong to every command, accepted anywhere before a "--" (their value is no word).
GLOBAL_OPTIONS = ("--library", "--as")


def _options_and_words(argv: list[str]) -> list[tuple[int, str]]:
    """The positions and words of ``argv`` that are neither options nor a global option's value."""
    words, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            break
        if a in GLOBAL_OPTIONS:
            i += 2
            continue
        if not a.startswith("-"):
            words.append((i, a))
        i += 1
    return words


def library_option_problem(argv: list[str], commands: list[str]) -> str | None:
    """What is wrong with a ``--library`` value that is a command's name or looks like an option
    (``papersift --library list`` would otherwise make and open a library called ``list``)."""
    for i, a in enumerate(argv):
        if a == "--":
            return None
        if a == "--library" and i + 1 < len(argv):
            value = argv[i + 1]
        elif a.startswith("--library="):
            value = a.partition("=")[2]
        else:
            continue
        if value.startswith("-"):
            return (f"--library takes a folder, and {value!r} looks like an option: "
                    f"papersift --library DIR [COMMAND] (a folder named so: --library ./{value})")
        if value in commands and not locations.is_library_dir(Path(value)):
            return (f"--library takes a folder, and {value!r} is a command: papersift --library DIR {value} "
                    f"(a folder named so: --library ./{value})")
    return None


def closest(typed: str, candidates: list[str]) -> str | None:
    """The candidate a mistyped word most likely meant: the fewest edits (a swap of two letters
    counting as one: "stauts", "--fromat"), then the length nearest the word's ("status", not
    "stats"); None when even that one is more than a third of the word away."""
    from rapidfuzz.distance import OSA

    started = [c for c in candidates if c.startswith(typed) and c != typed]
    if len(started) == 1 and len(typed) >= 3:  # the start of one of them ("stat" of "status")
        return started[0]
    best = min(candidates, key=lambda c: (OSA.distance(typed, c), abs(len(c) - len(typed))), default=None)
    return best if best is not None and OSA.distance(typed, best) <= max(1, len(typed) // 3) else None


def unknown_command(argv: list[str], commands: list[str]) -> str | None:
    """A first word that is no command and no file (``papersift stauts ID read``), with the
    nearest command; None for a command, a file or a folder to open."""
    words = _options_and_words(argv)
    if not words:
        return None
    _, first = words[0]
    if first in commands or Path(first).expanduser().exists() or not _COMMAND_LIKE.fullmatch(first):
        return None
    best = closest(first, list(commands))
    if best:
        return f"unknown command '{first}' — did you mean '{best}'?"
    return f"unknown command '{first}' (papersift --help lists them; a file to open must be a path that exists)"
