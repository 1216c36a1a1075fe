"""The layers' "never" arrows and the absence of import cycles, read from the source with ast.

Every module under ``smartpos`` is parsed (never imported) and each ``import`` of a smartpos
module becomes an edge, classified by where it sits: at the top of the module, deferred
inside a function, or under ``if TYPE_CHECKING:`` (never executed). The rules:

- the core (every top-level private module but the clients and ``__main__``) imports no client;
- the simulator (``smartpos.testing``) imports no converter (``smartpos._wire``);
- the library (everything but the CLI) imports no CLI;
- ``smartpos.webhooks`` imports no client;
- no import cycle inside the package (``TYPE_CHECKING`` imports excluded: they never run).

A rule holds for what a module loads when it runs, so it follows the runtime edges (top-level
and deferred) transitively, and also checks each module's own ``TYPE_CHECKING`` edges. A
broken rule names the chain of edges with file and line.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import ast
import collections
import functools
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

import pytest

import smartpos

PACKAGE = Path(smartpos.__file__).parent
#: The client shells: what the core and the webhooks must never import.
CLIENTS = frozenset({"smartpos._async_client", "smartpos._sync_client", "smartpos._transports"})
#: The package's own ``__init__`` re-exports the clients: importing it loads them.
FACADE = "smartpos"
CONVERTER = "smartpos._wire"
CLI = "smartpos.cli"
#: ``python -m smartpos`` is the CLI's entry point, not library code.
CLI_ENTRY = "smartpos.__main__"

TOP, DEFERRED, TYPE_CHECKING_ONLY = "top-level", "deferred (in a function)", "TYPE_CHECKING only"


class Edge(NamedTuple):
    """One ``import`` of a smartpos module by another."""

    importer: str
    imported: str
    where: str  # file:line
    kind: str  # TOP, DEFERRED or TYPE_CHECKING_ONLY

    def __str__(self) -> str:
        return f"{self.importer} -> {self.imported}  ({self.where}, {self.kind})"


def module_name(path: Path, root: Path) -> str:
    """The dotted name of a module file under ``root`` (the directory holding ``smartpos``)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _Imports(ast.NodeVisitor):
    """Collects the smartpos imports of one module, each with its kind."""

    def __init__(self, name: str, *, is_package: bool, known: Iterable[str], where: str) -> None:
        self.name = name
        self.package = name if is_package else name.rpartition(".")[0]
        self.known = frozenset(known)
        self.where = where
        self.type_checking = 0
        self.functions = 0
        self.edges: list[Edge] = []

    def visit_If(self, node: ast.If) -> None:
        if not _is_type_checking(node.test):
            self.generic_visit(node)
            return
        self.type_checking += 1
        for child in node.body:
            self.visit(child)
        self.type_checking -= 1
        for child in node.orelse:  # the else branch of ``if TYPE_CHECKING`` runs
            self.visit(child)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._in_function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._in_function(node)

    def _in_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.functions += 1
        self.generic_visit(node)
        self.functions -= 1

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.split(".")[0] == "smartpos":
                self._add(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package.split(".")
            if node.level > 1:
                base = base[: -(node.level - 1)]
            module = ".".join([*base, node.module] if node.module else base)
        else:
            module = node.module or ""
        if module.split(".")[0] != "smartpos":
            return
        for alias in node.names:
            submodule = f"{module}.{alias.name}"
            # ``from smartpos.webhooks import _store`` imports a module; ``import X`` a name.
            self._add(submodule if submodule in self.known else module, node)

    def _add(self, imported: str, node: ast.stmt) -> None:
        if self.type_checking:
            kind = TYPE_CHECKING_ONLY
        elif self.functions:
            kind = DEFERRED
        else:
            kind = TOP
        self.edges.append(Edge(self.name, imported, f"{self.where}:{node.lineno}", kind))


def imports_of(
    name: str, source: str, *, is_package: bool = False, known: Iterable[str] = (), where: str = ""
) -> list[Edge]:
    """The smartpos imports of one module's source, in order."""
    visitor = _Imports(name, is_package=is_package, known=known, where=where or name)
    visitor.visit(ast.parse(source))
    return visitor.edges


@functools.cache
def package_modules() -> dict[str, Path]:
    """Every module of the installed smartpos package, by dotted name."""
    root = PACKAGE.parent
    return {module_name(path, root): path for path in sorted(PACKAGE.rglob("*.py"))}


@functools.cache
def package_edges() -> tuple[Edge, ...]:
    """Every smartpos import of every smartpos module."""
    modules = package_modules()
    root = PACKAGE.parent
    edges: list[Edge] = []
    for name, path in modules.items():
        edges += imports_of(
            name,
            path.read_text(encoding="utf-8"),
            is_package=path.name == "__init__.py",
            known=modules,
            where=path.relative_to(root).as_posix(),
        )
    return tuple(edges)


def runtime_graph(edges: Iterable[Edge]) -> dict[str, list[Edge]]:
    """Outgoing runtime edges (top-level and deferred) per module, first one per target."""
    graph: dict[str, dict[str, Edge]] = collections.defaultdict(dict)
    for edge in edges:
        if edge.kind != TYPE_CHECKING_ONLY and edge.imported != edge.importer:
            graph[edge.importer].setdefault(edge.imported, edge)
    return {name: list(targets.values()) for name, targets in graph.items()}


def forbidden_imports(
    edges: Sequence[Edge],
    sources: Callable[[str], bool],
    forbidden: Callable[[str], bool],
    *,
    not_through: Callable[[str], bool] = lambda name: False,
) -> list[str]:
    """Each way a source module reaches a forbidden one, as the chain of edges that does it.

    Runtime edges are followed transitively (shortest chain first, never expanding a module
    for which ``not_through`` is true); ``TYPE_CHECKING`` edges count only as a module's own.
    """
    graph = runtime_graph(edges)
    found: list[str] = []
    importers = sorted({e.importer for e in edges} | set(graph))
    for source in filter(sources, importers):
        chains: dict[str, list[Edge]] = {source: []}
        queue = collections.deque([source])
        while queue:
            current = queue.popleft()
            if current != source and (forbidden(current) or not_through(current)):
                continue
            for edge in graph.get(current, ()):
                if edge.imported not in chains:
                    chains[edge.imported] = [*chains[current], edge]
                    queue.append(edge.imported)
        for target, chain in sorted(chains.items()):
            if chain and forbidden(target):
                found.append("\n    ".join(["", *map(str, chain)]))
        found += [
            f"\n    {edge}"
            for edge in edges
            if edge.importer == source
            and edge.kind == TYPE_CHECKING_ONLY
            and forbidden(edge.imported)
        ]
    return found


def import_cycles(edges: Sequence[Edge]) -> list[str]:
    """One cycle of runtime edges per strongly connected group of modules, as its edges."""
    graph = runtime_graph(edges)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def connect(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for edge in graph.get(node, ()):
            nxt = edge.imported
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            connect(node)
    cycles = []
    for group in groups:
        start = min(group)
        # The shortest way back to ``start`` inside the group.
        chains: dict[str, list[Edge]] = {start: []}
        queue = collections.deque([start])
        cycle: list[Edge] = []
        while queue and not cycle:
            current = queue.popleft()
            for edge in graph.get(current, ()):
                if edge.imported == start:
                    cycle = [*chains[current], edge]
                    break
                if edge.imported in group and edge.imported not in chains:
                    chains[edge.imported] = [*chains[current], edge]
                    queue.append(edge.imported)
        cycles.append("\n    ".join(["", *map(str, cycle)]))
    return cycles


# --- who is who -----------------------------------------------------------------------------


def is_core(name: str) -> bool:
    """A top-level private module of smartpos that is not a client (``_core`` and its kin)."""
    return (
        name.startswith("smartpos._")
        and name.count(".") == 1
        and name not in CLIENTS
        and name != CLI_ENTRY
    )


def is_client(name: str) -> bool:
    """A client shell, or the package facade that imports them."""
    return name in CLIENTS or name == FACADE


def in_package(name: str, package: str) -> bool:
    """``name`` is ``package`` or one of its submodules."""
    return name == package or name.startswith(package + ".")


RULES: dict[str, tuple[Callable[[str], bool], Callable[[str], bool], Callable[[str], bool]]] = {
    # name: (sources, forbidden, not followed past)
    "the core imports no client": (is_core, is_client, lambda name: False),
    # The pytest plugin hands out clients bound to the sandbox: what it reaches through a client
    # is the client's, not the simulator's.
    "the simulator imports no converter": (
        lambda name: in_package(name, "smartpos.testing"),
        lambda name: name == CONVERTER,
        is_client,
    ),
    "the library imports no CLI": (
        lambda name: not in_package(name, CLI) and name != CLI_ENTRY,
        lambda name: in_package(name, CLI),
        lambda name: False,
    ),
    "smartpos.webhooks imports no client": (
        lambda name: in_package(name, "smartpos.webhooks"),
        is_client,
        lambda name: False,
    ),
}


# --- the rules, on the package --------------------------------------------------------------


@pytest.mark.parametrize("rule", sorted(RULES))
def test_never_arrows(rule: str) -> None:
    """No module on the left of a "never" arrow reaches one on its right."""
    sources, forbidden, not_through = RULES[rule]
    broken = forbidden_imports(package_edges(), sources, forbidden, not_through=not_through)
    assert [] == broken, f"{rule}, broken by:" + "".join(broken)


def test_no_import_cycle_inside_the_package() -> None:
    """No module imports itself back through others when it runs (TYPE_CHECKING excluded)."""
    cycles = import_cycles(package_edges())
    assert [] == cycles, "import cycles:" + "".join(cycles)


def test_the_walk_sees_the_whole_package() -> None:
    """The graph covers every layer and every kind of import (it cannot pass on nothing)."""
    modules = package_modules()
    assert {"smartpos", "smartpos._core", CONVERTER, CLI, "smartpos.webhooks._receipt"} <= set(
        modules
    )
    assert {"smartpos.testing._sandbox", *CLIENTS} <= set(modules)
    kinds = collections.Counter(edge.kind for edge in package_edges())
    assert {TOP, DEFERRED, TYPE_CHECKING_ONLY} == set(kinds)
    assert all(edge.imported in modules for edge in package_edges())


@pytest.mark.parametrize(
    "name",
    sorted(
        name
        for name in package_modules()
        if in_package(name, "smartpos.webhooks") and name.rpartition(".")[2].startswith("_")
    ),
)
def test_private_webhooks_modules_export_every_public_name(name: str) -> None:
    """Every public name a private module of smartpos.webhooks defines is in its __all__."""
    tree = ast.parse(package_modules()[name].read_text(encoding="utf-8"))
    defined: set[str] = set()
    exported: set[str] | None = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defined.add(node.target.id)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == "__all__":
                    exported = set(ast.literal_eval(node.value))
                elif isinstance(target, ast.Name):
                    defined.add(target.id)
    assert exported is not None, f"{name} has no literal __all__"
    assert set() == {n for n in defined if not n.startswith("_")} - exported


# --- the checker itself, on made-up modules -------------------------------------------------

SAMPLE = """
from typing import TYPE_CHECKING
import smartpos._wire
from . import _b
from ._c import thing
from .. import webhooks
if TYPE_CHECKING:
    from smartpos import Client
else:
    import smartpos._errors
def later():
    from smartpos.testing import Sandbox
async def later_too():
    import smartpos.cli
"""


def test_imports_are_classified_and_resolved() -> None:
    """Relative, absolute, deferred and TYPE_CHECKING imports each become the right edge."""
    known = {"smartpos.webhooks._b", "smartpos.webhooks._c", "smartpos.webhooks"}
    edges = imports_of("smartpos.webhooks._a", SAMPLE, known=known)
    assert [
        ("smartpos._wire", TOP),
        ("smartpos.webhooks._b", TOP),
        ("smartpos.webhooks._c", TOP),
        ("smartpos.webhooks", TOP),
        ("smartpos", TYPE_CHECKING_ONLY),
        ("smartpos._errors", TOP),
        ("smartpos.testing", DEFERRED),
        ("smartpos.cli", DEFERRED),
    ] == [(edge.imported, edge.kind) for edge in edges]
    assert "smartpos.webhooks._a:4" == edges[1].where


def test_a_package_resolves_relative_imports_from_itself() -> None:
    """In a package's __init__, ``from ._x import y`` is one of its own submodules."""
    edges = imports_of("smartpos.webhooks", "from ._store import Store\n", is_package=True)
    assert ["smartpos.webhooks._store"] == [edge.imported for edge in edges]


def test_a_broken_rule_names_the_chain_of_edges() -> None:
    """An indirect forbidden import is reported with every edge on the way, file and line."""
    edges = [
        Edge("smartpos._core", "smartpos._helpers", "smartpos/_core.py:10", TOP),
        Edge("smartpos._helpers", "smartpos._async_client", "smartpos/_helpers.py:3", DEFERRED),
        Edge("smartpos._models", "smartpos._sync_client", "smartpos/_models.py:7", TOP),
        Edge("smartpos._errors", "smartpos", "smartpos/_errors.py:9", TYPE_CHECKING_ONLY),
    ]
    broken = forbidden_imports(edges, is_core, is_client)
    assert [
        "\n    smartpos._core -> smartpos._helpers  (smartpos/_core.py:10, top-level)"
        "\n    smartpos._helpers -> smartpos._async_client  (smartpos/_helpers.py:3, deferred "
        "(in a function))",
        "\n    smartpos._errors -> smartpos  (smartpos/_errors.py:9, TYPE_CHECKING only)",
        "\n    smartpos._helpers -> smartpos._async_client  (smartpos/_helpers.py:3, deferred "
        "(in a function))",
        "\n    smartpos._models -> smartpos._sync_client  (smartpos/_models.py:7, top-level)",
    ] == broken


def test_not_through_stops_the_walk() -> None:
    """A module marked not_through is reported when forbidden, but never walked past."""
    edges = [
        Edge("smartpos.testing._plugin", "smartpos", "p.py:1", DEFERRED),
        Edge("smartpos", "smartpos._core", "i.py:1", TOP),
        Edge("smartpos._core", CONVERTER, "c.py:1", TOP),
    ]

    def simulator(name: str) -> bool:
        return in_package(name, "smartpos.testing")

    def converter(name: str) -> bool:
        return name == CONVERTER

    assert [] == forbidden_imports(edges, simulator, converter, not_through=is_client)
    assert 1 == len(forbidden_imports(edges, simulator, converter))


def test_a_cycle_is_reported_by_its_edges() -> None:
    """A cycle through a deferred import is a cycle; one closed only under TYPE_CHECKING is not."""
    edges = [
        Edge("smartpos.webhooks._adapters", "smartpos.webhooks._receiver", "a.py:35", TOP),
        Edge("smartpos.webhooks._receiver", "smartpos.webhooks._adapters", "r.py:390", DEFERRED),
        Edge("smartpos._core", "smartpos.webhooks", "c.py:67", TYPE_CHECKING_ONLY),
        Edge("smartpos.webhooks", "smartpos._core", "w.py:1", TOP),
    ]
    assert [
        "\n    smartpos.webhooks._adapters -> smartpos.webhooks._receiver  (a.py:35, top-level)"
        "\n    smartpos.webhooks._receiver -> smartpos.webhooks._adapters  (r.py:390, deferred "
        "(in a function))"
    ] == import_cycles(edges)


def test_the_core_re_exports_nothing() -> None:
    """Each piece is imported from its own module: ``_core`` exports only what it defines."""
    import importlib

    core = importlib.import_module("smartpos._core")
    foreign = [
        name
        for name in core.__all__
        if getattr(getattr(core, name), "__module__", "smartpos._core") != "smartpos._core"
    ]
    assert [] == foreign
