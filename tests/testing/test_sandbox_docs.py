"""The code on docs/*/testing.md really runs: each Python block is a pytest module that passes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
# The page in every language it is written in (docs/en/testing.md, later docs/pt-BR/testing.md).
PAGES = sorted(DOCS.glob("*/testing.md"))


def test_the_testing_page_is_found() -> None:
    """The English page at least: a moved page must not silently leave the test with nothing."""
    assert DOCS / "en" / "testing.md" in PAGES


@pytest.mark.slow
@pytest.mark.parametrize("doc", PAGES, ids=lambda p: str(p.relative_to(DOCS.parent)))
def test_every_python_block_of_the_testing_docs_passes(doc: Path, tmp_path: Path) -> None:
    """Every ```python block of the page, run by pytest with the plugin, passes."""
    blocks = re.findall(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) >= 8
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nfilterwarnings = error\nasyncio_default_fixture_loop_scope = function\n"
    )
    tests = 0
    for index, block in enumerate(blocks):
        (tmp_path / f"test_doc_{index}.py").write_text(block, encoding="utf-8")
        tests += len(re.findall(r"^def test_", block, re.MULTILINE))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert f"{tests} passed" in result.stdout
