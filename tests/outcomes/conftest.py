"""Fixtures of the outcome tests: a store of each kind, and the sandbox delivering into it.

A test that takes ``store`` runs once per store kind (Memory, SQLite, and a real redis-server
and PostgreSQL, started by the helpers of ``tests/webhooks/servers.py``); combined with the
root conftest's ``flavour`` it runs with ``Client`` and ``AsyncClient`` on every store. The
``sandbox`` fixture delivers every event into a ``WebhookReceiver`` on that same store, the way
production wires the service's webhook to the receiver.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# The real servers' helpers live with the store tests; they are shared, not copied.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "webhooks"))

from servers import postgres_server, redis_server

from smartpos.testing import Sandbox
from smartpos.webhooks import MemoryStore, SQLiteStore, StoreBase, WebhookReceiver

__all__ = ["StoreFactory", "make_store", "postgres_server", "redis_server", "sandbox", "store"]

STORE_KINDS = [
    "memory",
    "sqlite",
    pytest.param("redis", marks=[pytest.mark.redis, pytest.mark.slow]),
    pytest.param("postgres", marks=[pytest.mark.postgres, pytest.mark.slow]),
]

StoreFactory = Callable[[], StoreBase]


@pytest.fixture(params=STORE_KINDS)
def store_kind(request: pytest.FixtureRequest) -> str:
    """The kind of store of this run: memory, sqlite, redis or postgres."""
    return str(request.param)


@pytest.fixture
def make_store(
    store_kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[StoreFactory]:
    """Open stores of this run's kind on one database (a file, a prefix, a table), closed after.

    Every store it opens sees the same journal and inbox, as processes sharing a store do
    (MemoryStore: the same object).
    """
    opened: list[StoreBase] = []
    shared: dict[str, Any] = {}
    name = f"o{uuid.uuid4().hex[:12]}"

    def make() -> StoreBase:
        store: StoreBase
        if store_kind == "memory":
            if "memory" not in shared:
                shared["memory"] = MemoryStore()
                opened.append(shared["memory"])
            return shared["memory"]  # type: ignore[no-any-return]
        if store_kind == "sqlite":
            store = SQLiteStore(tmp_path / "inbox.sqlite3")
        elif store_kind == "redis":
            from smartpos.webhooks import RedisStore

            server = request.getfixturevalue("redis_server")
            store = RedisStore(server.url, prefix=name, check_settings=False)
        else:
            from smartpos.webhooks import PostgresStore

            server = request.getfixturevalue("postgres_server")
            store = PostgresStore(server.dsn, table=name)
            store.migrate()
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def store(make_store: StoreFactory) -> StoreBase:
    """A store of this run's kind."""
    return make_store()


@pytest.fixture
def sandbox(store: StoreBase) -> Iterator[Sandbox]:
    """A sandbox whose webhook is a ``WebhookReceiver`` writing into ``store``."""
    with Sandbox() as sandbox:
        sandbox.set_webhook(WebhookReceiver(store))
        yield sandbox
