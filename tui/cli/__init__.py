"""The command line: :mod:`.main` builds the parser and dispatches; the commands live by what they
touch (:mod:`.library` the library's papers and marks, :mod:`.exchange` exports, merges and
serve, :mod:`.discovery` similar, recommend and topics); :mod:`.output` prints tables and JSON."""

from __future__ import annotations

from .main import command_names, main

__all__ = ["command_names", "main"]
