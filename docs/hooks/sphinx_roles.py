"""Render the Sphinx roles and doctest blocks of smartpos' docstrings on the MkDocs site.

A Griffe extension, loaded by mkdocstrings (``extensions:`` in mkdocs.yml). The docstrings are
Google style but still use Sphinx roles (``:class:`Sandbox```, ``:meth:`~smartpos.Client.close```)
and bare ``>>>`` examples, which Markdown would show as ``:class:`` text and as a nested quote.
Until the docstrings themselves are converted (see ``roles_in`` and the report it feeds), this
rewrites them while the site is built, never in the source:

- a role becomes inline code, linked to the object's entry of the API reference when the name
  resolves (an *optional* cross-reference: no warning when it names something the reference does
  not render, such as a private helper); ``~`` keeps only the last component, as in Sphinx;
- a run of ``>>>``/``...`` lines (with the output lines after them) becomes a ``pycon`` block.

The same functions give the Markdown copies of the reference pages (docs/hooks/llms_txt.py).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable
from typing import Any

import griffe

__all__ = ["ROLE", "SphinxRoles", "convert", "doctest_blocks", "roles_in"]

#: A Sphinx role of the Python domain, as the docstrings write them.
ROLE = re.compile(r":(?:py:)?(class|func|meth|attr|mod|exc|data|obj|const):`(~?)([^`]+)`")
_FENCE = re.compile(r"^\s*(```|~~~)")


def roles_in(text: str) -> list[str]:
    """Every Sphinx role written in ``text``, as written (for the list of roles still used)."""
    return [match.group(0) for match in ROLE.finditer(text)]


def _title(target: str, short: bool) -> str:
    target = target.strip()
    if short:
        target = target.rsplit(".", 1)[-1]
    return target.lstrip(".")


def convert(
    text: str,
    resolve: Callable[[str], str | None] = lambda _name: None,
    *,
    markdown_links: bool = False,
) -> str:
    """Rewrite the Sphinx roles and doctest runs of a docstring into Markdown.

    Args:
        text: The docstring.
        resolve: Gives the full dotted path of a role's target, or ``None`` when it does not
            resolve (the role is then plain inline code).
        markdown_links: Write plain inline code (for a Markdown copy) instead of the HTML
            cross-reference that mkdocs-autorefs turns into a link.

    Returns:
        The docstring with every role replaced.
    """

    def role(match: re.Match[str]) -> str:
        short, target = match.group(2) == "~", match.group(3)
        title = _title(target, short)
        path = None if markdown_links else resolve(target.strip())
        if path is None:
            return f"`{title}`"
        return (
            f'<autoref identifier="{html.escape(path)}" optional>'
            f"<code>{html.escape(title)}</code></autoref>"
        )

    return doctest_blocks(ROLE.sub(role, text))


def doctest_blocks(text: str) -> str:
    """Fence every run of ``>>>`` lines (and the output after them) as a ``pycon`` block."""
    out: list[str] = []
    lines = text.splitlines()
    index = 0
    in_fence = False
    while index < len(lines):
        line = lines[index]
        if _FENCE.match(line):
            in_fence = not in_fence
        if in_fence or not line.lstrip().startswith(">>>"):
            out.append(line)
            index += 1
            continue
        indent = line[: len(line) - len(line.lstrip())]
        block: list[str] = []
        while index < len(lines) and lines[index].strip() and lines[index].startswith(indent):
            block.append(lines[index][len(indent) :])
            index += 1
        out.extend([f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"])
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _resolver(obj: griffe.Object) -> Callable[[str], str | None]:
    """Resolve a role's target the way Sphinx does: the object, then its parents' scopes."""

    def resolve(target: str) -> str | None:
        if target.startswith("."):
            module = obj.module
            return _existing(obj, f"{module.path}{target}")
        head, _, rest = target.partition(".")
        scope: Any = obj
        while scope is not None:
            try:
                path: str = scope.resolve(head)
            except (griffe.NameResolutionError, AttributeError):
                path = ""
            if not path and head in getattr(scope, "members", {}):
                path = scope.members[head].path
            if path:
                return _existing(obj, f"{path}.{rest}" if rest else path)
            scope = scope.parent
        return _existing(obj, target)

    return resolve


def _existing(obj: griffe.Object, path: str) -> str | None:
    """The path when it names an object of the loaded package, else ``None``."""
    package = obj.package
    if not path.startswith(package.path + ".") and path != package.path:
        return None
    try:
        package[path[len(package.path) + 1 :]] if path != package.path else package
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None
    return path


class SphinxRoles(griffe.Extension):
    """Rewrite the Sphinx roles and doctest runs of every docstring of the loaded package."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Convert the docstrings once the whole package is loaded, so that names resolve."""
        for obj in _walk(pkg):
            if obj.docstring is not None:
                obj.docstring.value = convert(obj.docstring.value, _resolver(obj))


def _walk(obj: griffe.Object) -> Iterable[griffe.Object]:
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _walk(member)
