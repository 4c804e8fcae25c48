"""The import graph a newcomer can follow: no circles anywhere in store/ or tui/, and no part of
store/library/ importing the Library facade (the parts take a LibraryCore; the facade builds them).
The contracts import-linter checks in CI (pyproject.toml's [tool.importlinter]) say the rest."""

from __future__ import annotations

import grimp

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
