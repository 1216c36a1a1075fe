"""DjangoStore's query plans cannot turn into scans of the inbox or the journal (issue 27).

As ``tests/webhooks/test_query_plans.py`` does for the SDK's own SQL stores: the app's tables,
migrated, are loaded with ``EVENTS`` events (mostly done, a few pending, claimed and dead,
some without a ``criado_em``), ``OPERATIONS`` journal entries and their sales, and analysed;
every store call is made once (that module's ``exercise``), recording each statement the
store sends through Django with its parameters. Each is then explained on the loaded
database:

- PostgreSQL: prepared and explained under ``plan_cache_mode = force_generic_plan`` (the plan
  a server keeps for a prepared statement), which must have no ``Seq Scan`` of the events or
  the journal, nor a ``Sort`` of more of their rows than a call reads (an index walked
  whole to be sorted);
- SQLite: ``EXPLAIN QUERY PLAN`` with its parameters, which must have no ``SCAN`` of them
  without an index, nor an index walked whole to be sorted afterwards.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("django")

from django_stores import add_database, drop_database, migrate, postgres_config, setup_django
from servers import PostgresServer, require_module
from test_query_plans import exercise, generic_plan

#: Rows loaded before the plans are read: enough that a scan is what a planner would choose
#: for a statement no index serves.
EVENTS = 200_000
OPERATIONS = 50_000
_TABLES = ("smartpos_event", "smartpos_operation")


def _load(execute: Callable[[str], Any], blob: str, *, mysql: bool = False) -> None:
    """Fill the app's tables as a store in use looks (``blob``: the database's ``b'{}'``;
    ``mysql``: in MySQL's words, see ``_mysql``)."""
    rows = "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < {}) "
    if mysql:
        execute = _mysql(execute)
    execute(
        rows.format(EVENTS) + "INSERT INTO smartpos_event (event_id, tipo, criado_em, raw, "
        "body_hash, state, attempts, received_at, available_at, owner, token, "
        "lease_expires_at, done_at, referencia) "
        "SELECT 'load-' || n, 'pagamento.aprovado', "
        "CASE WHEN n % 500 = 3 THEN NULL ELSE 1.7e9 + n END, '{}', 'h', s, 1, 1.7e9, "
        "CASE WHEN s IN ('pending', 'claimed') THEN 1.8e9 END, "
        "CASE WHEN s = 'claimed' THEN 'w' END, CASE WHEN s = 'claimed' THEN 't' END, "
        "CASE WHEN s = 'claimed' THEN 1.8e9 END, CASE WHEN s = 'done' THEN 1.7e9 + n END, "
        "'load-ref-' || (n / 2) "
        "FROM (SELECT n, CASE WHEN n % 100 = 0 THEN 'pending' WHEN n % 100 = 1 "
        "THEN 'claimed' WHEN n % 1000 = 2 THEN 'dead' ELSE 'done' END AS s FROM g) AS r"
    )
    execute(
        rows.format(OPERATIONS) + "INSERT INTO smartpos_operation (referencia, kind, state, "
        "method, path, body, created_at, updated_at, sale, events) "
        "SELECT 'load-ref-' || n, 'payment', "
        "CASE WHEN n % 200 = 0 THEN 'sending' ELSE 'rejected' END, 'POST', '/v1/payments', "
        f"{blob}, 1.7e9, 1.7e9, CASE WHEN n % 4 = 0 THEN 'load-sale-' || (n / 4) END, 0 FROM g"
    )
    execute(
        rows.format(OPERATIONS // 4) + "INSERT INTO smartpos_sale (sale_id, total_centavos, "
        "version, created_at, updated_at) SELECT 'load-sale-' || n, 1000, 1, 1.7e9, 1.7e9 FROM g"
    )


def _mysql(execute: Callable[[str], Any]) -> Callable[[str], Any]:
    """``execute`` in MySQL's words: ``'text' || expression`` is ``CONCAT('text', expression)``
    and the rows' ``WITH`` comes after ``INSERT INTO table (columns)``."""

    def run(statement: str) -> Any:
        statement = re.sub(r"('[\w-]+') \|\| (\(n / \d\)|n)", r"CONCAT(\1, \2)", statement)
        statement = re.sub(
            r"^(WITH RECURSIVE .*?\) )(INSERT INTO \w+ \([^)]*\) )", r"\2\1", statement
        )
        return execute(statement)

    return run


def _exercised(alias: str) -> dict[str, tuple[Any, ...]]:
    """Every statement the store sends during ``exercise``, with its first parameters."""
    from django.db import connections

    from smartpos.integrations.django import DjangoStore

    sent: dict[str, tuple[Any, ...]] = {}

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if not many and sql.lstrip().upper().startswith(
            ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH")
        ):
            sent.setdefault(sql, tuple(params or ()))
        return execute(sql, params, many, context)

    with connections[alias].execute_wrapper(record), DjangoStore(alias) as store:
        exercise(store)
    return sent


@pytest.fixture
def loaded_postgres(postgres_server: PostgresServer, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A migrated, loaded and analysed database of its own: its alias and DSN."""
    psycopg = require_module("psycopg", "psycopg (pip install 'smartpos[postgres]')")
    setup_django(tmp_path)
    name = f"djplans_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_server.dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    alias = f"pg_{name}"
    dsn = postgres_server.dsn.replace("dbname=postgres", f"dbname={name}")
    try:
        add_database(alias, postgres_config(postgres_server.port, name))
        migrate(alias)
        with psycopg.connect(dsn, autocommit=True) as conn:
            _load(conn.execute, "'\\x7b7d'::bytea")
            for table in ("smartpos_event", "smartpos_operation", "smartpos_sale"):
                conn.execute(f"VACUUM ANALYZE {table}")
        yield alias, dsn
    finally:
        drop_database(alias)
        with psycopg.connect(postgres_server.dsn, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _sorted_whole(node: dict[str, Any]) -> list[str]:
    """The reads of the events or the journal under a sort that no LIMIT stops, other than
    lookups of keys: a range of rows (every claimable one, every one of a state) sorted."""
    if node["Node Type"] == "Limit":
        return []
    if node.get("Relation Name") in _TABLES:
        conditions = [node.get("Index Cond"), *(c.get("Index Cond") for c in node.get("Plans", ()))]
        if any(c is not None and " = " in c for c in conditions):
            return []  # the rows of given keys
        return [f"{node['Node Type']} on {node['Relation Name']} sorted ({conditions})"]
    return [found for child in node.get("Plans", ()) for found in _sorted_whole(child)]


def _postgres_scans(node: dict[str, Any]) -> list[str]:
    """The steps of a plan that read the events or the journal beyond what they return.

    A ``Seq Scan`` of either table; or a ``Sort`` of a range of their rows (a whole state's,
    every claimable one), where an index walk in order would stop at the LIMIT.
    """
    found = []
    if node["Node Type"] == "Seq Scan" and node.get("Relation Name") in _TABLES:
        found.append(f"Seq Scan on {node['Relation Name']}")
    if node["Node Type"] in ("Sort", "Incremental Sort"):
        found += _sorted_whole(node["Plans"][0])
    for child in node.get("Plans", ()):
        found += _postgres_scans(child)
    return found


@pytest.mark.postgres
@pytest.mark.slow
def test_postgres_generic_plans_never_scan(loaded_postgres: tuple[str, str]) -> None:
    import psycopg

    alias, dsn = loaded_postgres
    sent = _exercised(alias)

    scans: dict[str, str] = {}
    with psycopg.connect(dsn) as conn:
        conn.execute("SET plan_cache_mode = force_generic_plan")
        for query, params in sent.items():
            (plan,) = generic_plan(conn, query, params, json=True)
            found = _postgres_scans(plan["Plan"])
            if found:
                scans[query] = "\n".join(found)
    assert len(sent) > 30, sorted(sent)
    assert not scans, "\n\n".join(f"{q}\n{p}" for q, p in scans.items())


def _sqlite_scans(plan: list[tuple[int, int, int, str]]) -> list[str]:
    """The steps of a plan that read the events or the journal beyond what they return.

    A ``SCAN`` of either table without an index; or, in a query that sorts its rows
    afterwards (a ``TEMP B-TREE FOR ORDER BY``), an index walked whole or searched for a
    range of rows (every claimable one), not only for given keys (``column=?`` terms).
    """
    found = []
    sorted_at = {parent for _, parent, _, detail in plan if "TEMP B-TREE FOR ORDER BY" in detail}
    for _, parent, _, detail in plan:
        match = re.match(r"(SCAN|SEARCH) (\w+)( USING)?[^(]*(?:\((.*)\))?", detail)
        if match is None or match.group(2) not in _TABLES:
            continue
        verb, using, terms = match.group(1), match.group(3), match.group(4) or ""
        keyed = all(re.fullmatch(r"\w+=\?", term) for term in terms.split(" AND "))
        walked_whole = verb == "SCAN" and (using is None or parent in sorted_at)
        range_sorted = verb == "SEARCH" and parent in sorted_at and not keyed
        if walked_whole or range_sorted:
            found.append(detail)
    return found


def test_sqlite_plans_never_scan(tmp_path: Path) -> None:
    setup_django(tmp_path)
    path = tmp_path / "plans.sqlite3"
    alias = f"sqlite_plans_{uuid.uuid4().hex[:8]}"
    add_database(alias, {"ENGINE": "django.db.backends.sqlite3", "NAME": str(path)})
    try:
        migrate(alias)
        with contextlib.closing(sqlite3.connect(path)) as conn:
            _load(conn.execute, "x'7b7d'")
            conn.commit()
            conn.execute("ANALYZE")
        sent = _exercised(alias)
    finally:
        drop_database(alias)

    scans: dict[str, list[str]] = {}
    with contextlib.closing(sqlite3.connect(path)) as conn:
        for statement, params in sent.items():
            plan = conn.execute("EXPLAIN QUERY PLAN " + statement.replace("%s", "?"), params)
            found = _sqlite_scans(plan.fetchall())
            if found:
                scans[statement] = found
    assert len(sent) > 30, sorted(sent)
    assert not scans, "\n\n".join(f"{s}\n{p}" for s, p in scans.items())


# --- MariaDB --------------------------------------------------------------------------------

#: The reads in claim order (list(), claim's candidates), which must each walk an index in
#: order: no sort of the events they read (a sort of the merged walks' rows is of a derived
#: table).
_CLAIM_ORDER = ("ORDER BY criado_em, seq", "criado_em IS NULL ORDER BY seq")


@pytest.mark.slow
def test_mariadb_plans_never_scan_the_events(mariadb_databases: Any) -> None:
    """MariaDB (whole indexes, no partial ones): no statement reads the events whole
    (``ALL``), and no read in claim order sorts the events it reads.

    The journal's statements are not checked here: without partial indexes, the read of the
    sales that may need attention and the journal's purge read the journal whole on MariaDB
    (issue 27).
    """
    from django.db import connections

    alias, config = mariadb_databases()
    add_database(alias, config)
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute("SET SESSION max_recursive_iterations = 1000000")
            _load(cursor.execute, "x'7b7d'", mysql=True)
            for table in ("smartpos_event", "smartpos_operation", "smartpos_sale"):
                cursor.execute(f"ANALYZE TABLE {table}")
                cursor.fetchall()
        sent = _exercised(alias)
        scans: dict[str, list[str]] = {}
        with connections[alias].cursor() as cursor:
            for statement, params in sent.items():
                if statement.startswith("INSERT"):
                    continue  # EXPLAIN says ALL of an INSERT ... VALUES, which reads no row
                cursor.execute("EXPLAIN " + statement, params)
                names = [c[0] for c in cursor.description]
                found = []
                for values in cursor.fetchall():
                    row = dict(zip(names, values, strict=True))
                    if row["table"] != "smartpos_event":
                        continue
                    extra = row["Extra"] or ""
                    if row["type"] == "ALL":
                        found.append(f"{row['table']}: ALL")
                    elif "filesort" in extra and any(o in statement for o in _CLAIM_ORDER):
                        found.append(f"{row['table']}: {row['key']} {extra}")
                if found:
                    scans[statement] = found
    finally:
        drop_database(alias)
    assert len(sent) > 30, sorted(sent)
    assert any("criado_em IS NULL ORDER BY seq" in statement for statement in sent)
    assert not scans, "\n\n".join(f"{s}\n{p}" for s, p in scans.items())
