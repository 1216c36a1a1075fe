"""DjangoStore with Worker(on_sale=...) and Worker(transactional=True): the effects contract on
SQLite, PostgreSQL and MariaDB databases of ``DATABASES`` (real processes killed with kill -9)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("django")

from django_stores import (
    add_database,
    drop_database,
)
from effects_contract import PARTNER_TABLE, Backend, EffectsContract

from smartpos import webhooks

__all__: list[str] = []


class DjangoBackend(Backend):
    """A migrated database of ``DATABASES`` with the partner's table; the store on its alias."""

    effects_table = "smartpos_effect"

    def __init__(self, alias: str, config: dict[str, Any]) -> None:
        from django.db import connections
        from django.db.backends.base.base import BaseDatabaseWrapper

        self.connection_type = BaseDatabaseWrapper
        self.spec = ("django", alias, config)
        self.alias = alias
        add_database(alias, config)
        with connections[alias].cursor() as cursor:
            cursor.execute(PARTNER_TABLE)

    def query(self, sql: str) -> list[str]:
        from django.db import connections

        with connections[self.alias].cursor() as cursor:
            cursor.execute(sql)
            return [row[0] for row in cursor.fetchall()]


class TestDjangoSQLiteEffects(EffectsContract):
    """The contract on a DjangoStore over SQLite."""

    @pytest.fixture
    def backend(self, sqlite_databases: Any) -> Iterator[Backend]:
        backend = DjangoBackend(*sqlite_databases())
        yield backend
        backend.close()
        drop_database(backend.alias)


@pytest.mark.postgres
@pytest.mark.slow
class TestDjangoPostgresEffects(EffectsContract):
    """The contract on a DjangoStore over PostgreSQL."""

    @pytest.fixture
    def backend(self, postgres_databases: Any) -> Iterator[Backend]:
        backend = DjangoBackend(*postgres_databases())
        yield backend
        backend.close()
        drop_database(backend.alias)


@pytest.mark.mariadb
@pytest.mark.slow
class TestDjangoMariaDbEffects(EffectsContract):
    """The contract on a DjangoStore over MariaDB."""

    @pytest.fixture
    def backend(self, mariadb_databases: Any) -> Iterator[Backend]:
        backend = DjangoBackend(*mariadb_databases())
        yield backend
        backend.close()
        drop_database(backend.alias)


def test_a_django_handler_without_transactional_gets_the_event_alone(sqlite_databases: Any) -> None:
    """The automatic transaction is unchanged: handler(event), the ORM on the store's alias."""
    from smartpos.integrations.django import DjangoStore

    backend = DjangoBackend(*sqlite_databases())
    try:
        store = DjangoStore(backend.alias)
        store.put(webhooks.parse_envelope(_ENVELOPE))
        calls: list[tuple[Any, ...]] = []

        def handler(*args: Any) -> None:
            calls.append(args)

        handled = webhooks.Worker(store, handler).run_once()
    finally:
        drop_database(backend.alias)

    assert 1 == handled
    assert 1 == len(calls[0])


_ENVELOPE = (
    b'{"id":"ev-1","tipo":"pagamento.aprovado","criadoEm":"2024-05-01T12:00:00Z",'
    b'"dados":{"referencia":"r-1","documentoCliente":"52998224725","status":"ok",'
    b'"valorCentavos":1000}}'
)


def test_every_effect_key_fits_mysqls_key_column() -> None:
    """The effect keys are shortened to what DjangoStore's key column holds on MySQL/MariaDB
    (its other stores hold any length, and record the same keys)."""
    from smartpos.integrations.django._fields import MYSQL_ID_CHARS
    from smartpos.webhooks._effects import MAX_EFFECT_KEY_CHARS, effect_key

    assert MAX_EFFECT_KEY_CHARS == MYSQL_ID_CHARS
    longest = effect_key("s" * MYSQL_ID_CHARS, "compensated", "r" * MYSQL_ID_CHARS)
    assert len(longest) == MYSQL_ID_CHARS
    assert effect_key("mesa-1", "late_approval", "r-1") == "sale:mesa-1:late_approval:r-1"
    # A lone surrogate (JSON allows one) is hashed too.
    assert len(effect_key("s" * 500, "late_approval", "\ud800" * 20)) == MYSQL_ID_CHARS
