"""The code on docs/*/testing.md really runs: each Python block is a pytest module that passes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from smartpos.testing._control import PREFIX, ROUTES
from smartpos.testing._headless import ENVIRONMENT

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


def test_every_control_route_is_documented() -> None:
    """Each route of the control API has its row in docs/en/testing.md."""
    text = (DOCS / "en" / "testing.md").read_text(encoding="utf-8")
    missing = [
        f"{route.method} {PREFIX}{route.path}"
        for route in ROUTES
        if f"`{route.method} {PREFIX}{route.path}`" not in text
    ]
    assert [] == missing


def test_the_container_entry_is_documented() -> None:
    """Every SMARTPOS_SANDBOX_* variable is documented, and the compose service installs smartpos.

    The docker-compose block uses only variables the program reads, and the published package
    (``pip install smartpos`` in a stock Python image): there is no image to build by hand.
    """
    text = (DOCS / "en" / "testing.md").read_text(encoding="utf-8")
    for variable in ENVIRONMENT.values():
        assert f"`{variable}`" in text, variable
    [compose] = re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)
    sandbox_service = compose.split("  app:")[0]
    assert "image: python:" in sandbox_service
    assert "pip install --no-cache-dir smartpos" in sandbox_service
    assert "python -m smartpos.testing" in sandbox_service
    assert "build:" not in sandbox_service
    used = set(re.findall(r"(SMARTPOS_SANDBOX_\w+):", compose))
    assert used
    assert set() == used - set(ENVIRONMENT.values())
