"""Worker(transactional=True) and Worker(on_sale=...) on SQLiteStore and PostgresStore (real
files, a real server, real processes killed with kill -9), and the stores that cannot."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from effects_contract import PARTNER_TABLE, Backend, EffectsContract
from servers import PostgresServer

from smartpos import ConfigurationError, webhooks
from smartpos.webhooks._sqlite import SCHEMA_VERSION as SQLITE_SCHEMA_VERSION

__all__: list[str] = []


class SQLiteBackend(Backend):
    """An SQLite file holding the store's tables and the partner's."""

    connection_type = sqlite3.Connection
    effects_table = "smartpos_effects"

    def __init__(self, path: Path) -> None:
        self.spec = ("sqlite", str(path))
        webhooks.SQLiteStore(path).close()  # the schema, then the partner's table beside it
        with sqlite3.connect(path) as conn:
            conn.execute(PARTNER_TABLE)
        conn.close()
        self._path = path

    def query(self, sql: str) -> list[str]:
        conn = sqlite3.connect(self._path)
        try:
            return [row[0] for row in conn.execute(sql)]
        finally:
            conn.close()


class PostgresBackend(Backend):
    """A database of its own on the session's server: the store's tables and the partner's."""

    effects_table = "smartpos_inbox_effects"

    def __init__(self, dsn: str) -> None:
        import psycopg

        self.connection_type = psycopg.Connection
        self.spec = ("postgres", dsn)
        self._dsn = dsn
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(PARTNER_TABLE)

    def query(self, sql: str) -> list[str]:
        import psycopg

        with psycopg.connect(self._dsn, autocommit=True) as conn:
            return [row[0] for row in conn.execute(sql).fetchall()]


class TestSQLiteEffects(EffectsContract):
    """The contract on SQLiteStore."""

    @pytest.fixture
    def backend(self, tmp_path: Path) -> Iterator[Backend]:
        backend = SQLiteBackend(tmp_path / "shop.sqlite3")
        yield backend
        backend.close()


@pytest.mark.postgres
@pytest.mark.slow
class TestPostgresEffects(EffectsContract):
    """The contract on PostgresStore, one database per test."""

    @pytest.fixture
    def backend(self, postgres_server: PostgresServer) -> Iterator[Backend]:
        import psycopg

        name = f"tx_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(postgres_server.dsn, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        try:
            with psycopg.connect(postgres_server.dsn) as probe:
                info = probe.info
                dsn = f"host={info.host} port={info.port} user={info.user} dbname={name}" + (
                    f" password={info.password}" if info.password else ""
                )
            backend = PostgresBackend(dsn)
            yield backend
            backend.close()
        finally:
            with psycopg.connect(postgres_server.dsn, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# --- the stores and workers that cannot --------------------------------------------------------


def _handler(event: webhooks.Event, connection: Any) -> None:
    return None


@pytest.mark.parametrize(
    "options", [{"transactional": True}, {"on_sale": print}], ids=["transactional", "on_sale"]
)
def test_a_store_without_transactions_is_refused_and_told_which_can(
    options: dict[str, Any],
) -> None:
    with pytest.raises(ConfigurationError) as info:
        webhooks.Worker(webhooks.MemoryStore(), _handler, **options)

    text = str(info.value)
    assert "SQLiteStore, PostgresStore or DjangoStore" in text
    assert "MemoryStore" in text
    assert ("on_sale" if "on_sale" in options else "transactional=True") in text


@pytest.mark.parametrize(
    "options", [{"transactional": True}, {"on_sale": print}], ids=["transactional", "on_sale"]
)
def test_async_worker_refuses_transactions(tmp_path: Path, options: dict[str, Any]) -> None:
    async def handler(event: webhooks.Event) -> None:
        return None

    with (
        webhooks.SQLiteStore(tmp_path / "s.db") as store,
        pytest.raises(ConfigurationError, match="use Worker"),
    ):
        webhooks.AsyncWorker(store, handler, **options)


def test_bad_options_are_refused(tmp_path: Path) -> None:
    with webhooks.SQLiteStore(tmp_path / "s.db") as store:
        with pytest.raises(ConfigurationError, match="handler must be callable, not NoneType"):
            webhooks.AsyncWorker(store, None)  # type: ignore[arg-type]
        with pytest.raises(ConfigurationError, match="handler, on_sale, or both"):
            webhooks.Worker(store)
        with pytest.raises(ConfigurationError, match="on_sale must be callable"):
            webhooks.Worker(store, on_sale="paid")  # type: ignore[arg-type]
        with pytest.raises(ConfigurationError, match="transactional must be a bool"):
            webhooks.Worker(store, _handler, transactional="yes")  # type: ignore[arg-type]


def test_without_transactional_the_handler_runs_outside_any_transaction(tmp_path: Path) -> None:
    """The default is unchanged: handler(event), and the store's other writers never wait."""
    path = tmp_path / "s.db"
    seen: list[bool] = []
    with webhooks.SQLiteStore(path) as store:
        store.put(webhooks.parse_envelope(_ENVELOPE))

        def handler(event: webhooks.Event) -> None:
            with webhooks.SQLiteStore(path, busy_timeout=0.0) as other:
                seen.append(other.put(webhooks.parse_envelope(_OTHER)) is webhooks.PutResult.NEW)

        assert 1 == webhooks.Worker(store, handler).run_once()

    assert [True] == seen


def test_a_receivers_put_waits_for_a_transactional_handler_on_sqlite(tmp_path: Path) -> None:
    """SQLite's write lock is held through the handler: another writer waits (or times out)."""
    path = tmp_path / "s.db"
    failures: list[str] = []
    with webhooks.SQLiteStore(path) as store:
        store.put(webhooks.parse_envelope(_ENVELOPE))

        def handler(event: webhooks.Event, connection: Any) -> None:
            with webhooks.SQLiteStore(path, busy_timeout=0.0) as other:
                try:
                    other.put(webhooks.parse_envelope(_OTHER), timeout=0.0)
                except webhooks.StoreError as exc:
                    failures.append(type(exc).__name__)

        assert 1 == webhooks.Worker(store, handler, transactional=True).run_once()
        assert store.get("ev-other") is None

    assert ["StoreError"] == failures


def test_sqlite_schema_version_4_adds_the_effects_table(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    webhooks.SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    try:
        conn.execute("DROP TABLE smartpos_effects")
        conn.execute("PRAGMA user_version = 3")
        conn.commit()
    finally:
        conn.close()

    webhooks.SQLiteStore(path).close()  # upgrades a version-3 file

    conn = sqlite3.connect(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
    assert 6 == SQLITE_SCHEMA_VERSION == version
    assert "smartpos_effects" in tables


_ENVELOPE = (
    b'{"id":"ev-1","tipo":"pagamento.aprovado","criadoEm":"2024-05-01T12:00:00Z",'
    b'"dados":{"referencia":"r-1","documentoCliente":"52998224725","status":"ok",'
    b'"valorCentavos":1000}}'
)
_OTHER = _ENVELOPE.replace(b'"ev-1"', b'"ev-other"')


@pytest.mark.postgres
@pytest.mark.slow
def test_postgres_migration_5_adds_the_effects_table(postgres_server: PostgresServer) -> None:
    """A version-4 table needs migrate(); migration 5 adds ``<table>_effects`` and nothing else
    changes for the events already there."""
    import psycopg

    from smartpos.webhooks._postgres import SCHEMA_VERSION, MigrationRequiredError
    from smartpos.webhooks._postgres_sql import _MIGRATIONS

    dsn = postgres_server.dsn
    table = f"t_{uuid.uuid4().hex[:12]}"
    with webhooks.PostgresStore(dsn, table=table) as store:
        with psycopg.connect(dsn, autocommit=True) as conn:
            rendered = store._render(conn)
            conn.execute(rendered["create_versions"])
            for version in (1, 2, 3, 4):
                for i in range(len(_MIGRATIONS[version - 1])):
                    conn.execute(rendered[f"migration{version}.{i}"])
                conn.execute(rendered["add_version"], (version,))
        with pytest.raises(MigrationRequiredError, match="version 4"):
            store.get("ev-1")
        version = store.migrate()
        with psycopg.connect(dsn, autocommit=True) as conn:
            found = conn.execute("SELECT to_regclass(%s)", (f"{table}_effects",)).fetchone()

    assert 7 == SCHEMA_VERSION == version
    assert found is not None
    assert f"{table}_effects" == found[0]
