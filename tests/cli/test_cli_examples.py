"""The quickstart and the async checkout run to completion, and the docs show the tested code."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from cli_helpers import REPO, cli_env

pytestmark = pytest.mark.slow

EXAMPLES = REPO / "examples"


def run_example(name: str) -> subprocess.CompletedProcess[str]:
    """Run examples/<name> with warnings as errors, bounded, from a neutral directory."""
    return subprocess.run(
        [sys.executable, "-W", "error", str(EXAMPLES / name)],
        env=cli_env(),
        cwd=REPO / "docs",
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )


def test_quickstart_runs_to_completion() -> None:
    """examples/quickstart.py pairs, charges, gets the approval, refunds and prints."""
    result = run_example("quickstart.py")
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if ":" in line]
    assert [line.split(":")[0] for line in lines] == [
        "paired",
        "accepted",
        "approved",
        "refund requested",
        "printed",
    ]
    assert "paired: SP-LOJA-01" in lines
    assert "\u2588" in result.stdout  # the QR code was drawn


def test_checkout_async_goes_through_every_outcome() -> None:
    """examples/checkout_async.py waits on an unknown outcome, retries a refusal, gets approved."""
    result = run_example("checkout_async.py")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert re.search(r"attempt 1: outcome unknown, waiting for the event of \S+", out)
    assert "attempt 1: refused (SALDO INSUFICIENTE); a new attempt needs a new referencia" in out
    assert "attempt 2: accepted" in out
    assert re.search(r"approved: \S+ autorizacao \w+", out)
    assert "refund requested:" in out
    assert out.index("attempt 1: refused") < out.index("attempt 2: accepted")


def test_quickstart_doc_shows_the_tested_program() -> None:
    """docs/en/quickstart.md contains examples/quickstart.py's program verbatim."""
    doc = (REPO / "docs" / "en" / "quickstart.md").read_text(encoding="utf-8")
    example = (EXAMPLES / "quickstart.py").read_text(encoding="utf-8")
    program = example[example.index("from __future__") :]
    blocks = re.findall(r"```python\n(.*?)```", doc, flags=re.DOTALL)
    assert program in blocks


def test_cli_doc_covers_every_command() -> None:
    """docs/en/cli.md has a section with an example for every command of the parser."""
    from smartpos.cli._app import build_parser

    doc = (REPO / "docs" / "en" / "cli.md").read_text(encoding="utf-8")
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for command in commands:
        assert f"## `smartpos {command}`" in doc
        assert f"$ smartpos {command}" in doc
