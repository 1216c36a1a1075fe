"""scripts/unasync.py refuses a substitution rule that matched nothing (as httpcore's does).

A dead rule means the async client changed under it: what the rule was meant to convert is
now copied into the sync client unconverted, or the rule is noise. Either way the script must
stop before it writes or checks anything. ``test_parity.py`` runs the script on the real client.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "unasync.py"


@pytest.fixture(scope="module")
def script() -> ModuleType:
    """scripts/unasync.py imported as a module (it runs nothing on import)."""
    spec = importlib.util.spec_from_file_location("unasync_script", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_rule_that_matches_is_applied_in_order(script: ModuleType) -> None:
    """Rules run in order, each on the text the previous ones left; the docstring is swapped."""
    source = '"""The async one."""\nasync def f():\n    await g()\n'
    rules = [(r"\basync def\b", "def"), (r"\bawait ", ""), (r"^def f", "def sync_f")]

    assert script.HEADER + "def sync_f():\n    g()\n" == script.unasync(source, rules)


@pytest.mark.parametrize(
    ("source", "expected_unused"),
    [
        pytest.param(
            '"""Doc."""\nasync def f(): ...\n', [r"\bawait "], id="a-rule-with-nothing-to-match"
        ),
        pytest.param(
            '"""Doc."""\nawait g()\n', [r"\basync def\b"], id="another-rule-with-nothing-to-match"
        ),
        pytest.param(
            "async def f():\n    await g()\n",
            [r'\A""".*?"""\n'],
            id="source-without-a-module-docstring",
        ),
        pytest.param('"""Doc."""\n', [r"\basync def\b", r"\bawait "], id="every-dead-rule-named"),
    ],
)
def test_a_rule_that_matched_nothing_is_an_error(
    script: ModuleType, source: str, expected_unused: list[str]
) -> None:
    """UnusedRuleError names exactly the rules (docstring swap included) that matched nothing."""
    rules = [(r"\basync def\b", "def"), (r"\bawait ", "")]

    with pytest.raises(script.UnusedRuleError) as info:
        script.unasync(source, rules)

    assert expected_unused == info.value.patterns


def test_a_rule_emptied_by_an_earlier_one_counts_as_unused(script: ModuleType) -> None:
    """A rule whose only matches an earlier rule consumed is dead too: order is part of it."""
    source = '"""Doc."""\nawait self._http.aclose()\n'
    rules = [(r"\bawait self\._http\.aclose\(\)", "self._http.close()"), (r"\bawait ", "")]

    with pytest.raises(script.UnusedRuleError) as info:
        script.unasync(source, rules)

    assert [r"\bawait "] == info.value.patterns


@pytest.mark.parametrize("args", [[], ["--check"]], ids=["generate", "check"])
def test_the_script_exits_2_and_writes_nothing_on_a_dead_rule(
    tmp_path: Path, args: list[str]
) -> None:
    """Run on a copy of the project whose async client lacks most converted names: exit 2."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(SCRIPT, tmp_path / "scripts" / "unasync.py")
    shutil.copy(SCRIPT.parent / "params_docs.py", tmp_path / "scripts" / "params_docs.py")
    package = tmp_path / "src" / "smartpos"
    package.mkdir(parents=True)
    shutil.copy(SCRIPT.parent.parent / "src" / "smartpos" / "_params.py", package / "_params.py")
    (package / "_async_client.py").write_text(
        '"""Async client."""\n\nimport builtins\n\n\nasync def f() -> None:\n    await g()\n',
        encoding="utf-8",
    )
    target = package / "_sync_client.py"
    target.write_text("# the committed sync client\n", encoding="utf-8")

    result = subprocess.run(
        [sys.executable, str(tmp_path / "scripts" / "unasync.py"), *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        timeout=60,
    )

    assert (2, "") == (result.returncode, result.stdout)
    first_line, *listed = result.stderr.splitlines()
    assert first_line.startswith("error: ")
    assert first_line.endswith("matched nothing in src/smartpos/_async_client.py:")
    assert r"    \banyio\.sleep\b" in listed
    assert r"    \bhttpx\.AsyncClient\b" in listed
    # The rules that did match are not blamed.
    assert r"    ^import builtins\n" not in listed
    assert r"    \basync def\b" not in listed
    assert r"    \bawait " not in listed
    assert "# the committed sync client\n" == target.read_text(encoding="utf-8")
