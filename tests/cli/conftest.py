"""Fixtures of the command's tests: background commands stopped by PID, a served sandbox."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from cli_helpers import Starter, cli_env

from smartpos.testing import Sandbox


@pytest.fixture
def background() -> Iterator[Starter]:
    """Start background commands; every one still running at the end is stopped by its PID."""
    starter = Starter()
    yield starter
    for proc in starter.started:
        if proc.process.returncode is None:
            proc.stop()


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Sandbox, str]]:
    """A sandbox served over HTTP on 127.0.0.1 for the whole module, with its base URL."""
    with Sandbox() as sandbox, sandbox.serve() as base_url:
        yield sandbox, base_url


@pytest.fixture
def sandbox_env(served: tuple[Sandbox, str]) -> dict[str, str]:
    """The environment that points the command at the served sandbox."""
    _, base_url = served
    return cli_env(SMARTPOS_API_KEY=Sandbox.API_KEY, SMARTPOS_BASE_URL=base_url)
