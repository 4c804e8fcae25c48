"""The ``git`` program, run for a lab's sync (store.sync.library_sync): its documented commands only, every
wait bounded, never a prompt, and what it says passed on as one clean line.

Credentials are git's own (its credential helper, ssh's keys and agent); papersift never asks
for one and never stores one: an address with a password in it is refused before it is kept.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

from store.errors import PapersiftError
from store.safe_text import strip_unsafe

GIT_TIMEOUT = 120.0  # seconds one git command may take (a fetch or push over a slow link)


class SyncError(PapersiftError):
    """A sync that could not be made: said in one line; the library is as it was or better."""


def shown_remote(remote: str) -> str:
    """The remote as it may be shown: a user name in an address kept, nothing after it."""
    try:
        parts = urlsplit(remote)
    except ValueError:
        return strip_unsafe(remote)[:200]
    if parts.scheme and parts.password is not None:
        netloc = f"{parts.username}:***@{parts.hostname or ''}" + (f":{parts.port}" if parts.port else "")
        return strip_unsafe(parts._replace(netloc=netloc).geturl())[:200]
    return strip_unsafe(remote)[:200]


def checked_remote(remote: str) -> str:
    """``remote`` when papersift may keep it: a git address or a folder; never one holding a
    password (git's credential helper keeps those).

    Raises:
        SyncError: an empty address, a password in it, or a character no address has.
    """
    remote = remote.strip()
    try:
        remote.encode("utf-8")
    except UnicodeEncodeError:  # (bytes typed in another encoding: no address git would be given)
        raise SyncError(f"sync: {ascii(remote)[1:-1][:200]!r} is not UTF-8 text: no git address or folder") from None
    if not remote or len(remote) > 2000 or strip_unsafe(remote) != remote or "\n" in remote:
        raise SyncError(f"sync: {shown_remote(remote)!r} is no git address or folder")
    if remote.startswith("-"):
        raise SyncError(f"sync: {shown_remote(remote)!r}: an address cannot start with '-'")
    try:
        password = urlsplit(remote).password if "://" in remote else None
    except ValueError:
        raise SyncError(f"sync: {shown_remote(remote)!r} is no git address") from None
    if password is not None:
        raise SyncError("sync: the address holds a password, which papersift would have to keep: give the address "
                        "without it and let git's credential helper (or an ssh key) answer")
    # A folder is kept as an absolute path: git reads a relative one from the library's clone, not
    # from where it was typed.
    return os.path.abspath(os.path.expanduser(remote)) if is_folder(remote) else remote


def is_folder(remote: str) -> bool:
    """Whether git reads ``remote`` as a folder on this machine: no ``scheme://`` and no
    ``host:path`` (git's rule: a colon before any slash)."""
    return "://" not in remote and ":" not in remote.split("/", 1)[0]


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_CONFIG_NOSYSTEM": "1"})
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes -o ConnectTimeout=30")
    return env


def git(repo: Path, *args: str, timeout: float = GIT_TIMEOUT, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``git -C repo ARGS``: its output, or (``check``) a SyncError with what git said.

    Hooks are off and commits are unsigned: the sync's commits are papersift's own.
    """
    exe = shutil.which("git")
    if exe is None:
        raise SyncError("sync needs the git program (apt install git, or your system's package)")
    cmd = [exe, "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false",
           "-C", str(repo), *args]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8", errors="replace",
                              timeout=timeout, env=_environment(), stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise SyncError(f"sync: git {args[0]} took over {timeout:.0f} s and was stopped: nothing lost, the next "
                        "sync catches up") from None
    if check and done.returncode:
        raise SyncError(f"sync: git {args[0]} failed: {said(done.stderr or done.stdout)}")
    return done


def said(text: str) -> str:
    """What git said, as one line a terminal may show: its first error (the cause, before what
    followed from it), cleaned."""
    lines = [strip_unsafe(line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not line.startswith(("hint:", "To ", "From "))]
    line = next((ln for ln in lines if re.match(r"(?:fatal|error|remote|!)", ln)), lines[-1] if lines else "")
    return line[:300] or "(git said nothing)"
