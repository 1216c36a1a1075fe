"""PostgresStore: waking waiters through LISTEN/NOTIFY, across processes, after a reconnect."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from listener_contract import SharedListenerContract, started_listener, until, wait_in_thread
from outcome_events import REFERENCIA, event
from races import StoreSpec
from servers import PostgresServer, require_module
from store_contract import StoreFactory, closing_factory

psycopg = require_module("psycopg", "psycopg (pip install 'smartpos[postgres]')")
require_module("psycopg_pool", "psycopg-pool (pip install 'smartpos[postgres]')")
from smartpos.webhooks._postgres import PostgresStore  # noqa: E402

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def new_table() -> str:
    """A table name no other test uses, so that stores on the shared server start empty."""
    return f"w_{uuid.uuid4().hex[:12]}"


def migrated(dsn: str, **options: Any) -> PostgresStore:
    """A new store on a fresh, migrated table."""
    store = PostgresStore(dsn, table=new_table(), **options)
    store.migrate()
    return store


class TestPostgresListener(SharedListenerContract):
    """The waking contract on PostgresStore, one migrated table per store."""

    @pytest.fixture
    def make_store(self, postgres_server: PostgresServer) -> Iterator[StoreFactory]:
        """Fresh PostgresStores on new tables of the session's server, closed after."""

        def create(**options: Any) -> PostgresStore:
            return migrated(postgres_server.dsn, **options)

        with closing_factory(create) as factory:
            yield factory

    @pytest.fixture
    def spec(self, postgres_server: PostgresServer) -> StoreSpec:
        """A new migrated table that each process opens on its own."""
        table = new_table()
        with PostgresStore(postgres_server.dsn, table=table) as store:
            store.migrate()
        return StoreSpec(PostgresStore, (postgres_server.dsn,), {"table": table})


def test_a_notification_lost_while_disconnected_still_wakes_the_waiter(
    postgres_server: PostgresServer,
) -> None:
    """An event stored without NOTIFY is found when the LISTEN connection is re-made."""
    dsn = postgres_server.dsn
    with migrated(dsn) as store, psycopg.connect(dsn, autocommit=True) as admin:
        listener = started_listener(store)
        before = listener.checks
        wait = wait_in_thread(listener, REFERENCIA)
        until(lambda: listener.checks == before + 1, "the waiter's first check")

        # As a replica would: the insert's trigger does not fire, so nothing is notified.
        admin.execute("SET session_replication_role = replica")
        admin.execute(
            f'INSERT INTO "{store._table}" '
            "(id, tipo, body, body_hash, received_at, available_at, referencia) "
            "VALUES ('ev-1', 'pagamento.recusado', %s::json, 'h', now(), now(), %s)",
            (json.dumps(event("ev-1", "pagamento.recusado").raw), REFERENCIA),
        )
        killed = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %'"
        ).fetchall()

        outcome = wait.join()

    assert [(True,)] <= killed
    assert outcome is not None
    assert "ev-1" == outcome.id


def test_notify_carries_the_referencia(postgres_server: PostgresServer) -> None:
    """A put notifies the store's channel with the event's referencia, at commit."""
    dsn = postgres_server.dsn
    with migrated(dsn) as store, psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'LISTEN "{store._channel}"')
        store.put_many([event("ev-1"), event("ev-2", referencia="other")])
        notices = list(conn.notifies(timeout=5.0, stop_after=2))

    assert [REFERENCIA, "other"] == [n.payload for n in notices]
