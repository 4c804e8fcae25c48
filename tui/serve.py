"""``papersift serve``: the same app in a web browser, through textual-serve.

textual-serve runs one app process per browser tab, talking to the page over a
websocket; each process opens the same library folder, so the usual lock and
reload keep two tabs (or a tab and a terminal) from losing each other's changes.
It listens on localhost only unless ``--host`` says otherwise: the app can
change the library, so exposing it is the user's explicit choice.
"""

from __future__ import annotations

import shlex
import socket
import sys
from pathlib import Path

from store import Library, PapersiftError


def app_command(lib: Library, keymap: str | None = None) -> str:
    """The shell command textual-serve runs for each browser session."""
    argv = [sys.executable, "-m", "tui", "--library", str(lib.folder.resolve()), "open"]
    if keymap:
        argv += ["--keymap", str(Path(keymap).resolve())]
    return shlex.join(argv)


def check_port_free(host: str, port: int) -> None:
    """Fail with a clear message before textual-serve prints its banner."""
    if not 0 < port < 65536:
        raise PapersiftError(f"--port {port}: must be between 1 and 65535")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            raise PapersiftError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; "
                                 "choose another with --port") from None


def serve(lib: Library, host: str, port: int, keymap: str | None = None) -> int:
    """Run the web server until Ctrl+C (or SIGTERM)."""
    if keymap and not Path(keymap).is_file():
        raise PapersiftError(f"{keymap}: no such keymap file")
    check_port_free(host, port)
    from textual_serve.server import Server

    Server(app_command(lib, keymap), host=host, port=port, title=f"papersift: {lib.name}").serve()
    return 0
