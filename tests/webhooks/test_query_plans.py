"""Query plans that cannot turn into scans of the inbox or the journal (issue 27).

PostgreSQL: a store's tables are loaded with 1,000,000 events, 200,000 journal entries and
50,000 sales (``generate_series``, in the test's own database, dropped after), analysed, and
every store call is run once, recording each statement it sends with its parameters. Each
statement is then prepared as psycopg prepares it and explained under
``plan_cache_mode = force_generic_plan``: the plan a server uses once it switches to a generic
plan (psycopg prepares a statement after 5 executions) must not be a ``Seq Scan`` of the
inbox, the journal or the sales. (The statements inside the store's functions and triggers
are keyed lookups; they are not explained here.)

SQLite: every statement the store runs during the same calls (a trace callback), and the
change listener's reads of what changed since its last look, are explained with
``EXPLAIN QUERY PLAN`` on a loaded file: no ``SCAN`` of the inbox or the journal without
an index (``SEARCH``, or an ordered walk of an index that stops at the statement's LIMIT).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from journal_contract import begin_payment
from outcome_events import event
from sales_contract import approve, attempt, compensation, refs, refuse
from servers import PostgresServer, require_module

from smartpos.webhooks import EventState
from smartpos.webhooks._listener import SQLiteChanges
from smartpos.webhooks._outcomes import Abandon
from smartpos.webhooks._sqlite import SQLiteStore
from smartpos.webhooks._store import StoreBase

#: Rows loaded before the plans are read.
EVENTS = 1_000_000
OPERATIONS = 200_000
SALES = 50_000


def exercise(store: StoreBase) -> None:
    """Every store call once (twice for the paged ones), as an application makes them."""
    r1, r2, r3, r4 = refs(4, prefix="9e1e")
    store.put(event("plan-ev-1", referencia=r1))
    store.put(event("plan-ev-1", referencia=r1))  # a duplicate
    store.put_many([event("plan-ev-2", referencia=r2), event("plan-ev-3", referencia=r3)])
    claims = store.claim(owner="w", lease=30.0, limit=3)
    assert claims
    store.extend(claims[0], lease=60.0)
    store.ack(claims[0])
    if len(claims) > 2:
        store.ack_many([claims[1]])
        store.nack(claims[2], error="e", retry_in=0.0)
    more = store.claim(owner="w", lease=30.0, limit=2)
    for claim in more[:1]:
        store.release(claim)
    for claim in more[1:]:
        store.dead_letter(claim, error="e")
    store.requeue("plan-ev-1")
    store.get("plan-ev-1")
    for state in (None, *EventState):
        store.list(state=state, limit=10)
    store.dead(limit=10)
    begin_payment(store, r4)
    store._record_operation(r4, "unknown")
    store.put(event("plan-ev-4", referencia=r4))
    store.operation(r4)
    store.operations(limit=10)
    store.operations(final=True, limit=10)
    s1, s2, s3 = refs(3, prefix="9f1e")
    attempt(store, s1, sale="plan-sale", total=3000, smartpos_id="SP-9")
    refuse(store, s1)
    attempt(store, s2, sale="plan-sale", total=3000, smartpos_id="SP-9")
    store._abandon("plan-sale", motivo="plan", operador=None)
    approve(store, s2)
    compensation(store, s2, sale="plan-sale")
    attempt(store, s3, sale="plan-sale", total=3000, smartpos_id=None)
    store.sale("plan-sale")
    store.sales(limit=10)
    store.sales(attention=True, limit=10)
    store.sales(state="in_progress", limit=10)
    store._outcome(r1)
    store.purge()
    store.purge(done_before=dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=30))
    assert Abandon  # the abandon above is recorded through the sale's rules


# --- PostgreSQL -----------------------------------------------------------------------------


def _load_postgres(conn: Any, table: str) -> None:
    """Fill the store's tables with the sizes above, as a store in use looks, and analyse."""
    t, ops, sales = (f'"{table}"', f'"{table}_operations"', f'"{table}_sales"')
    conn.execute(f"ALTER TABLE {t} DISABLE TRIGGER USER")
    conn.execute(f"ALTER TABLE {ops} DISABLE TRIGGER USER")
    # Mostly done events (kept for the retention), a few pending, claimed and dead; two
    # events per referencia.
    conn.execute(
        f"INSERT INTO {t} (id, tipo, criado_em, body, body_hash, state, attempts, received_at, "
        "available_at, owner, token, lease_expires_at, done_at, referencia) "
        "SELECT 'load-' || g, 'pagamento.aprovado', "
        "now() - interval '6 days' + g * interval '1 ms', "
        "json_build_object('id', 'load-' || g, 'tipo', 'pagamento.aprovado', "
        "'dados', json_build_object('referencia', 'load-ref-' || (g %% %(refs)s))), 'h', s.state, "
        "1, now() - interval '6 days', "
        "CASE WHEN s.state IN ('pending', 'claimed') THEN now() + interval '1 hour' END, "
        "CASE WHEN s.state = 'claimed' THEN 'w' END, CASE WHEN s.state = 'claimed' THEN 't' END, "
        "CASE WHEN s.state = 'claimed' THEN now() + interval '1 hour' END, "
        "CASE WHEN s.state = 'done' THEN now() - interval '5 days' + g * interval '1 ms' END, "
        "'load-ref-' || (g %% %(refs)s) "
        "FROM generate_series(1, %(events)s) AS g CROSS JOIN LATERAL (SELECT CASE "
        "WHEN g %% 100 = 0 THEN 'pending' WHEN g %% 100 = 1 THEN 'claimed' "
        "WHEN g %% 1000 = 2 THEN 'dead' ELSE 'done' END AS state) AS s",
        {"events": EVENTS, "refs": EVENTS // 2},
    )
    # Mostly ended entries, a few waiting; one in four of a sale (four per sale).
    conn.execute(
        f"INSERT INTO {ops} (referencia, kind, state, method, path, body, created_at, "
        "updated_at, sale, events) SELECT 'load-ref-' || g, 'payment', "
        "CASE WHEN g %% 200 = 0 THEN 'sending' ELSE 'rejected' END, 'POST', '/v1/payments', "
        "'\\x7b7d'::bytea, now() - interval '6 days', now() - interval '6 days', "
        "CASE WHEN g %% 4 = 0 THEN 'load-sale-' || (g / 4) END, 0 "
        "FROM generate_series(1, %(ops)s) AS g",
        {"ops": OPERATIONS},
    )
    conn.execute(
        f"INSERT INTO {sales} (sale_id, total_centavos, version, created_at, updated_at) "
        "SELECT 'load-sale-' || g, 1000, 1, now() - interval '6 days', now() - interval '6 days' "
        "FROM generate_series(1, %(sales)s) AS g",
        {"sales": SALES},
    )
    conn.execute(f"ALTER TABLE {t} ENABLE TRIGGER USER")
    conn.execute(f"ALTER TABLE {ops} ENABLE TRIGGER USER")
    conn.execute(f"VACUUM ANALYZE {t}")
    conn.execute(f"VACUUM ANALYZE {ops}")
    conn.execute(f"VACUUM ANALYZE {sales}")


@pytest.fixture(scope="module")
def plans_database(postgres_server: PostgresServer) -> Iterator[str]:
    """A database of its own on the session's server, dropped after the module."""
    psycopg = require_module("psycopg", "psycopg (pip install 'smartpos[postgres]')")
    name = f"plans_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_server.dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield postgres_server.dsn.replace("dbname=postgres", f"dbname={name}")
    finally:
        with psycopg.connect(postgres_server.dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.mark.postgres
@pytest.mark.slow
def generic_plan(conn: Any, query: str, params: Any, *, json: bool = False) -> Any:
    """The plan PostgreSQL keeps for ``query`` as a prepared statement under
    ``plan_cache_mode = force_generic_plan`` (the caller sets it): text, or the JSON plan."""
    with conn.transaction(force_rollback=True):
        conn.execute(query, params, prepare=True)
        name, types = conn.execute(
            "SELECT name, parameter_types::text[] FROM pg_prepared_statements "
            "ORDER BY prepare_time DESC LIMIT 1"
        ).fetchone()
        nulls = ", ".join(f"NULL::{kind}" for kind in types)
        if json:
            return conn.execute(f"EXPLAIN (FORMAT JSON) EXECUTE {name}({nulls})").fetchone()[0]
        rows = conn.execute(f"EXPLAIN EXECUTE {name}({nulls})").fetchall()
        return "\n".join(row[0] for row in rows)


def test_postgres_generic_plans_never_scan(plans_database: str) -> None:
    psycopg = require_module("psycopg", "psycopg (pip install 'smartpos[postgres]')")
    psycopg_pool = require_module("psycopg_pool", "psycopg-pool")
    from smartpos.webhooks._postgres import PostgresStore

    sent: dict[str, Any] = {}

    class Recording(psycopg.Connection):  # type: ignore[misc,name-defined]
        def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
            if isinstance(query, str) and params is not None:
                sent.setdefault(query, params)
            return super().execute(query, params, **kwargs)

    table = "plans_inbox"
    with contextlib.ExitStack() as stack:
        pool = psycopg_pool.ConnectionPool(
            plans_database,
            connection_class=Recording,
            kwargs={"autocommit": True},
            min_size=1,
            max_size=2,
            open=True,
        )
        stack.callback(pool.close)
        store = PostgresStore(pool, table=table)
        stack.callback(store.close)
        store.migrate()
        with psycopg.connect(plans_database, autocommit=True) as conn:
            _load_postgres(conn, table)
        sent.clear()  # the load's own statements aside
        exercise(store)

    tables = {f"{table}", f"{table}_operations", f"{table}_sales"}
    scans: dict[str, str] = {}
    with psycopg.connect(plans_database) as conn:
        conn.execute("SET plan_cache_mode = force_generic_plan")
        for query, params in sent.items():
            if query.lstrip().upper().startswith(("SET ", "RESET ")):
                continue
            plan = generic_plan(conn, query, params)
            scanned = re.findall(r"Seq Scan on (\w+)", plan)
            if tables & set(scanned):
                scans[query] = plan
    assert len(sent) > 30, sorted(sent)
    assert not scans, "\n\n".join(f"{q}\n{p}" for q, p in scans.items())


# --- SQLite ---------------------------------------------------------------------------------

#: Rows loaded into the SQLite file (its planner reads the statistics ANALYZE gathered).
SQLITE_EVENTS = EVENTS
SQLITE_OPERATIONS = OPERATIONS
_SQLITE_TABLES = ("smartpos_inbox", "smartpos_operations")


def _load_sqlite(path: Path) -> None:
    """Fill the store's file as a store in use looks, then ANALYZE (as PRAGMA optimize would)."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute(
            "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?) "
            "INSERT INTO smartpos_inbox (id, tipo, criado_em, raw, body_hash, state, attempts, "
            "received_at, available_at, owner, token, lease_expires_at, done_at) "
            "SELECT 'load-' || n, 'pagamento.aprovado', 1.7e9 + n, "
            "json_object('id', 'load-' || n, 'tipo', 'pagamento.aprovado', "
            "'dados', json_object('referencia', 'load-ref-' || (n / 2))), 'h', s, 1, 1.7e9, "
            "CASE WHEN s IN ('pending', 'claimed') THEN 1.8e9 END, "
            "CASE WHEN s = 'claimed' THEN 'w' END, CASE WHEN s = 'claimed' THEN 't' END, "
            "CASE WHEN s = 'claimed' THEN 1.8e9 END, CASE WHEN s = 'done' THEN 1.7e9 + n END "
            "FROM (SELECT n, CASE WHEN n % 100 = 0 THEN 'pending' WHEN n % 100 = 1 "
            "THEN 'claimed' WHEN n % 1000 = 2 THEN 'dead' ELSE 'done' END AS s FROM g)",
            (SQLITE_EVENTS,),
        )
        conn.execute(
            "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?) "
            "INSERT INTO smartpos_operations (referencia, kind, state, method, path, body, "
            "created_at, updated_at, sale) SELECT 'load-ref-' || n, 'payment', "
            "CASE WHEN n % 200 = 0 THEN 'sending' ELSE 'rejected' END, 'POST', '/v1/payments', "
            "x'7b7d', 1.7e9, 1.7e9, CASE WHEN n % 4 = 0 THEN 'load-sale-' || (n / 4) END FROM g",
            (SQLITE_OPERATIONS,),
        )
        conn.execute(
            "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?) "
            "INSERT INTO smartpos_sales (sale_id, total_centavos, version, created_at, "
            "updated_at) SELECT 'load-sale-' || n, 1000, 1, 1.7e9, 1.7e9 FROM g",
            (SALES,),
        )
        conn.commit()
        conn.execute("ANALYZE")


def _sqlite_scans(plan: list[tuple[int, int, int, str]]) -> list[str]:
    """The steps of a plan that read the inbox or the journal beyond what they return.

    A ``SCAN`` of either table without an index; or an index walked whole to be sorted
    afterwards (a ``TEMP B-TREE FOR ORDER BY`` in the same query as the walk).
    """
    found = []
    sorted_at = {parent for _, parent, _, detail in plan if "TEMP B-TREE FOR ORDER BY" in detail}
    for _, parent, _, detail in plan:
        match = re.match(r"SCAN (\w+)( USING)?", detail)
        if match is None or match.group(1) not in _SQLITE_TABLES:
            continue
        if match.group(2) is None or parent in sorted_at:
            found.append(detail)
    return found


def test_sqlite_plans_never_scan(tmp_path: Path) -> None:
    path = tmp_path / "plans.db"
    SQLiteStore(path).close()  # the schema
    _load_sqlite(path)
    statements: dict[str, None] = {}

    def trace(statement: str) -> None:
        if statement.lstrip().upper().startswith(("SELECT", "INSERT", "UPDATE", "DELETE", "WITH")):
            statements[statement] = None

    class Tracing(SQLiteStore):
        def _connect(self) -> Any:
            conn = super()._connect()
            conn.set_trace_callback(trace)
            return conn

    with Tracing(path, synchronous="NORMAL") as store:
        exercise(store)
        # The change listener's reads, on a connection of its own: the events stored and the
        # journal entries written since its last look.
        source = store._change_source()
        assert isinstance(source, SQLiteChanges)
        listener_reads = [source._new, *(source._journal or ())]
    for statement in listener_reads:
        statements[statement.replace("?", "0")] = None

    scans: dict[str, list[str]] = {}
    with contextlib.closing(sqlite3.connect(path)) as conn:
        for statement in statements:
            plan = conn.execute("EXPLAIN QUERY PLAN " + statement).fetchall()
            found = _sqlite_scans(plan)
            if found:
                scans[statement] = found
    assert len(statements) > 30, sorted(statements)
    assert not scans, "\n\n".join(f"{s}\n{p}" for s, p in scans.items())
