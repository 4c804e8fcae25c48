"""The type checker CI runs (mypy, configured in pyproject.toml) fails a call to a member that
does not exist: on the Library, on a part reaching past its narrow core (store.library.cores)
into the Library, and on the search part itself (the call that once made `m` crash)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import ROOT

pytestmark = pytest.mark.slow  # (mypy reads numpy's and Textual's stubs: ~30 s cold)

BROKEN = '''
from store.library import Library
from store.library.search import LibrarySearch


def on_the_library(lib: Library) -> None:
    lib.similarityy


class Part(LibrarySearch):
    def on_the_part(self) -> None:
        self.similarity.scores(0)

    def past_the_core(self) -> None:
        self._core.remove(["x"])
'''


def test_mypy_fails_calls_to_members_that_do_not_exist(tmp_path):
    probe = tmp_path / "broken_calls.py"
    probe.write_text(BROKEN)
    proc = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", str(ROOT / ".mypy_cache"), str(probe)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    said = proc.stdout
    assert '"Library" has no attribute "similarityy"' in said, said
    assert '"Part" has no attribute "similarity"' in said, said
    assert '"SearchCore" has no attribute "remove"' in said, said  # (the part's narrow core: store.library.cores)


def test_mypy_is_strict_on_the_ui_too(tmp_path):
    """A function of tui/ without types fails as one of store/ does (the config's strict override
    names both packages); the probe is checked as a module of tui/."""
    package = tmp_path / "tui"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "untyped_probe.py").write_text("def shown(paper):\n    return paper\n")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", str(tmp_path / ".mypy_cache"), "-p", "tui.untyped_probe"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Function is missing a type annotation" in proc.stdout, proc.stdout
