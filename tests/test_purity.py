"""The store runs without the UI: it must not import Textual, Rich or tui."""

import subprocess
import sys
from pathlib import Path


def test_store_imports_no_ui():
    code = ("import sys, store, store.library, store.search, store.importer, store.annotations, store.records\n"
            "import pkgutil, importlib\n"
            "for m in pkgutil.iter_modules(store.__path__): importlib.import_module('store.' + m.name)\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'tui')]\n"
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_no_source_line_imports_ui_in_store():
    root = Path(__file__).resolve().parent.parent / "store"
    for path in root.rglob("*.py"):
        for line in path.read_text().splitlines():
            s = line.strip()
            assert not s.startswith(("import textual", "from textual", "import rich", "from rich", "from tui", "import tui")), f"{path}: {s}"
