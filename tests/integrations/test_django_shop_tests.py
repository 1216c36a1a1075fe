"""The example shop's own test suite (examples/django_shop/tests), run as its developers would:
``python -m pytest tests`` in the shop's folder, with smartpos's pytest plugin, on SQLite and on
PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from framework_helpers import EXAMPLES

pytest.importorskip("django")

SHOP = EXAMPLES / "django_shop"


def run_shop_tests(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SHOP_"))}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=SHOP,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_the_shop_tests_pass_on_sqlite(tmp_path: Path) -> None:
    """Orders paid once, split bills, late approvals: on a fresh SQLite file."""
    done = run_shop_tests({"DJANGO_DB": str(tmp_path / "shop.sqlite3")})

    assert 0 == done.returncode, done.stdout + done.stderr
    assert "5 passed" in done.stdout


@pytest.mark.slow
def test_the_shop_tests_pass_on_postgresql(postgres_server: Any) -> None:
    """The same suite on a fresh PostgreSQL database (LISTEN/NOTIFY wake-ups, row locks)."""
    import psycopg

    name = f"shop_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_server.dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            done = run_shop_tests(
                {
                    "SHOP_POSTGRES_NAME": name,
                    "SHOP_POSTGRES_HOST": "127.0.0.1",
                    "SHOP_POSTGRES_PORT": str(postgres_server.port),
                }
            )
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    assert 0 == done.returncode, done.stdout + done.stderr
    assert "5 passed" in done.stdout


def test_the_testing_guide_shows_the_lines_run_here() -> None:
    """docs/*/django-testing.md shows the two lines the tests above run (RUNNERS["shop-tests"]
    in test_docs_site): ``python -m pytest tests`` on SQLite, and with ``SHOP_POSTGRES_NAME``
    on PostgreSQL (here a fresh database of the session's server, its port added; ``-q`` and
    no cache provider besides)."""
    from test_docs_site import BLOCKS, RUNNERS, runner, shell_commands

    blocks = [block for block in BLOCKS if runner(block) == RUNNERS["shop-tests"]]
    assert ["docs/en/django-testing.md", "docs/pt-BR/django-testing.md"] == sorted(
        block.path for block in blocks
    )
    for block in blocks:
        lines = [
            ([w.partition("=")[0] for w in words if "=" in w], [w for w in words if "=" not in w])
            for words in shell_commands(block)
        ]
        assert [
            ([], ["python", "-m", "pytest", "tests"]),
            (["SHOP_POSTGRES_NAME"], ["python", "-m", "pytest", "tests"]),
        ] == lines, block
