"""Fixtures of the core client's tests: clients of each flavour, retries without waiting.

A test that takes ``flavour`` (directly or through ``sdk``, ``make_sdk``, ``client_class`` or
``make_http``) runs twice, once with ``Client`` and once with ``AsyncClient``: one test body
per behaviour, for both clients. ``tests/webhooks/`` and ``tests/testing/`` keep their own
conftests; nothing here is autouse.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
import pytest_asyncio

import smartpos
from client_cases import API_KEY, BASE_URL, SDK


@pytest.fixture
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Remove the SDK's environment variables, so that only arguments configure a client."""
    for name in ("SMARTPOS_API_KEY", "SMARTPOS_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(params=["sync", "async"])
def flavour(request: pytest.FixtureRequest) -> str:
    """Run the test once with Client and once with AsyncClient."""
    return str(request.param)


@pytest.fixture
def client_class(flavour: str) -> type[smartpos.Client] | type[smartpos.AsyncClient]:
    """The client class of the current flavour, for tests that build one themselves."""
    return smartpos.Client if flavour == "sync" else smartpos.AsyncClient


@pytest_asyncio.fixture
async def make_sdk(
    client_class: type[smartpos.Client] | type[smartpos.AsyncClient],
) -> AsyncIterator[Callable[..., SDK]]:
    """Build clients of the current flavour (test key, no backoff); all closed afterwards."""
    made: list[SDK] = []

    def make(**options: Any) -> SDK:
        options = {"api_key": API_KEY, "base_url": BASE_URL, "retry_backoff": 0, **options}
        sdk = SDK(client_class(**options))
        made.append(sdk)
        return sdk

    yield make
    for sdk in made:
        await sdk.close()


@pytest.fixture
def sdk(make_sdk: Callable[..., SDK]) -> SDK:
    """A client of the current flavour with the default options."""
    return make_sdk()


@pytest_asyncio.fixture
async def make_http(flavour: str) -> AsyncIterator[Callable[..., Any]]:
    """Build a user's httpx client: ``make_http(**options)`` of the current flavour, or
    ``make_http("sync" | "async", **options)``; all closed afterwards."""
    made: list[httpx.Client | httpx.AsyncClient] = []

    def make(of: str = flavour, /, **options: Any) -> httpx.Client | httpx.AsyncClient:
        http = httpx.Client(**options) if of == "sync" else httpx.AsyncClient(**options)
        made.append(http)
        return http

    yield make
    for http in made:
        if isinstance(http, httpx.AsyncClient):
            await http.aclose()
        else:
            http.close()
