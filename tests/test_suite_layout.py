"""The test suite's own layout: every module under tests/ has a basename of its own.

pyproject.toml sets no ``--import-mode``, so pytest imports test modules in its default
``prepend`` mode, and the folders under tests/ are not packages (no ``__init__.py``): each test
module is imported as a top-level module named by its basename, its folder put first on
``sys.path``. Two files with the same basename (``tests/webhooks/test_examples.py`` and
``tests/conformance/test_examples.py`` once) are then one module name: the second fails to
collect ("import file mismatch"), which broke CI once. The helper modules the tests import
by name (``servers``, ``store_contract``) share that namespace too, where a second file of the
same name would be silently shadowed by whichever folder comes first on ``sys.path``.
``conftest.py`` files are the exception: pytest drops the previous ``conftest`` module before
importing the next one.
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent


def top_level_modules() -> dict[str, list[str]]:
    """The modules under tests/ imported by their basename: basename -> their paths."""
    found: dict[str, list[str]] = collections.defaultdict(list)
    for path in sorted(TESTS.rglob("*.py")):
        # A module of a package (smartpos_later_migrations/) is named by its package.
        if path.name == "conftest.py" or (path.parent / "__init__.py").is_file():
            continue
        found[path.stem].append(str(path.relative_to(REPO)))
    return found


def test_the_import_mode_is_the_one_this_module_explains(pytestconfig: pytest.Config) -> None:
    """The reason above holds while pytest runs in its default ``prepend`` import mode."""
    assert pytestconfig.getoption("importmode") == "prepend"
    assert "import-mode" not in (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert not (TESTS / "__init__.py").exists()


def test_module_basenames_under_tests_are_unique() -> None:
    """Two test (or helper) modules with one basename would be one module for pytest."""
    modules = top_level_modules()
    assert {"test_examples", "servers", "test_suite_layout"} <= set(modules)
    shared = {name: paths for name, paths in modules.items() if len(paths) > 1}
    assert shared == {}, (
        "these modules under tests/ share a basename, which pytest's prepend import mode "
        f"makes one module name (rename one of each): {shared}"
    )


def test_a_shared_basename_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check sees a basename shared across folders (what broke CI once)."""
    for folder in ("webhooks", "conformance"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "test_examples.py").write_text("", encoding="utf-8")
    (tmp_path / "conftest.py").write_text("", encoding="utf-8")
    (tmp_path / "webhooks" / "conftest.py").write_text("", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "TESTS", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path.parent)

    modules = top_level_modules()

    assert sorted(modules["test_examples"]) == [
        f"{tmp_path.name}/conformance/test_examples.py",
        f"{tmp_path.name}/webhooks/test_examples.py",
    ]
    assert "conftest" not in modules
