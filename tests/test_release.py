"""The version comes from one place, and the installed metadata agrees with it.

The release itself (build, ``twine check``, clean installs on several Pythons) is checked by
scripts/release_check.py, which scripts/test.sh runs; docs/en/release.md is the checklist.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import smartpos

REPO = Path(__file__).resolve().parents[1]
VERSION_FILE = REPO / "src" / "smartpos" / "_version.py"
# Folders of a checkout that are not its source (see .gitignore).
_NOT_SOURCE = {"build", "dist", "site", "tmp", "htmlcov", "__pycache__"}


def test_the_installed_metadata_has_the_package_version() -> None:
    """``smartpos.__version__`` is the version pip installed (reinstall after changing it)."""
    assert version("smartpos") == smartpos.__version__


def test_hatch_reads_the_version_from_version_py() -> None:
    """pyproject.toml has no version of its own: hatch takes it from src/smartpos/_version.py."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    project = text.split("[project]\n", 1)[1].split("\n[", 1)[0]
    assert re.search(r"^dynamic = \[\"version\"\]$", project, re.MULTILINE)
    assert not re.search(r"^version\s*=", project, re.MULTILINE)
    hatch = text.split("[tool.hatch.version]\n", 1)[1].split("\n[", 1)[0]
    assert hatch.strip() == 'path = "src/smartpos/_version.py"'
    assert f'__version__ = "{smartpos.__version__}"' in VERSION_FILE.read_text(encoding="utf-8")


def test_no_other_file_spells_the_version_out() -> None:
    """Only _version.py holds the version string (CHANGELOG.md's release headings aside)."""
    pattern = re.compile(rf"(?<![\d.]){re.escape(smartpos.__version__)}(?![\d.])")
    found = []
    for path in _source_files(REPO):
        if path in (VERSION_FILE, REPO / "CHANGELOG.md"):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if pattern.search(text):
            found.append(str(path.relative_to(REPO)))
    assert found == []


def _source_files(folder: Path) -> Iterator[Path]:
    """The repository's files (a checkout or an unpacked sdist): no venv, cache or build."""
    for path in folder.iterdir():
        if path.name.startswith(".") or path.name in _NOT_SOURCE:
            continue
        if path.is_dir():
            yield from _source_files(path)
        elif path.is_file():
            yield path


def test_the_changelog_has_a_section_for_the_version() -> None:
    """The newest released section of CHANGELOG.md is this version, under ``[Unreleased]``."""
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", text, re.MULTILINE)
    assert ["Unreleased", smartpos.__version__] == headings[:2]
