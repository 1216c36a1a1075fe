"""PostgresStore against a real PostgreSQL: the store contract, races, migrations, transactions."""

from __future__ import annotations

import datetime as dt
import logging
import multiprocessing
import os
import signal
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from races import StoreSpec, race_claims, race_killed_worker, race_puts
from servers import PostgresServer, own_server, require_module
from skewed_clocks import SKEWS, check_skewed_instance, skew
from store_contract import FakeClock, StoreContract, StoreFactory, closing_factory, make_event

from smartpos import ConfigurationError
from smartpos.webhooks._store import EventState, PutResult, StoreError

psycopg = require_module("psycopg", "psycopg (pip install 'smartpos[postgres]')")
psycopg_pool = require_module("psycopg_pool", "psycopg-pool (pip install 'smartpos[postgres]')")
from smartpos.webhooks._postgres import (  # noqa: E402
    SCHEMA_VERSION,
    MigrationRequiredError,
    PostgresStore,
)

__all__: list[str] = []

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def new_table() -> str:
    """A table name no other test uses, so that stores on the shared server start empty."""
    return f"t_{uuid.uuid4().hex[:12]}"


@pytest.fixture
def table() -> str:
    """A fresh table name for one test."""
    return new_table()


@pytest.fixture
def dsn(postgres_server: PostgresServer) -> str:
    """The connection string of the session's server."""
    return postgres_server.dsn


@pytest.fixture
def store(dsn: str, table: str) -> Iterator[PostgresStore]:
    """A migrated store on a fresh table, on the wall clock, closed after the test."""
    with PostgresStore(dsn, table=table) as created:
        created.migrate()
        yield created


def query(dsn: str, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """Run one statement on a new autocommit connection and return its rows."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        cur = conn.execute(sql, params or None)
        return cur.fetchall() if cur.description else []


class TestPostgresStore(StoreContract):
    """The contract suite on PostgresStore, one migrated table per store."""

    @pytest.fixture
    def make_store(self, postgres_server: PostgresServer) -> Iterator[StoreFactory]:
        """Fresh PostgresStores on new tables of the session's server, closed after."""

        def create(**options: Any) -> PostgresStore:
            store = PostgresStore(postgres_server.dsn, table=new_table(), **options)
            store.migrate()
            return store

        with closing_factory(create) as factory:
            yield factory


# Migrations.


def test_store_before_migrate_raises_a_typed_error(dsn: str, table: str) -> None:
    """Every call before migrate() raises MigrationRequiredError telling to call migrate()."""
    with PostgresStore(dsn, table=table) as store:
        calls = [
            lambda: store.put(make_event("ev-1")),
            lambda: store.claim(owner="w", lease=30),
            lambda: store.get("ev-1"),
            lambda: store.purge(),
        ]
        for call in calls:
            with pytest.raises(MigrationRequiredError, match=r"store\.migrate\(\)"):
                call()

    assert issubclass(MigrationRequiredError, StoreError)


def test_construction_creates_nothing(dsn: str, table: str) -> None:
    """Building a store (and failing to use it) never creates its table."""
    with PostgresStore(dsn, table=table) as store, pytest.raises(MigrationRequiredError):
        store.put(make_event("ev-1"))

    assert query(
        dsn, "SELECT to_regclass(%s)::text, to_regclass(%s)::text", table, f"{table}_schema"
    ) == [(None, None)]


def test_migrate_is_versioned_and_idempotent(dsn: str, table: str) -> None:
    """migrate() answers the schema version, records it once, and changes nothing when rerun."""
    with PostgresStore(dsn, table=table) as store:
        versions = [store.migrate(), store.migrate()]
        store.put(make_event("ev-1"))

    assert versions == [SCHEMA_VERSION, SCHEMA_VERSION]
    assert query(dsn, f'SELECT version FROM "{table}_schema" ORDER BY version') == [
        (version,) for version in range(1, SCHEMA_VERSION + 1)
    ]


def _schema_objects(dsn: str, table: str) -> list[tuple[str, str]]:
    """The tables, indexes, sequences, functions and triggers named after ``table``."""
    return query(
        dsn,
        "SELECT 'relation ' || relkind::text, relname::text FROM pg_class WHERE relname LIKE %s "
        "UNION ALL SELECT 'function', proname::text FROM pg_proc WHERE proname LIKE %s "
        "UNION ALL SELECT 'trigger', tgname::text FROM pg_trigger WHERE tgname LIKE %s "
        "ORDER BY 1, 2",
        f"{table}%",
        f"{table}%",
        f"{table}%",
    )


def test_migrate_rebuilds_tables_dropped_by_hand(dsn: str, table: str) -> None:
    """After the tables were dropped by hand (their function survives), migrate() rebuilds all."""
    with PostgresStore(dsn, table=table) as store:
        store.migrate()
        made = _schema_objects(dsn, table)
        query(
            dsn,
            f'DROP TABLE "{table}", "{table}_operations", "{table}_sales", '
            f'"{table}_terminal_holds", "{table}_schema"',
        )

        version = store.migrate()
        put = store.put(make_event("ev-1"))

    assert SCHEMA_VERSION == version
    assert PutResult.NEW == put
    assert made == _schema_objects(dsn, table)


def test_migrate_runs_again_over_a_lost_version_table(dsn: str, table: str) -> None:
    """A schema whose version table was lost is migrated again, keeping its events."""
    with PostgresStore(dsn, table=table) as store:
        store.migrate()
        store.put(make_event("ev-1"))
        query(dsn, f'DROP TABLE "{table}_schema"')

        version = store.migrate()
        got = store.get("ev-1")

    assert SCHEMA_VERSION == version
    assert got is not None


def test_failed_migrate_reports_nothing_applied(
    dsn: str, table: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A migration that fails rolls back the whole run, and no version is logged as applied."""
    # Something migration 3 cannot replace: a function of that name returning another type.
    query(dsn, f'CREATE FUNCTION "{table}_notify"() RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$')
    with (
        PostgresStore(dsn, table=table) as store,
        caplog.at_level(logging.INFO, logger="smartpos.webhooks"),
        pytest.raises(StoreError),
    ):
        store.migrate()

    assert [] == [r.getMessage() for r in caplog.records if "migrated" in r.getMessage()]
    assert [(None, None)] == query(
        dsn, "SELECT to_regclass(%s)::text, to_regclass(%s)::text", table, f"{table}_schema"
    )


def test_migrate_logs_the_versions_it_applied(
    dsn: str, table: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A migrate() that applied versions logs them once they committed; a rerun logs nothing."""
    with (
        PostgresStore(dsn, table=table) as store,
        caplog.at_level(logging.INFO, logger="smartpos.webhooks"),
    ):
        store.migrate()
        store.migrate()

    applied = ", ".join(str(v) for v in range(1, SCHEMA_VERSION + 1))
    assert [f"migrated {table} to schema version {SCHEMA_VERSION} (applied {applied})"] == [
        r.getMessage() for r in caplog.records if "migrated" in r.getMessage()
    ]


def _migrate(dsn: str, table: str, barrier: Any) -> None:
    barrier.wait(timeout=60)
    with PostgresStore(dsn, table=table) as store:
        store.migrate()


def test_migrate_from_several_processes_at_once(dsn: str, table: str) -> None:
    """Four processes migrating the same new table at once all succeed and create it once."""
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(4)
    processes = [ctx.Process(target=_migrate, args=(dsn, table, barrier)) for _ in range(4)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=60)
        if process.is_alive():
            process.kill()
            process.join(timeout=10)

    assert [p.exitcode for p in processes] == [0, 0, 0, 0]
    assert query(dsn, f'SELECT version FROM "{table}_schema" ORDER BY version') == [
        (version,) for version in range(1, SCHEMA_VERSION + 1)
    ]


def test_outdated_schema_requires_migrate(dsn: str, table: str) -> None:
    """A table at an older schema version than the code's is refused until migrate()."""
    with PostgresStore(dsn, table=table) as store:
        store.migrate()
    query(dsn, f'DELETE FROM "{table}_schema"')

    with (
        PostgresStore(dsn, table=table) as store,
        pytest.raises(
            MigrationRequiredError,
            match=f"version 0 and this smartpos needs version {SCHEMA_VERSION}",
        ),
    ):
        store.put(make_event("ev-1"))


def test_schema_option_puts_the_table_in_that_schema(dsn: str, table: str) -> None:
    """With schema=..., migrate() creates the schema and the table inside it."""
    schema = f"s_{uuid.uuid4().hex[:8]}"
    with PostgresStore(dsn, table=table, schema=schema) as store:
        store.migrate()
        store.put(make_event("ev-1"))
        assert f"{schema}.{table}" == store.table

    assert query(dsn, f'SELECT count(*) FROM "{schema}"."{table}"') == [(1,)]


@pytest.mark.parametrize("name", ["", "bad-name", "x" * 49, "a;drop"])
def test_unsafe_table_names_are_refused(dsn: str, name: str) -> None:
    """A table name that is not a short plain identifier is a ConfigurationError."""
    with pytest.raises(ConfigurationError, match="table"):
        PostgresStore(dsn, table=name)


@pytest.mark.parametrize("clock", ["server", "store"])
def test_claim_query_is_served_by_the_claim_index(
    store: PostgresStore, dsn: str, table: str, clock: str
) -> None:
    """The claim statement can walk the partial (criado_em, seq) index in claim order."""
    store.put_many([make_event(f"ev-{i}") for i in range(50)])
    claim_sql = store._sql["claim"]
    when = None if clock == "server" else FakeClock().datetime()
    with psycopg.connect(dsn) as conn:
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_sort = off")
        params = {
            "now": when,
            "exp": when,
            "exp_s": 30.0,
            "owner": "w",
            "limit": 1,
            "max": 10,
            "head": "",
            "tail": "",
        }
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + claim_sql, params).fetchall())
        conn.rollback()

    assert f"{table}_claim_idx" in plan


# Transactions of the partner.


def test_ack_joins_the_callers_transaction(store: PostgresStore, dsn: str) -> None:
    """An ack inside the caller's transaction rolls back with it and commits with it."""
    sales = new_table()
    query(dsn, f'CREATE TABLE "{sales}" (event_id text PRIMARY KEY)')
    store.put(make_event("ev-1"))
    (claim,) = store.claim(owner="w", lease=30)

    with psycopg.connect(dsn) as conn:
        with conn.transaction():
            conn.execute(f'INSERT INTO "{sales}" VALUES (%s)', (claim.event_id,))
            assert store.ack(claim, conn=conn) is True
            raise psycopg.Rollback  # The handler failed after its writes.
        rolled_back = store.get("ev-1")

        with conn.transaction():
            conn.execute(f'INSERT INTO "{sales}" VALUES (%s)', (claim.event_id,))
            acked = store.ack(claim, conn=conn)
        committed = store.get("ev-1")

    assert rolled_back is not None
    assert (rolled_back.state, rolled_back.owner) == (EventState.CLAIMED, "w")
    assert acked is True
    assert committed is not None
    assert committed.state == EventState.DONE
    assert query(dsn, f'SELECT event_id FROM "{sales}"') == [("ev-1",)]


def test_nack_and_dead_letter_join_the_callers_transaction(store: PostgresStore, dsn: str) -> None:
    """nack and dead_letter given conn take effect only when the caller commits."""
    store.put_many([make_event("a"), make_event("b", criado_em=None)])
    first, second = store.claim(owner="w", lease=30, limit=2)

    with psycopg.connect(dsn) as conn:
        with conn.transaction():
            store.nack(first, error="x", retry_in=0, conn=conn)
            store.dead_letter(second, error="y", conn=conn)
            raise psycopg.Rollback
        before = [store.get("a"), store.get("b")]
        with conn.transaction():
            store.nack(first, error="x", retry_in=0, conn=conn)
            store.dead_letter(second, error="y", conn=conn)
    after = [store.get("a"), store.get("b")]

    assert [s.state for s in before if s] == [EventState.CLAIMED, EventState.CLAIMED]
    assert [s.state for s in after if s] == [EventState.PENDING, EventState.DEAD]


def test_ack_many_joins_the_callers_transaction(store: PostgresStore, dsn: str) -> None:
    """ack_many given conn commits with the caller's transaction."""
    store.put_many([make_event("a"), make_event("b", criado_em=None)])
    claims = store.claim(owner="w", lease=30, limit=2)

    with psycopg.connect(dsn) as conn, conn.transaction():
        results = store.ack_many(claims, conn=conn)
        inside = store.get("a")
    after = store.get("a")

    assert results == [True, True]
    assert inside is not None
    assert after is not None
    assert (inside.state, after.state) == (EventState.CLAIMED, EventState.DONE)


def test_row_acked_in_an_open_transaction_is_not_claimed_by_others(dsn: str, table: str) -> None:
    """While the caller's transaction holding the ack is open, no one can claim that event."""
    clock = FakeClock()
    late = FakeClock(clock.now + 3600)
    with (
        PostgresStore(dsn, table=table, clock=clock) as store,
        PostgresStore(dsn, table=table, clock=late) as other,
    ):
        store.migrate()
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w", lease=30)

        with psycopg.connect(dsn) as conn:
            with conn.transaction():
                store.ack(claim, conn=conn)
                during = other.claim(owner="other", lease=30)
                raise psycopg.Rollback
            after = other.claim(owner="other", lease=30)

    assert during == []
    assert [(c.event_id, c.attempts) for c in after] == [("ev-1", 2)]


def _ack_then_die(dsn: str, table: str, ready: Any) -> None:
    store = PostgresStore(dsn, table=table, check_settings=False)
    (claim,) = store.claim(owner="doomed", lease=3600)
    conn = psycopg.connect(dsn)
    conn.execute("BEGIN")
    store.ack(claim, conn=conn)
    ready.set()
    signal.pause()


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")
def test_worker_killed_inside_its_transaction_leaves_the_event_unacked(
    dsn: str, table: str
) -> None:
    """kill -9 of a worker between its transactional ack and the commit leaves the event claimed."""
    with PostgresStore(dsn, table=table) as store:
        store.migrate()
        store.put(make_event("ev-1"))
        ctx = multiprocessing.get_context("spawn")
        ready = ctx.Event()
        worker = ctx.Process(target=_ack_then_die, args=(dsn, table, ready))
        worker.start()
        try:
            assert ready.wait(timeout=60)
        finally:
            assert worker.pid is not None
            os.kill(worker.pid, signal.SIGKILL)
            worker.join(timeout=10)
        stored = store.get("ev-1")

    assert worker.exitcode == -signal.SIGKILL
    assert stored is not None
    assert (stored.state, stored.owner, stored.attempts) == (EventState.CLAIMED, "doomed", 1)


# Settings, errors and ownership.


def test_unsafe_settings_are_named_on_first_use(
    dsn: str, table: str, caplog: pytest.LogCaptureFixture
) -> None:
    """With synchronous_commit off, the first use logs a warning naming the setting."""
    pool = psycopg_pool.ConnectionPool(
        dsn,
        min_size=1,
        max_size=2,
        kwargs={"autocommit": True, "options": "-c synchronous_commit=off"},
        open=True,
    )
    try:
        with PostgresStore(pool, table=table) as store:
            store.migrate()
            with caplog.at_level(logging.WARNING, logger="smartpos.webhooks"):
                store.put(make_event("ev-1"))
                store.put(make_event("ev-2"))
    finally:
        pool.close()

    messages = [r.getMessage() for r in caplog.records if r.name == "smartpos.webhooks"]
    assert len(messages) == 1
    assert "synchronous_commit" in messages[0]


def test_durable_settings_log_no_warning(
    dsn: str, table: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The server's durable defaults give no warning."""
    with PostgresStore(dsn, table=table) as store:
        store.migrate()
        with caplog.at_level(logging.WARNING, logger="smartpos.webhooks"):
            store.put(make_event("ev-1"))

    assert caplog.records == []


def test_a_pool_passed_in_stays_open(dsn: str, table: str) -> None:
    """A caller's pool (not autocommit) works and is not closed by the store."""
    pool = psycopg_pool.ConnectionPool(dsn, min_size=1, max_size=2, open=True)
    try:
        with PostgresStore(pool, table=table) as store:
            store.migrate()
            store.put_many([make_event("a"), make_event("b", criado_em=None)])
            claims = store.claim(owner="w", lease=30, limit=2)
            assert store.ack_many(claims) == [True, True]
            assert store.purge() == 0
        with pool.connection() as conn:
            row = conn.execute(f'SELECT count(*) FROM "{table}" WHERE state = %s', ("done",))
            assert row.fetchone() == (2,)
    finally:
        pool.close()


def test_unreachable_server_raises_store_error() -> None:
    """A store whose server cannot be reached raises StoreError, not a psycopg error."""
    pool = psycopg_pool.ConnectionPool(
        "host=127.0.0.1 port=1 user=postgres connect_timeout=1",
        min_size=0,
        max_size=1,
        timeout=0.5,
        open=True,
    )
    try:
        with PostgresStore(pool) as store, pytest.raises(StoreError, match="PostgreSQL failed"):
            store.put(make_event("ev-1"))
    finally:
        pool.close()


def test_closed_store_refuses_calls(dsn: str, table: str) -> None:
    """After close(), calls and migrate() raise StoreError."""
    store = PostgresStore(dsn, table=table)
    store.close()

    with pytest.raises(StoreError, match="closed"):
        store.put(make_event("ev-1"))
    with pytest.raises(StoreError, match="closed"):
        store.migrate()


def test_wrong_connection_type_is_refused() -> None:
    """Anything but a connection string or a ConnectionPool is a ConfigurationError."""
    with pytest.raises(ConfigurationError, match="ConnectionPool"):
        PostgresStore(42)  # type: ignore[arg-type]


def test_dead_and_list_work_as_the_first_call_of_a_fresh_store(dsn: str, table: str) -> None:
    """dead() and list() answer on a new store instance before any other call was made."""
    with PostgresStore(dsn, table=table) as store:
        store.migrate()
        store.put(make_event("ev-1"))
        store.dead_letter(store.claim(owner="w", lease=30)[0], error="boom")

    with PostgresStore(dsn, table=table) as fresh:
        dead = fresh.dead()
    with PostgresStore(dsn, table=table) as fresh:
        listed = fresh.list()

    assert ["ev-1"] == [r.id for r in dead]
    assert ["ev-1"] == [r.id for r in listed]


@pytest.fixture
def own_postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test alone, which it may restart."""
    server = PostgresServer()
    with own_server(server):
        yield server


def test_calls_after_a_server_restart_succeed(own_postgres_server: PostgresServer) -> None:
    """After the server restarts, no pooled connection's first call fails."""
    table = new_table()
    with PostgresStore(own_postgres_server.dsn, table=table) as store:
        store.migrate()
        store.put(make_event("ev-1"))
        # Several connections in the pool, each one killed by the restart.
        with store._connection(), store._connection(), store._connection():
            pass
        own_postgres_server.restart()

        put = store.put(make_event("ev-2"))
        claimed = store.claim(owner="w", lease=30, limit=5)
        got = store.get("ev-1")

    assert PutResult.NEW == put
    assert ["ev-1", "ev-2"] == sorted(c.event_id for c in claimed)
    assert got is not None


@SKEWS
def test_leases_hold_between_hosts_whose_clocks_disagree(
    dsn: str, table: str, offset: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store whose host clock is a minute off claims and expires leases by the server's."""
    with (
        PostgresStore(dsn, table=table) as correct,
        PostgresStore(dsn, table=table) as skewed,
    ):
        correct.migrate()
        skew(monkeypatch, skewed, offset)

        check_skewed_instance(correct, skewed)


def test_inbox_times_are_the_servers(
    store: PostgresStore, dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Arrival, lease, done times and the purge cutoff come from the server, not the host."""
    skew(monkeypatch, store, 3600.0)
    store.put(make_event("ev-1"))
    (claim,) = store.claim(owner="w", lease=30)
    store.ack(claim)
    ((received, done, now),) = query(
        dsn, f'SELECT received_at, done_at, now() FROM "{store.table}" WHERE id = %s', "ev-1"
    )
    skew(monkeypatch, store, 8 * 86400.0)  # past the retention, by the host's clock only

    assert received <= claim.lease_expires_at - dt.timedelta(seconds=30) <= done <= now
    assert 0 == store.purge()


def test_put_of_a_purged_id_is_new_again(store: PostgresStore) -> None:
    """After purge, a redelivery of the id is NEW, as with every store."""
    store.put(make_event("ev-1"))
    store.ack(store.claim(owner="w", lease=30)[0])
    store.purge(done_before=FakeClock(4_000_000_000).datetime())

    assert store.put(make_event("ev-1")) == PutResult.NEW


# Processes.


@pytest.fixture
def spec(dsn: str, table: str) -> StoreSpec:
    """A migrated PostgresStore table that each process opens on its own."""
    with PostgresStore(dsn, table=table) as store:
        store.migrate()
    return StoreSpec(PostgresStore, (dsn,), {"table": table})


def test_processes_putting_the_same_ids(spec: StoreSpec) -> None:
    """Four processes putting the same 200 ids at once get each id NEW exactly once."""
    race_puts(spec, processes=4, events=200)


def test_processes_claiming_at_once(spec: StoreSpec) -> None:
    """Four processes claiming and acking at once claim every event once and miss none."""
    race_claims(spec, processes=4, events=400)


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")
def test_killed_worker_loses_its_claim(spec: StoreSpec) -> None:
    """After kill -9 of a worker holding a claim, the event returns and the late ack fails."""
    race_killed_worker(spec, lease=2.0)


# Timeouts.


def test_a_put_waits_for_a_lock_no_longer_than_its_timeout(store: PostgresStore, dsn: str) -> None:
    """put(timeout=) gives up with StoreError while another transaction locks the table, and
    the calls after it run under the server's own statement_timeout again."""
    store.put(make_event("warm"), timeout=0.2)
    with psycopg.connect(dsn) as other:
        other.execute(f"LOCK TABLE {store.table} IN ACCESS EXCLUSIVE MODE")

        with pytest.raises(StoreError, match="statement timeout"):
            store.put(make_event("ev-1"), timeout=0.2)
        other.rollback()

    assert store.get("ev-1") is None
    assert store.put(make_event("ev-1")) == PutResult.NEW
    with store._connection() as conn:
        row = conn.execute("SHOW statement_timeout").fetchone()
    assert row == ("0",)


def test_batches_of_the_same_new_ids_in_other_orders_do_not_fail(
    dsn: str, store: PostgresStore
) -> None:
    """Another transaction inserts evt-b then evt-a while the store puts [evt-a, evt-b]: each
    waits for the other's index entry, the server aborts one (a deadlock), and the store's
    batch, idempotent, runs again instead of failing."""
    import threading
    import time

    from smartpos.webhooks._postgres import _ref, _utc

    def put(conn: psycopg.Connection[Any], event_id: str) -> None:
        item = store._encode(make_event(event_id))
        assert item.criado_em is not None
        params = {
            "now": None,
            "id": item.id,
            "tipo": item.tipo,
            "criado": _utc(item.criado_em),
            "body": item.raw_json,
            "hash": item.body_hash,
            "ref": _ref(item),
        }
        conn.execute(store._sql["put"], params)

    results: list[Any] = []
    with psycopg.connect(dsn) as other:  # not autocommit: one open transaction
        put(other, "evt-b")
        thread = threading.Thread(
            target=lambda: results.append(
                store.put_many([make_event("evt-a"), make_event("evt-b")])
            ),
            daemon=True,
        )
        thread.start()
        deadline = time.monotonic() + 10
        waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
        while query(dsn, waiting)[0][0] == 0:  # the store's batch waits for evt-b
            assert time.monotonic() < deadline, "the store's batch never waited"
            time.sleep(0.01)
        try:
            put(other, "evt-a")
            other.commit()
        except psycopg.errors.DeadlockDetected:
            other.rollback()
        thread.join(30)
    assert 1 == len(results), "put_many raised instead of running its batch again"
    assert {"evt-a", "evt-b"} == {e.id for e in store.list()}
