"""The README's code really runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    """Return the README's ```python blocks."""
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)


def test_the_sandbox_quickstart_runs_to_the_refund() -> None:
    """The five-minute quickstart pairs, charges, gets the approval, prints and refunds."""
    block = next(b for b in python_blocks() if "Sandbox()" in b)
    result = subprocess.run(
        [sys.executable, "-c", block],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    last = result.stdout.strip().splitlines()[-1].split()
    assert len(last) == 2
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", last[1])


def test_the_readme_names_exactly_two_setup_commands() -> None:
    """The fresh-clone section holds the demo command and the test command, both scripts."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## On a fresh clone", 1)[1].split("##", 1)[0]
    commands = re.findall(r"^(bash scripts/\S+)", section, re.MULTILINE)
    assert commands == ["bash scripts/demo.sh", "bash scripts/test.sh"]
    for command in commands:
        assert (README.parent / command.split()[1]).is_file()
