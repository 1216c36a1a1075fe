"""Clients given a store's URL or path: ``webhooks.open_store`` opens it, close() closes it.

Each test runs with ``Client`` and ``AsyncClient`` (``flavour``); Redis and PostgreSQL are real
servers (``tests/webhooks/servers.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from outcome_helpers import PAYMENT

import smartpos
from client_cases import SDK
from smartpos.testing import Sandbox
from smartpos.webhooks import (
    MemoryStore,
    PagamentoAprovado,
    SQLiteStore,
    StoreError,
    WebhookReceiver,
    open_store,
)

pytestmark = pytest.mark.asyncio

BASE = "http://sandbox.test"


def _url(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if kind == "sqlite-url":
        return f"sqlite:///{tmp_path}/inbox.sqlite3"
    if kind == "path":
        return str(tmp_path / "inbox.sqlite3")
    if kind == "redis":
        return str(request.getfixturevalue("redis_server").url)
    port = request.getfixturevalue("postgres_server").port
    dsn = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    with open_store(dsn) as store:
        store.migrate()  # type: ignore[attr-defined]
    return dsn


@pytest.mark.parametrize(
    "kind",
    [
        "path",
        "sqlite-url",
        pytest.param("redis", marks=[pytest.mark.redis, pytest.mark.slow]),
        pytest.param("postgres", marks=[pytest.mark.postgres, pytest.mark.slow]),
    ],
)
async def test_a_client_given_a_store_url_journals_and_waits_in_that_store(
    kind: str,
    make_sdk: Callable[..., SDK],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    """create_and_wait works on a client built with a URL, and the store is the URL's."""
    url = _url(kind, tmp_path, request)
    with open_store(url) as receiving, Sandbox() as sandbox:
        sandbox.set_webhook(WebhookReceiver(receiving))
        sdk = make_sdk(
            api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=url
        )
        referencia = smartpos.new_referencia()

        event = await sdk.call(
            "payments", "create_and_wait", **PAYMENT, referencia=referencia, timeout=5
        )
        operation = receiving.operation(referencia)

    assert isinstance(event, PagamentoAprovado)
    assert operation is not None
    assert "final" == operation.state


async def test_a_client_closes_the_store_it_opened_and_never_one_it_was_given(
    make_sdk: Callable[..., SDK], tmp_path: Path
) -> None:
    """close() closes a store opened from a URL; a store object passed in stays open."""
    given = MemoryStore()
    from_url = make_sdk(store=f"sqlite:///{tmp_path}/a.sqlite3")
    from_object = make_sdk(store=given)
    opened: Any = from_url.client._store

    await from_url.close()
    await from_object.close()

    assert isinstance(opened, SQLiteStore)
    with pytest.raises(StoreError):
        opened.operations()
    assert [] == given.operations()
    given.close()


@pytest.mark.parametrize("url", ["memory:", "memory://"])
async def test_memory_urls_open_a_memory_store(make_sdk: Callable[..., SDK], url: str) -> None:
    """memory: and memory:// both give a MemoryStore (tests only)."""
    sdk = make_sdk(store=url)

    assert isinstance(sdk.client._store, MemoryStore)


async def test_an_unknown_store_url_is_refused_without_its_password(
    client_class: type[smartpos.Client] | type[smartpos.AsyncClient],
) -> None:
    """A URL of no store raises ConfigurationError naming the schemes, never the password."""
    with pytest.raises(smartpos.ConfigurationError) as info:
        client_class(api_key="k", base_url=BASE, store="mongodb://u:s3cret@h/db")

    assert "redis://" in str(info.value)
    assert "s3cret" not in str(info.value)
