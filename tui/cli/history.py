"""The ``papersift`` commands of the change history: ``undo``, ``redo`` and ``history``, each the
member's own (a colleague's changes are theirs to undo)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from store.records import RecordKey

from ..render import one_paper_said
from . import output as out
from .opened import Opened

if TYPE_CHECKING:
    from store import Library


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    """Add this module's subcommands to the parser (``add`` is build_parser's helper)."""
    add("undo", "undo the last change (repeatable; survives restarts)", ("text", "json"), run=undo_or_redo)
    add("redo", "make again what the last undo reverted (until a new change is made)", ("text", "json"),
        run=undo_or_redo)
    p = add("history", "the recent changes that undo would revert", ("text", "json"), run=history)
    p.add_argument("--limit", type=out.count_arg, default=20, help="at most this many changes (default 20)")


def undo_or_redo(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    """Said as ``history`` lists it: the change, and the paper when it changed one."""
    cmd = args.command
    step = lib.undo_step() if cmd == "undo" else lib.redo_step()
    if args.format == "json":
        out.emit_json({f"{cmd}ne": step and step.label, "papers": step.papers if step else []})
    else:
        out.say(f"{cmd}ne: {step.label}{one_paper_said(lib, step.papers)}" if step else f"nothing to {cmd}")
    return 0


def history(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    """This member's changes, newest first: what their undo would revert (a colleague's are theirs)."""
    entries = lib.own_history(args.limit)
    if args.format == "json":
        out.emit_json(entries)
    else:
        for e in entries:
            out.say(f"{e['time'][:19]}  {e['label']}{_changed_paper(lib, e)}")
        if not entries:
            out.console().print("no changes to undo")
    return 0


def _changed_paper(lib: Library, entry: dict[str, Any]) -> str:
    """Which paper a history entry changed: " · ID Title" for one paper ('' for several: the
    label counts them)."""
    keys = [*(entry.get("after") or {}), *(entry.get("before") or {})]
    return one_paper_said(lib, list(dict.fromkeys(RecordKey.parse(k).paper for k in keys)))  # (a member's key names its paper)
