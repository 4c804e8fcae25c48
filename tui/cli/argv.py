"""The command line as typed, put in the shape argparse reads: the global options first (they are
accepted anywhere), ``open`` named when no command is (``papersift FILE``) but not when an app
option stands before another command (``--keymap K list``), a query option's dashed value kept
whole (``--query -tag:maybe``), and a status or rating given before the papers moved last
(``status read ID``)."""

from __future__ import annotations

from collections.abc import Collection

from store.choices import STATUSES

from .mistakes import GLOBAL_OPTIONS


def value_last(argv: list[str], command: str) -> tuple[list[str], str | None]:
    """`papersift status read ID...` and `papersift star 3 ID` read as naturally as the documented
    `status ID... read` and `star ID 3`: a status word (or a 0-3 rating) given first moves last.

    Returns:
        The arguments, and the status (rating) if it was the only one given (no paper id).
    """
    start = argv.index(command) + 1
    positions, i = [], start
    while i < len(argv):
        if argv[i] == "--format":
            i += 2
            continue
        if not argv[i].startswith("-"):
            positions.append(i)
        i += 1
    value = STATUSES if command == "status" else ("0", "1", "2", "3")
    if len(positions) == 1 and argv[positions[0]] in value:
        return argv, argv[positions[0]]
    if len(positions) < 2:
        return argv, None
    first, last = argv[positions[0]], argv[positions[-1]]
    if first in value and last not in value:
        argv = argv[:positions[0]] + argv[positions[0] + 1:] + [first]
    return argv, None


_QUERY_OPTIONS = ("--query", "--weights")  # their value may start with "-" (`--query -tag:maybe`)


def with_default_command(argv: list[str], commands: Collection[str]) -> list[str]:
    """The arguments with the global options (``--library``, ``--as``) first and ``open`` named when
    no command is.

    ``papersift``, ``papersift FILE...``, ``papersift --library DIR`` and
    ``papersift --keymap K`` all mean ``papersift open ...``; ``--library`` and ``--as`` are
    accepted anywhere (before a ``--``), since they belong to every command; a
    ``--query`` value may start with a dash (``--query -tag:maybe``).
    """
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            rest.extend(argv[i:])
            break
        if a in GLOBAL_OPTIONS:
            if i + 1 == len(argv):
                return [a]  # no value: let argparse say "expected one argument"
            front.append(f"{a}={argv[i + 1]}")  # (a name like "-x" is refused by its check, not taken for an option)
            i += 2
            continue
        if a in _QUERY_OPTIONS and i + 1 < len(argv):
            rest.append(f"{a}={argv[i + 1]}")  # argparse would take `-tag:x` for an option
            i += 2
            continue
        (front if a.startswith(tuple(o + "=" for o in GLOBAL_OPTIONS)) else rest).append(a)
        i += 1
    later = _command_after_options(rest, commands)
    if later is not None:  # `--keymap K list ...`: the command named, its options said wrong under its name, not open's
        rest.remove(later)
        rest.insert(0, later)
    elif not rest or (rest[0] not in commands and rest[0] not in ("-h", "--help")):
        rest.insert(0, "open")
    return front + rest


_OPEN_VALUED = ("--keymap",)  # the app's options that take a value (`open --help`)


def _command_after_options(rest: list[str], commands: Collection[str]) -> str | None:
    """The command word after the app's options (``--keymap K list``), where one is: not a value
    an option takes (``--keymap list`` names a keymap file)."""
    if not rest or not rest[0].startswith("-"):
        return None
    for before, a in zip(rest, rest[1:]):
        if a in commands and a != "open" and before not in _OPEN_VALUED:
            return a
    return None


def command_in(argv: list[str]) -> str | None:
    """The command word of :func:`with_default_command`'s output (after the global options it puts
    first, each as ``--name=value``)."""
    return next((a for a in argv if not a.startswith(tuple(o + "=" for o in GLOBAL_OPTIONS))), None)
