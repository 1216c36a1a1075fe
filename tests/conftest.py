"""Fixtures of the core client's tests: one configured client per flavour, retries without waiting.

``tests/webhooks/`` and ``tests/testing/`` keep their own conftests; nothing here is autouse.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
import pytest_asyncio

import smartpos
from client_cases import API_KEY, BASE_URL, SDK


@pytest.fixture
def client() -> Iterator[smartpos.Client]:
    """A sync client with the test key; backoff disabled through configuration."""
    with smartpos.Client(api_key=API_KEY, base_url=BASE_URL, retry_backoff=0) as c:
        yield c


@pytest_asyncio.fixture
async def async_client() -> AsyncIterator[smartpos.AsyncClient]:
    """An async client with the test key; backoff disabled through configuration."""
    async with smartpos.AsyncClient(api_key=API_KEY, base_url=BASE_URL, retry_backoff=0) as c:
        yield c


@pytest.fixture
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Remove the SDK's environment variables, so that only arguments configure a client."""
    for name in ("SMARTPOS_API_KEY", "SMARTPOS_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(params=["sync", "async"])
def flavour(request: pytest.FixtureRequest) -> str:
    """Run the test once with Client and once with AsyncClient."""
    return str(request.param)


@pytest_asyncio.fixture
async def make_sdk(flavour: str) -> AsyncIterator[Callable[..., SDK]]:
    """Build clients of the current flavour (test key, no backoff); all closed afterwards."""
    made: list[SDK] = []

    def make(**options: Any) -> SDK:
        options = {"api_key": API_KEY, "base_url": BASE_URL, "retry_backoff": 0, **options}
        cls = smartpos.Client if flavour == "sync" else smartpos.AsyncClient
        sdk = SDK(cls(**options))
        made.append(sdk)
        return sdk

    yield make
    for sdk in made:
        await sdk.close()


@pytest.fixture
def sdk(make_sdk: Callable[..., SDK]) -> SDK:
    """A client of the current flavour with the default options."""
    return make_sdk()
