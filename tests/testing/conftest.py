"""Fixtures for the sandbox's own tests: raw httpx clients through both ways of serving it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from sandbox_bodies import Bodies

from smartpos.testing import Sandbox

BASE_URL = "http://sandbox.invalid"


@pytest.fixture
def bodies() -> type[Bodies]:
    """The request body builders."""
    return Bodies


@pytest.fixture
def sandbox(smartpos_sandbox: Sandbox) -> Sandbox:
    """The plugin's fresh sandbox, under a short name."""
    return smartpos_sandbox


@pytest.fixture
def raw(sandbox: Sandbox) -> Iterator[httpx.Client]:
    """An httpx client with the default key, served in process by ``sandbox.transport()``."""
    with httpx.Client(
        base_url=BASE_URL, transport=sandbox.transport(), headers={"x-api-key": Sandbox.API_KEY}
    ) as client:
        yield client


@pytest.fixture(params=["transport", "serve"])
def api(request: pytest.FixtureRequest, sandbox: Sandbox) -> Iterator[httpx.Client]:
    """An httpx client with the default key, in process and over real HTTP on 127.0.0.1."""
    headers = {"x-api-key": Sandbox.API_KEY}
    if request.param == "transport":
        with httpx.Client(
            base_url=BASE_URL, transport=sandbox.transport(), headers=headers
        ) as client:
            yield client
    else:
        with (
            sandbox.serve() as base_url,
            httpx.Client(base_url=base_url, headers=headers, trust_env=False) as client,
        ):
            yield client
