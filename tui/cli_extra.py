"""CLI commands added by later features (export, exchange, doctor)."""

from __future__ import annotations

import argparse

from store import Library, PapersiftError


def register(add) -> None:
    """Add this module's subcommands to the parser (``add`` is build_parser's helper)."""


def run_extra(lib: Library, args: argparse.Namespace) -> int:
    raise PapersiftError(f"unknown command {args.command!r}")
