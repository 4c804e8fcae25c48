"""The store runs without the UI: it must not import Textual, Rich or tui."""

import pytest

import subprocess
import sys
from pathlib import Path


def test_store_imports_no_ui():
    code = ("import sys, store, store.library\n"
            "import pkgutil, importlib\n"
            "for m in pkgutil.walk_packages(store.__path__, 'store.'): importlib.import_module(m.name)\n"
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


def _third_party_imports(folder: Path) -> dict[str, str]:
    """Top-level modules imported anywhere under folder (absolute imports only) -> first file."""
    import ast
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                     else [])
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("store", "tui", "tests", "benchmarks"):
                    found.setdefault(top, str(path))
    return found


def _declared(extra: str | None) -> set[str]:
    import re
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = project["dependencies"] + (project["optional-dependencies"][extra] if extra else [])
    return {re.split(r"[<>=!~\[; ]", s, maxsplit=1)[0].lower().replace("_", "-") for s in specs}


ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_every_import_is_a_declared_dependency():
    """A fresh machine installs only what pyproject names: an undeclared import passes here
    (it happens to be installed) and fails for the user, so check the mapping itself."""
    from importlib.metadata import packages_distributions
    dists = packages_distributions()
    for folders, extra in (((ROOT / "store", ROOT / "tui"), None), ((ROOT / "tests",), "test")):
        declared = _declared(extra)
        for folder in folders:
            for module, where in _third_party_imports(folder).items():
                owners = {d.lower().replace("_", "-") for d in dists.get(module, [module])}
                assert owners & declared, f"{where} imports {module} ({', '.join(sorted(owners))}), " \
                                          f"not declared in pyproject.toml {extra or 'dependencies'}"


def test_a_command_that_ranks_nothing_loads_no_scipy(tmp_path):
    """SciPy (0.13 s to import) serves the models that rank papers: `list`, `status` and the
    other everyday commands start without it (every command paid for it)."""
    from store import Library
    Library.open(tmp_path / "lib")
    code = ("import sys\nfrom tui.cli.main import main\n"
            "for args in (['list', '--limit', '1'], ['stats'], ['search', 'graph']):\n"
            "    main(args)\n"
            "print('LOADED' if 'scipy' in sys.modules else 'NOT LOADED')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env={**__import__("os").environ, "PAPERSIFT_LIBRARY": str(tmp_path / "lib")})
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith("NOT LOADED"), proc.stdout[-300:] + proc.stderr
