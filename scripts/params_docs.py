"""Copy each endpoint's parameter documentation into the clients' ``Args:`` sections.

The keywords of an endpoint are written once, as a ``TypedDict`` in ``src/smartpos/_params.py``
whose ``Attributes:`` section documents each key. A client method that takes them
(``**params: Unpack[PaymentParams]``) lists them first in its ``Args:``, with exactly that text,
then its own parameters (``timeout``, ``show``...). ``fill_args`` rewrites the async client's
source so; ``scripts/unasync.py`` runs it before it writes the sync client, and its ``--check``
fails when a docstring is stale.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARAMS = ROOT / "src" / "smartpos" / "_params.py"

_ENTRY = re.compile(r"^(\w+):")


def _entries(lines: list[str], indent: int) -> dict[str, list[str]]:
    """The entries of a Google-style section: name -> its lines, without the common indent."""
    entries: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines:
        body = line[indent:]
        match = _ENTRY.match(body) if not body.startswith(" ") else None
        if match:
            current = entries.setdefault(match.group(1), [])
        if current is None:
            raise ValueError(f"not an entry of a section: {line!r}")
        current.append(body)
    return entries


def _section(doc_lines: list[str], title: str) -> tuple[int, int, int]:
    """Where the entries of ``title:`` are: (first line, end line, their indent)."""
    for index, line in enumerate(doc_lines):
        if line.strip() == f"{title}:":
            indent = len(line) - len(line.lstrip()) + 4
            end = index + 1
            while end < len(doc_lines) and (
                doc_lines[end].startswith(" " * indent) and doc_lines[end].strip()
            ):
                end += 1
            return index + 1, end, indent
    raise ValueError(f"no {title}: section")


def documented_keys() -> dict[str, dict[str, list[str]]]:
    """Each ``TypedDict`` of ``_params.py`` -> its keys' documentation, in the keys' order."""
    tree = ast.parse(PARAMS.read_text(encoding="utf-8"))
    result: dict[str, dict[str, list[str]]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
            continue
        doc = ast.get_docstring(node, clean=True)
        if doc is None:
            raise ValueError(f"_params.{node.name} has no docstring")
        lines = doc.splitlines()
        start, end, indent = _section(lines, "Attributes")
        result[node.name] = _entries(lines[start:end], indent)
    return result


def _unpacked(function: ast.AsyncFunctionDef | ast.FunctionDef) -> str | None:
    """The ``TypedDict`` of ``**params: Unpack[X]``, if the function takes one."""
    annotation = function.args.kwarg.annotation if function.args.kwarg else None
    if (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.value, ast.Name)
        and annotation.value.id == "Unpack"
        and isinstance(annotation.slice, ast.Name)
    ):
        return annotation.slice.id
    return None


def fill_args(source: str) -> str:
    """``source`` with the ``Args:`` of each ``**params`` method rewritten from ``_params``."""
    documented = documented_keys()
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, list[str]]] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.AsyncFunctionDef, ast.FunctionDef)):
            continue
        kind = _unpacked(node)
        if kind is None:
            continue
        keys = documented[kind]
        docstring = node.body[0]
        if not (
            isinstance(docstring, ast.Expr)
            and isinstance(docstring.value, ast.Constant)
            and isinstance(docstring.value.value, str)
        ):
            raise ValueError(f"{node.name} (line {node.lineno}) has no docstring")
        first = docstring.lineno - 1
        doc_lines = [line.rstrip("\n") for line in lines[first : docstring.end_lineno]]
        start, end, indent = _section(doc_lines, "Args")
        own = _entries(doc_lines[start:end], indent)
        written = [
            *(text for entry in keys.values() for text in entry),
            *(text for name, entry in own.items() if name not in keys for text in entry),
        ]
        replacement = [f"{' ' * indent}{text}\n" for text in written]
        edits.append((first + start, first + end, replacement))
    for start, end, replacement in sorted(edits, reverse=True):
        lines[start:end] = replacement
    return "".join(lines)


if __name__ == "__main__":
    sys.exit(
        "run python scripts/unasync.py: it fills the Args sections, then writes the sync client"
    )
