"""The shape of smartpos.testing: no import cycle, and a complete __all__ in every module."""

from __future__ import annotations

import ast
from pathlib import Path

import smartpos.testing

PACKAGE = "smartpos.testing"
ROOT = Path(smartpos.testing.__file__).parent


def _module_name(path: Path) -> str:
    return PACKAGE if path.stem == "__init__" else f"{PACKAGE}.{path.stem}"


def _modules() -> dict[str, ast.Module]:
    return {
        _module_name(path): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(ROOT.glob("*.py"))
    }


def _imports(tree: ast.Module) -> set[str]:
    """Every module of the package that ``tree`` imports, at any level (functions and
    ``TYPE_CHECKING`` blocks included): a cycle through either is still a cycle to read."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            elif node.level == 1:
                base = PACKAGE + (f".{node.module}" if node.module else "")
            else:
                continue  # from .. import: the SDK, outside the package
            if node.module is None:
                found.update(f"{base}.{alias.name}" for alias in node.names)
            else:
                found.add(base)
    return {name for name in found if name == PACKAGE or name.startswith(PACKAGE + ".")}


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """Return one import cycle of ``graph`` as a path, or ``[]`` when there is none."""
    done: set[str] = set()
    path: list[str] = []

    def visit(name: str) -> list[str]:
        if name in path:
            return [*path[path.index(name) :], name]
        if name in done:
            return []
        path.append(name)
        for target in sorted(graph.get(name, ())):
            found = visit(target)
            if found:
                return found
        path.pop()
        done.add(name)
        return []

    for name in sorted(graph):
        found = visit(name)
        if found:
            return found
    return []


def test_the_cycle_finder_finds_a_cycle() -> None:
    """The finder below reports a cycle when there is one (so an empty answer means something)."""
    assert ["a", "b", "c", "a"] == _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    assert [] == _cycle({"a": {"b"}, "b": {"c"}, "d": {"a", "c"}})


def test_no_import_cycle_inside_smartpos_testing() -> None:
    """No module of smartpos.testing imports, directly or not, a module that imports it."""
    graph = {name: _imports(tree) - {name} for name, tree in _modules().items()}
    assert len(graph) > 10
    assert [] == _cycle(graph)


def test_no_module_imports_the_package_itself() -> None:
    """Submodules import their siblings, never ``smartpos.testing`` (its __init__ is lazy)."""
    importers = [
        name for name, tree in _modules().items() if name != PACKAGE and PACKAGE in _imports(tree)
    ]
    assert [] == importers


def _public_definitions(tree: ast.Module) -> set[str]:
    """Names a module defines at its top level (not under ``if``), not starting with ``_``."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if not name.startswith("_")}


def _declared_all(tree: ast.Module) -> set[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return set(ast.literal_eval(node.value))
    raise AssertionError("no __all__")


def test_every_private_module_exports_exactly_what_it_defines() -> None:
    """Each private module's __all__ names every public name it defines, and nothing else."""
    wrong = {
        name: (sorted(_public_definitions(tree) - all_), sorted(all_ - _public_definitions(tree)))
        for name, tree in _modules().items()
        if name != PACKAGE
        for all_ in [_declared_all(tree)]
        if all_ != _public_definitions(tree)
    }
    assert {} == wrong
