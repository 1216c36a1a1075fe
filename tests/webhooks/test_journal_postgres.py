"""PostgresStore against a real PostgreSQL: the journal contract, its migration, and races."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from journal_contract import JournalContract, begin_payment
from journal_races import race_begins, race_outcomes
from outcome_events import REFERENCIA, event
from races import StoreSpec
from servers import PostgresServer, require_module
from store_contract import StoreFactory, closing_factory

psycopg = require_module("psycopg", "psycopg (pip install 'smartpos[postgres]')")
require_module("psycopg_pool", "psycopg-pool (pip install 'smartpos[postgres]')")
from smartpos.webhooks._postgres import (  # noqa: E402
    _MIGRATIONS,
    SCHEMA_VERSION,
    MigrationRequiredError,
    PostgresStore,
)

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def new_table() -> str:
    """A table name no other test uses, so that stores on the shared server start empty."""
    return f"j_{uuid.uuid4().hex[:12]}"


class TestPostgresJournal(JournalContract):
    """The journal contract on PostgresStore, one migrated table per store."""

    @pytest.fixture
    def make_store(self, postgres_server: PostgresServer) -> Iterator[StoreFactory]:
        """Fresh PostgresStores on new tables of the session's server, closed after."""

        def create(**options: Any) -> PostgresStore:
            store = PostgresStore(postgres_server.dsn, table=new_table(), **options)
            store.migrate()
            return store

        with closing_factory(create) as factory:
            yield factory


def _version_1_table(dsn: str, table: str) -> None:
    """Create ``table`` exactly as migration 1 did, with one event stored by that version."""
    with PostgresStore(dsn, table=table) as store, psycopg.connect(dsn, autocommit=True) as conn:
        rendered = store._render(conn)
        conn.execute(rendered["create_versions"])
        for i in range(len(_MIGRATIONS[0])):
            conn.execute(rendered[f"migration1.{i}"])
        conn.execute(rendered["add_version"], (1,))
        raw = event("ev-old", "pagamento.recusado").raw
        conn.execute(
            f'INSERT INTO "{table}" (id, tipo, body, body_hash, received_at, available_at) '
            "VALUES (%s, %s, %s::json, 'h', now(), now())",
            ("ev-old", "pagamento.recusado", json.dumps(raw)),
        )


def test_version_1_table_is_migrated_and_its_events_are_found(
    postgres_server: PostgresServer,
) -> None:
    """A version-1 table needs migrate(); after it (to 3), an event stored by version 1 is found."""
    table = new_table()
    _version_1_table(postgres_server.dsn, table)

    with PostgresStore(postgres_server.dsn, table=table) as store:
        with pytest.raises(MigrationRequiredError, match="version 1"):
            store.operation(REFERENCIA)
        version = store.migrate()
        begin_payment(store)
        operation = store.operation(REFERENCIA)
        claimed = store.claim(owner="w", lease=30)

    assert 3 == SCHEMA_VERSION == version
    assert operation is not None
    assert operation.event is not None
    assert ("final", "ev-old") == (operation.state, operation.event.id)
    assert ["ev-old"] == [c.event_id for c in claimed]


def test_lookup_by_referencia_uses_the_index(postgres_server: PostgresServer) -> None:
    """Events by referencia are an index scan of the expression index, not a table scan."""
    with PostgresStore(postgres_server.dsn, table=new_table()) as store:
        store.migrate()
        store.put(event("ev-1"))
        with psycopg.connect(postgres_server.dsn) as conn:
            conn.execute("SET enable_seqscan = off")
            plan = conn.execute("EXPLAIN " + store._sql["j_events"], (REFERENCIA,)).fetchall()

    text = " ".join(row[0] for row in plan)
    assert f"{store._table}_ref_idx" in text


def test_a_nul_escape_anywhere_in_a_body_never_fails_a_put(postgres_server: PostgresServer) -> None:
    """PostgreSQL's json operators refuse \\u0000: such an event is stored and linked all the
    same (its referencia is a column written from Python), like on every other store."""
    poisoned = event("nul", mensagem="a\u0000b")
    with PostgresStore(postgres_server.dsn, table=new_table()) as store:
        store.migrate()
        results = [store.put(poisoned), store.put(event("ok", "pagamento.recusado"))]

        outcome = store._outcome(REFERENCIA)

    assert ["new", "new"] == [r.value for r in results]
    assert outcome is not None
    assert "nul" == outcome.id


@pytest.fixture
def spec(postgres_server: PostgresServer) -> StoreSpec:
    """A new migrated table that each process opens on its own."""
    table = new_table()
    with PostgresStore(postgres_server.dsn, table=table) as store:
        store.migrate()
    return StoreSpec(PostgresStore, (postgres_server.dsn,), {"table": table})


def test_processes_beginning_the_same_referencias(spec: StoreSpec) -> None:
    """Four processes journaling the same 60 referencias: each is journaled exactly once."""
    race_begins(spec, processes=4, referencias=60)


def test_processes_settling_outcomes(spec: StoreSpec) -> None:
    """Approvals and refusals from two processes, two readers: one outcome each, forever."""
    race_outcomes(spec, referencias=40)
