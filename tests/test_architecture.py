"""The import graph a newcomer can follow: no circles anywhere in store/ or tui/, no part of
store/library/ importing the Library facade (the parts take a LibraryCore; the facade builds them),
and every module of store/ placed in the store's layers; modules small and functions simple
enough to read. The contracts import-linter checks in CI (pyproject.toml's [tool.importlinter])
say the rest."""

from __future__ import annotations

import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent

PARTS = ("core", "marks", "papers", "search", "discovery", "stats", "removal")


def graph() -> grimp.ImportGraph:
    return grimp.build_graph("store", "tui", include_external_packages=False)


def circles(g: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(g.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(g.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(g.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_no_module_imports_itself_through_others():
    assert circles(graph()) == []


def test_the_finder_finds_a_circle():
    g = graph()
    g.add_import(importer="store.models", imported="store.library.core")
    assert any("store.models" in group and "store.library.core" in group for group in circles(g))


def test_no_part_of_the_library_imports_the_facade():
    g = graph()
    for part in PARTS:
        assert "store.library" not in g.find_modules_directly_imported_by(f"store.library.{part}"), part


def store_layers() -> list[str]:
    """The names in the store-wide layers contract, top layer first."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    (layered,) = [c for c in contracts if c["type"] == "layers" and c["containers"] == ["store"]]
    return [name.strip() for layer in layered["layers"] for name in layer.split(":")]


def test_every_module_of_the_store_has_a_layer():
    """A module added to store/ is placed in the layers the day it is added, or this fails."""
    names = store_layers()
    assert len(names) == len(set(names))
    here = {p.stem for p in (ROOT / "store").glob("*.py") if p.stem != "__init__"}
    here |= {p.parent.name for p in (ROOT / "store").glob("*/__init__.py")}
    assert sorted(here) == sorted(names)


def _sources() -> list[Path]:
    return sorted(p for package in ("store", "tui") for p in (ROOT / package).rglob("*.py"))


def test_every_module_stays_small():
    """A module a newcomer reads in one sitting: at most 400 lines."""
    lines = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines()) for p in _sources()}
    big = {name: n for name, n in lines.items() if n > 400}
    assert big == {}


def test_every_class_stays_small():
    """A class read in one sitting: at most 300 lines (the parts it grows are parts of their own)."""
    import ast

    big = [f"{p.relative_to(ROOT)}:{node.lineno} {node.name} {node.end_lineno - node.lineno + 1}"
           for p in _sources() for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
           if isinstance(node, ast.ClassDef) and node.end_lineno is not None and node.end_lineno - node.lineno >= 300]
    assert big == []


def test_no_block_is_beyond_grade_d_and_few_reach_it():
    """radon's grades: no function, method or class at E or F (complexity over 30), at most ten at D (21-30)."""
    from radon.complexity import cc_rank, cc_visit

    graded: dict[str, list[str]] = {}
    for p in _sources():
        for block in cc_visit(p.read_text(encoding="utf-8")):  # functions, classes and their methods
            rank = cc_rank(block.complexity)
            if rank in "DEF":
                graded.setdefault(rank, []).append(f"{p.relative_to(ROOT)}:{block.lineno} {block.name} {block.complexity}")
    assert graded.get("E", []) + graded.get("F", []) == []
    assert len(graded.get("D", [])) <= 10, graded["D"]
