"""The public surface shows its own changes: one reviewed snapshot, and httpx's ``__all__`` rule.

``tests/public_api.txt`` holds every public name of ``smartpos``, ``smartpos.webhooks`` and
``smartpos.testing`` with its signature, every public member of the exported classes and the
clients' resources; ``scripts/public_api.py`` regenerates it. A new public name or keyword then
appears as a diff someone reviews, instead of in three hand-copied lists.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import public_api  # noqa: E402 - a script of the repository, found through the path above

#: Dunder names a namespace exports on purpose.
PUBLIC_DUNDERS = {"__version__"}


def test_the_snapshot_of_the_public_surface_is_current() -> None:
    """tests/public_api.txt is what the package exports now (regenerate it and review)."""
    expected = public_api.SNAPSHOT.read_text(encoding="utf-8")
    actual = public_api.snapshot()
    assert expected == actual, (
        "the public surface changed: run `python scripts/public_api.py` and review the diff"
    )


def _public_names(module: types.ModuleType) -> set[str]:
    """What a namespace defines for its users: neither modules nor typing helpers."""
    names = set(getattr(module, "_LAZY", {}))  # loaded on first use: `import smartpos` is cheap
    for name, value in vars(module).items():
        if name.startswith("_") and name not in PUBLIC_DUNDERS:
            continue
        if isinstance(value, (types.ModuleType, bool)):
            continue  # submodules; TYPE_CHECKING
        if getattr(value, "__module__", "") in ("typing", "__future__"):
            continue  # Any, annotations
        if type(value).__module__ == "__future__":
            continue
        names.add(name)
    return names


@pytest.mark.parametrize("namespace", public_api.NAMESPACES)
def test_all_is_the_sorted_public_names(namespace: str) -> None:
    """httpx's rule: ``__all__`` equals the sorted public names of the namespace, no more."""
    module = importlib.import_module(namespace)
    assert sorted(_public_names(module)) == list(module.__all__)


@pytest.mark.parametrize("namespace", public_api.NAMESPACES)
def test_every_exported_name_is_in_the_snapshot(namespace: str) -> None:
    """The snapshot cannot pass on an empty file: each exported name has its line."""
    module = importlib.import_module(namespace)
    text = public_api.SNAPSHOT.read_text(encoding="utf-8")
    missing = [n for n in module.__all__ if f"{namespace}.{n}" not in text]
    assert [] == missing


def test_the_snapshot_lists_every_resource_method_of_both_clients() -> None:
    """Both clients' resources are in the snapshot, with the same methods."""
    text = public_api.snapshot()
    sync = [
        line
        for line in text.splitlines()
        if line.startswith("resource smartpos.Client.") and "with_raw_response" not in line
    ]
    asynchronous = [
        line
        for line in text.splitlines()
        if line.startswith("resource smartpos.AsyncClient.") and "with_raw_response" not in line
    ]
    assert len(sync) == len(asynchronous) == 5
